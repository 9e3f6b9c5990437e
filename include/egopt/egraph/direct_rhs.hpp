// A right-hand side without binders, sizes, shifts or C++ parts, compiled once per rule into the
// e-nodes to add (docs/egraph.md, "Applying direct right-hand sides"). Most matches of a
// saturating rule find every e-node of their right-hand side present: applying one is then a
// hashcons lookup per e-node and a merge that changes nothing, and the generic path's per-match
// work (checking the pattern's form, walking it, building each e-node's key twice) was most of
// the cost.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <array>
#include <optional>

namespace egopt::egraph {

class DirectRhs {
public:
    // The compiled right-hand side when `rule` builds it node by node exactly as
    // applyMatchInPlace does (addDirect in rewrite.cpp), else nullopt.
    static std::optional<DirectRhs> compile(const Rule& rule);
    // applyMatchInPlace(g, rule, lib, ctx, m) without explanations or recorded right-hand
    // sides: the same e-nodes added in the same order, the same merge, the same result.
    bool apply(EGraph& g, const Rule& rule, RewriteContext& ctx, Match& m) const;
    // Prefetches the hashcons reads of the steps whose children are all class variables
    // (slotClasses: the match's, as stored); no effect on results.
    void prefetch(const EGraph& g, const EClassId* slotClasses, int stage) const;

private:
    static constexpr size_t kMaxSteps = 8;
    // An e-node to add; a child k >= 0 is slot k's class, k < 0 the class of step -k - 1.
    struct Step {
        lift::Op op = lift::Op::Id;
        int32_t ival = 0;
        uint8_t arity = 0;
        bool leaves = true; // every child is a class variable
        std::array<int32_t, 3> kids{};
    };
    int32_t compileNode(const Pattern& p, PatId id);

    std::vector<Step>
        steps_;             // in addDirect's order: children first, an application's function last
    int32_t rootSlot_ = -1; // the root is this class variable (no steps)
    bool ok_ = true;
};

} // namespace egopt::egraph
