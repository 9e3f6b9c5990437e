// A right-hand side without binders, sizes, shifts or C++ parts, compiled once per rule into the
// e-nodes to add (docs/egraph.md, "Patterns and rules", compiled direct right-hand sides). Most
// matches of a saturating rule find every e-node of their right-hand side present: applying one is
// then a hashcons lookup per e-node and a merge that changes nothing, and the generic path's
// per-match work (checking the pattern's form, walking it, building each e-node's key twice) was
// most of the cost.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <array>
#include <optional>

namespace egopt::egraph {

class DirectRhs {
    static constexpr size_t kMaxSteps = 8;

public:
    // The hashcons keys of a match's steps whose children are all class variables, made and
    // hashed once, ahead of the match's application (its prefetches use them; applying uses
    // a key's hash when the key is still the same).
    struct Lookahead {
        uint64_t tag = UINT64_MAX; // the match it was made for (the caller's numbering)
        uint32_t valid = 0;        // bit i: kids[i] and hashes[i] are step i's
        std::array<std::array<EClassId, 3>, kMaxSteps> kids{}; // the key's children
        std::array<uint32_t, kMaxSteps> hashes{};
    };
    // The compiled right-hand side when `rule` builds it node by node exactly as
    // applyMatchInPlace does (addDirect in rewrite.cpp), else nullopt.
    static std::optional<DirectRhs> compile(const Rule& rule);
    // applyMatchInPlace(g, rule, lib, ctx, m) without explanations or recorded right-hand
    // sides: the same e-nodes added in the same order, the same merge, the same result.
    // `ahead`, when given, was made for this match (its keys are compared before use).
    bool apply(EGraph& g, const Rule& rule, RewriteContext& ctx, Match& m,
               const Lookahead* ahead = nullptr) const;
    // The lookahead of a match (slotClasses: its classes as stored), with its hashcons slots
    // prefetched; then, once those are in cache, the nodes they point to. Hints: no effect on
    // results.
    void lookahead(const EGraph& g, const EClassId* slotClasses, Lookahead& out) const;
    static void prefetchNodes(const EGraph& g, const Lookahead& ahead);

private:
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
