// The tuning space, size facts and rule names that rewriting keeps beside the e-graph.
#include "egopt/egraph/rewrite_context.hpp"

namespace egopt::egraph {

arith::Size TuningSpace::variable(const std::string& key, const arith::Size& dividesLength) {
    return variable(key, std::span<const arith::Size>(&dividesLength, 1));
}

arith::Size TuningSpace::variable(const std::string& key,
                                  std::span<const arith::Size> dividesLengths) {
    auto it = byKey_.find(key);
    if (it != byKey_.end()) {
        return it->second;
    }
    std::string name = "v__" + std::to_string(byKey_.size() + 1);
    arith::Size v = arith::Size::var(name);
    byKey_.emplace(key, v);
    for (const arith::Size& length : dividesLengths) {
        constraints_.push_back({name, length});
    }
    return v;
}

arith::Size TuningSpace::splitVariable(const arith::Size& length) {
    auto it = splitByLength_.find(length);
    if (it != splitByLength_.end()) {
        return it->second;
    }
    arith::Size v = variable("split " + length.toString(), length);
    splitByLength_.emplace(length, v);
    return v;
}

void SizeFacts::assumeDivides(const arith::Size& divisor, const arith::Size& dividend) {
    env_.addDivides(divisor, dividend);
}

bool SizeFacts::divides(const arith::Size& divisor, const arith::Size& dividend) const {
    auto d = divisor.constant();
    auto n = dividend.constant();
    if (d && n) {
        return *d > 0 && *n % *d == 0;
    }
    return arith::provablyDivides(divisor, dividend, env_);
}

RuleId RuleNames::id(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, static_cast<RuleId>(names_.size()));
    if (inserted) {
        names_.push_back(name);
    }
    return it->second;
}

} // namespace egopt::egraph
