// The tuning space, size facts and rule names that rewriting keeps beside the e-graph.
#include "egopt/egraph/rewrite_context.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>

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
    if (base_) {
        if (auto b = base_->byKey_.find(key); b != base_->byKey_.end()) {
            return b->second;
        }
    }
    size_t known = byKey_.size() + (base_ ? base_->byKey_.size() : 0);
    std::string name = "v__" + std::to_string(known + 1);
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
    if (base_) {
        if (auto b = base_->splitByLength_.find(length); b != base_->splitByLength_.end()) {
            return b->second;
        }
    }
    arith::Size v = variable("split " + length.toString(), length);
    splitByLength_.emplace(length, v);
    return v;
}

// One table per thread, found without a lock: entries by the two sizes' hashes, compared by
// value (a hit copies no size). Bounded: past kMaxEntries answers are computed, not kept.
struct SizeFacts::DividesMemo {
    struct Entry {
        arith::Size divisor;
        arith::Size dividend;
        bool divides;
    };
    static constexpr size_t kMaxEntries = size_t(1) << 14;
    tbb::enumerable_thread_specific<std::unordered_multimap<size_t, Entry>> tables;
};

SizeFacts::SizeFacts() : memo_(std::make_shared<DividesMemo>()) {}

TuningSpace TuningSpace::over(const TuningSpace& base) {
    TuningSpace scratch;
    scratch.base_ = base.base_ ? base.base_ : &base;
    if (base.base_) { // a scratch space over a scratch space: its own entries copied
        scratch.byKey_ = base.byKey_;
        scratch.splitByLength_ = base.splitByLength_;
        scratch.constraints_ = base.constraints_;
    }
    return scratch;
}

void SizeFacts::assumeDivides(const arith::Size& divisor, const arith::Size& dividend) {
    env_.addDivides(divisor, dividend);
    memo_ = std::make_shared<DividesMemo>();
}

bool SizeFacts::divides(const arith::Size& divisor, const arith::Size& dividend) const {
    auto d = divisor.constant();
    auto n = dividend.constant();
    if (d && n) {
        return *d > 0 && *n % *d == 0;
    }
    auto& table = memo_->tables.local();
    size_t key = divisor.hash() * 0x9e3779b97f4a7c15ull ^ dividend.hash();
    auto [from, to] = table.equal_range(key);
    for (auto it = from; it != to; ++it) {
        if (it->second.divisor == divisor && it->second.dividend == dividend) {
            return it->second.divides;
        }
    }
    bool divides = arith::provablyDivides(divisor, dividend, env_);
    if (table.size() < DividesMemo::kMaxEntries) {
        table.emplace(key, DividesMemo::Entry{divisor, dividend, divides});
    }
    return divides;
}

RuleId RuleNames::id(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, static_cast<RuleId>(names_.size()));
    if (inserted) {
        names_.push_back(name);
    }
    return it->second;
}

} // namespace egopt::egraph
