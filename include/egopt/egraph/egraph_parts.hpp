// The values EGraph's interface takes and returns (egraph.hpp): its errors, the views of a
// class's data and lists, a planned insertion and why two classes were merged.
#pragma once

#include "egopt/egraph/enode.hpp"
#include "egopt/egraph/inline_vec.hpp"
#include "egopt/egraph/shape.hpp"
#include "egopt/lift/type.hpp"

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

// A union that would equate classes of different types, or an ill-typed node. Rules catch it
// and report it with their name (a mismatch is a rule bug, not a user error).
class TypeError : public std::runtime_error {
public:
    TypeError(const std::string& message, EClassId a = kNoClass, EClassId b = kNoClass)
        : std::runtime_error(message), a(a), b(b) {}
    EClassId a;
    EClassId b;
};

// Shifting a class down would let a variable escape its binder: the rewrite does not apply.
class ScopeError : public TypeError {
public:
    using TypeError::TypeError;
};

// A class's analysis data as EGraph::data reads it: its shape (the type or signature and the free
// variables, shared by every class of that shape: they stay valid as long as the e-graph) and
// its smallest term. A view: read it before the e-graph next changes.
struct ClassData {
    const FunSig& fun;                  // function classes only
    const InlineVec<int32_t>& freeVars; // sorted De Bruijn indices that some member may use
    uint64_t cost;                      // size of the smallest member term (saturating)
    TypeId type;                        // data classes only
    ENodeId best;                       // the e-node of that term
    bool isData() const { return fun.kind == FunSig::Kind::None; }
    bool hasFreeVarAtLeast(int32_t index) const {
        return !freeVars.empty() && freeVars.back() >= index;
    }
};

// A class's data as make and remake compute it from a node, with lists of its own: what a new
// class starts with, or what a parent's node offers its class (EGraph interns the shape when it
// keeps it).
struct ClassFacts {
    FunSig fun;
    InlineVec<int32_t> freeVars;
    uint64_t cost = 0;
    TypeId type = lift::kNoType;
    ENodeId best = 0;
    bool isData() const { return fun.kind == FunSig::Kind::None; }
};

// One bit per operator (modulo 56) for the classes' operator summaries.
inline uint64_t opBit(Op op) {
    return uint64_t(1) << (static_cast<unsigned>(op) % 56);
}

// A class's member and parent lists as EGraph::eclass reads them (a view: read it before the
// e-graph next changes).
struct EClass {
    std::span<const ENodeId> nodes;   // members (canonical after rebuild, sorted, unique)
    std::span<const ENodeId> parents; // nodes that have this class as a child
    // opBit of every member's operator (a superset between rebuilds): e-matching skips a class
    // without scanning its members when the pattern's operator is not among them.
    uint64_t opMask = 0;
    bool mayHold(Op op) const { return (opMask & opBit(op)) != 0; }
};

// Terms nested deeper than this are rejected, not recursed into (addTerm, planTerm and
// alpha-normalisation recurse once per level): generated or fuzzed inputs can nest arbitrarily.
inline constexpr size_t kMaxTermDepth = 20000;

// What inserting a term (addTerm) would add, worked out on a frozen e-graph by EGraph::planTerm
// so that the parallel apply phase can build right-hand sides on many threads and insert them
// in order (docs/egraph.md, "Parallel apply"). The nodes the term's lookups found are left out:
// found again with the same children, they change nothing.
struct TermPlan {
    static constexpr EClassId kStep = 0x80000000U; // a child or root that is step i: kStep | i
    std::vector<ENode> steps;                      // the nodes addTerm would add, in its order
    std::vector<TypeId> types;     // by step: an application's type where planning typed it
    std::vector<EClassId> roots;   // the found nodes' children: must still be roots
    std::vector<EClassId> settled; // shifted classes: must be roots with the same analysis data
    // By step: the hashcons hash of a step over classes only (its children canonical when
    // planned), so that replaying it hashes nothing.
    std::vector<uint32_t> hashes;
    EClassId root = kNoClass; // a class, or kStep | the step that makes the term
};

// Types planning worked out (EGraph::planTerm), by function and argument types: one thread
// plans many matches of a rule, whose right-hand sides apply the same functions to the same
// types, and working a type out again does arithmetic on sizes that every planning thread
// shares (their reference counts then bounce between the cores). Valid while the e-graph and
// its type arena stay frozen, so it holds the types of one planned window (`window`); one per
// thread, cleared by that thread when it first plans in a later window (forWindow), so that
// the applying thread does not clear every thread's map, cold in its cache, in order.
struct PlanTypeMemo {
    struct KeyHash {
        size_t operator()(const std::vector<uint32_t>& key) const noexcept {
            uint64_t h = key.size();
            for (uint32_t k : key) {
                h = (h ^ k) * 0x9e3779b97f4a7c15ull;
            }
            return static_cast<size_t>(h ^ (h >> 29));
        }
    };
    std::unordered_map<std::vector<uint32_t>, TypeId, KeyHash> types;
    std::vector<uint32_t> key; // the key being looked up (its memory reused)
    uint64_t window = 0;       // the planned window whose types `types` holds

    // The memo for planned window `w` (numbered from 1): emptied if it holds another's types.
    PlanTypeMemo& forWindow(uint64_t w) {
        if (window != w) {
            types.clear();
            window = w;
        }
        return *this;
    }
};

// Why two classes were merged (for explanations).
struct Justification {
    enum class Kind : uint8_t { Rule, Congruence, Copy } kind = Kind::Rule;
    // Kind::Rule: the rule's id in the RuleNames of whoever applied it (RewriteContext::rules),
    // which names it in explanations; the e-graph only stores it. Kind::Copy: the index of the
    // pair of original nodes (EGraph::copyOrigin) whose equality the merged copies repeat.
    uint32_t rule = 0;
};

} // namespace egopt::egraph
