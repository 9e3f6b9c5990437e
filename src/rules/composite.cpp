// Which rules are compositions of others (composite.hpp).
#include "egopt/rules/composite.hpp"

namespace egopt::rules {

size_t operatorCount(const egraph::Pattern& p) {
    size_t n = 0;
    for (const egraph::PatNode& node : p.nodes) {
        n += node.kind == egraph::PatNode::Kind::Node && node.op != lift::Op::Apply &&
             node.op != lift::Op::Lambda;
    }
    return n;
}

bool isComposite(const egraph::Rule& rule) {
    return !rule.composition.empty() || operatorCount(rule.lhs) > kMaxPrimitiveOperators ||
           (rule.rhs && operatorCount(*rule.rhs) > kMaxPrimitiveOperators);
}

std::vector<egraph::Rule> primitiveRules(const std::vector<egraph::Rule>& rules) {
    std::vector<egraph::Rule> out;
    for (const egraph::Rule& r : rules) {
        if (!isComposite(r)) {
            out.push_back(r);
        }
    }
    return out;
}

} // namespace egopt::rules
