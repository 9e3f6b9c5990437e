// The default structural cost: an estimate of the work of the longest-running thread.
#include "egopt/extract/cost.hpp"

#include <cmath>

namespace egopt::extract {

using lift::Op;

double estimateSize(const arith::Size& s, const arith::Bindings& sizes, double fallback) {
    if (auto c = s.constant()) {
        return std::max<double>(1.0, static_cast<double>(*c));
    }
    std::map<std::string, arith::Size, std::less<>> repl;
    for (const std::string& v : s.variables()) {
        auto it = sizes.find(v);
        repl.emplace(v, it != sizes.end() ? arith::Size(it->second)
                                          : arith::Size(static_cast<int64_t>(fallback)));
    }
    auto c = s.substitute(repl).constant();
    return c ? std::max<double>(1.0, static_cast<double>(*c)) : fallback;
}

namespace {

// The outer length of the array the function is applied to (its last argument).
double lengthOf(const CostInput& in, double fallback) {
    if (in.argTypes.empty()) {
        return fallback;
    }
    lift::TypeId t = in.argTypes.back();
    if (t == lift::kNoType || !in.graph.types.isArray(t)) {
        return fallback;
    }
    return estimateSize(in.graph.types.lengthOf(t), in.sizes, fallback);
}

} // namespace

double StructuralCost::cost(const CostInput& in) const {
    double children = 0;
    for (const ChildChoice& c : in.children) {
        children += c.cost;
    }
    double body = in.children.empty() ? 0 : in.children[0].cost;
    double n = lengthOf(in, p_.unknownSize);
    switch (in.node.op) {
    case Op::MapSeq:
    case Op::ReduceSeq:
        return 1 + n * body;
    case Op::MapGlb:
        return 1 + std::ceil(n / p_.glbThreads) * body;
    case Op::MapWrg:
        return 1 + std::ceil(n / p_.wrgGroups) * body;
    case Op::MapLcl:
        return 1 + std::ceil(n / p_.lclThreads) * body;
    case Op::Iterate: {
        const auto& sizes = in.graph.attrOf(in.node).sizes;
        double k = sizes.empty() ? p_.unknownSize : estimateSize(sizes[0], in.sizes, 1);
        return 1 + k * body;
    }
    default:
        return 1 + children;
    }
}

} // namespace egopt::extract
