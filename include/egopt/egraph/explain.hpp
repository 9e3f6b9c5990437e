// Explanations (as egg's): why two terms are equal, as a chain of rewrites. The union forest
// over e-node ids records each merge with its justification; a path between two ids is
// expanded (congruence edges recursively, child by child) into steps, each naming a rule and
// showing the whole intermediate term. Needs EGraph::explanations set before insertion.
#pragma once

#include "egopt/egraph/egraph.hpp"
#include "egopt/egraph/rewrite_context.hpp"

#include <string>
#include <vector>

namespace egopt::egraph {

struct ExplanationStep {
    std::string rule;
    bool forward = true; // false: the rule was used right-to-left
    std::string term;    // the whole term after this step
};

struct Explanation {
    bool equal = false;
    std::string start;
    std::vector<ExplanationStep> steps;
};

// `a` and `b` are ids returned when the two terms were inserted; `rules` names the rule ids of
// the merges (the RewriteContext the rules ran with).
Explanation explain(const EGraph& g, const RuleNames& rules, ENodeId a, ENodeId b,
                    const std::vector<std::string>& freeNames = {});

} // namespace egopt::egraph
