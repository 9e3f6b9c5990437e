// Rewrite rules: a left-hand pattern, conditions (named C++ predicates), parameter generators
// (named C++ functions that bind size variables, e.g. a fresh tuning variable for a split
// factor) and either a right-hand pattern or a named C++ applier that computes the result.
// The named functions live in a Library value (no global registry).
#pragma once

#include "egopt/egraph/pattern.hpp"
#include "egopt/egraph/rewrite_context.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace egopt::egraph {

// An argument of a condition, generator or applier call: a class variable, a size, a number
// or a quoted text (e.g. the name of a user function).
struct CallArg {
    enum class Kind : uint8_t { Class, Size, Number, Text } kind = Kind::Number;
    uint32_t slot = 0;  // Class
    arith::Size size;   // Size (may mention size variables)
    int64_t number = 0; // Number
    std::string text;   // Text
};

struct Call {
    std::string name;
    std::vector<CallArg> args;
    SourceLoc loc;
};

// Resolved arguments as the C++ functions see them.
struct ArgValue {
    EClassId eclass = kNoClass;
    arith::Size size;
    int64_t number = 0;
    std::string text;
};

// Conditions see the size facts (divides) but nothing they could change: the search that
// evaluates them runs in parallel.
using Condition = std::function<bool(const EGraph&, const SizeFacts&, std::span<const ArgValue>)>;
// Binds a size from the match, drawing tuning variables from the saturation's space; `key`
// identifies the match (rule, classes) for memoization. A generator reads no more of the e-graph
// than its classes' types, which merges keep: the parallel apply phase predicts its sizes on a
// copy of the tuning space and calls it again only where that copy gained a variable or a class
// is no longer canonical (applyPlanned).
using Generator = std::function<arith::Size(const EGraph&, TuningSpace&, const std::string& key,
                                            std::span<const ArgValue>)>;
// Computes the right-hand side; nullopt when it does not apply to this match.
using Applier = std::function<std::optional<EClassId>(EGraph&, std::span<const ArgValue>)>;

struct Library {
    struct Entry {
        std::string kinds; // argument kinds: 'c' class, 's' size, 'n' number, 't' text
        std::string help;
        // The condition reads only the member e-nodes of its class arguments (their operators
        // and values): it holds for a class whose member list is unchanged iff it held before.
        bool membersOnly = false;
        // The condition holds only for a class (its first argument, the only class one) that
        // holds an e-node of this operator: a search can evaluate it ahead on the classes that
        // do, and narrow `?f $ (...)` to applications of those (FunctionFilter).
        std::optional<Op> requiresOp = std::nullopt;
    };
    std::map<std::string, std::pair<Entry, Condition>> conditions;
    std::map<std::string, std::pair<Entry, Generator>> generators;
    std::map<std::string, std::pair<Entry, Applier>> appliers;
    // The built-in predicates, generators and appliers (docs/rules.md lists them).
    static Library standard();
};

// Conditions on the user functions and literals a class holds (library_userfun.cpp), so rule
// files can state arithmetic identities: isFun(?f, "add"), isLiteral(?c, "1.0f").
void addUserFunConditions(Library& lib);

struct Rule {
    std::string name;
    std::string file;
    SourceLoc loc;
    VarTable vars;
    Pattern lhs;
    std::optional<Pattern> rhs;
    std::optional<Call> applier;
    std::vector<Call> conditions;
    std::vector<std::pair<std::string, Call>> generators; // "#n" = gen(...)
    // "?v = @applier(...)": classes the right-hand side uses that the left does not bind,
    // computed in C++ after the generators (in order; a declining applier: no rewrite).
    std::vector<std::pair<uint32_t, Call>> computed;
    // `by a; b; ...`: the rule is a composition of these catalogue rules, in this order (a
    // macro rule, ICFP'15 §6.1). rules::isComposite and `egopt rules derive` read it.
    std::vector<std::string> composition;
};

struct Match {
    EClassId eclass;
    Subst subst;
};

// All matches of a rule in one class that satisfy its conditions under the size facts.
void searchClass(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                 EClassId c, std::vector<Match>& out);

// searchClass for each of `classes` in turn, appending in that order.
void searchClasses(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                   std::span<const EClassId> classes, std::vector<Match>& out);
// The same matches, in the same order, handed to `onMatch` (the substitution is only valid
// during the call): the runner stores them compactly.
// With `unchangedSince` (an epoch, EGraph::epoch), each match also says whether its e-nodes and
// the classes its conditions read are unchanged since then (Subst::unchanged).
void searchClasses(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                   std::span<const EClassId> classes,
                   const std::function<void(EClassId, const Subst&)>& onMatch,
                   uint32_t unchangedSince = 0, const Deferral* deferral = nullptr,
                   const FunctionFilter* filter = nullptr, MemberRange roots = {});
// The matches a Deferral of searchClasses handed over (resumeMatches), with the rule's
// conditions; `journaled` answers condition i for a class whose members changed since the
// search (nullopt: the condition is called).
void resumeSearch(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                  EClassId root, const Resumption& resume,
                  const std::function<std::optional<bool>(size_t, EClassId)>& journaled,
                  const std::function<void(const Subst&)>& onMatch);
// resumeSearch for many deferred ranges of one rule with one set-up: `body` gets the function
// that enumerates the matches of `root` with `resume` as it is then.
void resumeSearchSession(const EGraph& g, const Rule& rule, const Library& lib,
                         const SizeFacts& facts, const Resumption& resume,
                         const std::function<std::optional<bool>(size_t, EClassId)>& journaled,
                         const std::function<void(const Subst&)>& onMatch,
                         const std::function<void(const std::function<void(EClassId)>&)>& body);
// What narrows a rule's search by applied functions (FunctionFilter), found once per rule: the
// left-hand nodes `?f $ (...)` and the conditions that pin such a ?f (Library::Entry::
// requiresOp, with no other class or size argument). nullopt: the rule has no such node, or
// none that the filter narrows (a ?f neither pinned nor applied at two nodes).
struct FunctionPins {
    std::vector<int32_t> fnSlot;               // by left-hand node, or -1
    std::vector<std::vector<size_t>> pinnedBy; // by slot: the conditions that pin it
};
std::optional<FunctionPins> functionPins(const Rule& rule, const Library& lib);
// The filter for a search of the rule on `g`, clean, whose index has function keys: each pinned
// variable's classes, the classes of `index.withOp(requiresOp)` where its conditions hold.
// `roots` receives the classes a match can be rooted at when the root is `?f $ (...)` with ?f
// pinned (ascending), else index.candidates(rule.lhs) is returned unchanged.
FunctionFilter makeFunctionFilter(const EGraph& g, const Rule& rule, const Library& lib,
                                  const SizeFacts& facts, const FunctionPins& pins,
                                  const OpIndex& index, std::vector<EClassId>& roots,
                                  std::span<const EClassId>& candidates);
// By slot: whether a condition of the rule reads it (Deferral::conditionSlot).
std::vector<bool> conditionSlotMask(const Rule& rule);

// Unchanged matches (docs/egraph.md, "Unchanged matches"). A rule qualifies when applying a
// match is only adding its right-hand side node by node and merging (no binders, shifts, sizes,
// generators or C++ parts) and its conditions read only their classes' members: then a match
// whose e-nodes were all there, unchanged, when the rule last ran and had every match applied
// was applied then, and its right-hand side is in its class.
bool skipsUnchangedMatches(const Rule& rule, const Library& lib);
// For such a match, during the apply phase that began with EGraph::trackAbsorbed: true when
// applying it now is sure to change nothing: the classes the right-hand side is built from are
// still roots and each of its inner e-nodes has a child class whose parents stayed roots, so
// every lookup finds what it found at the start of the phase, which was the matched class.
bool unchangedMatchIsNoOp(const EGraph& g, const Rule& rule, const Subst& s);
// Semi-naive search (docs/egraph.md, "Unchanged matches"): a rule whose unchanged matches are
// skipped may also leave them unenumerated (Deferral) when its left-hand side has no binders,
// each condition reads one class (and no size), and each inner e-node of its right-hand side has a
// class variable child (the anchor, anchorSlots: the last such child, per inner e-node).
bool defersUnchangedMatches(const Rule& rule, const Library& lib);
std::vector<uint32_t> anchorSlots(const Rule& rule);
// A hint that a match of such a rule (its slot classes) is applied soon: prefetches the
// hashcons reads of the right-hand side's inner e-nodes whose children are class variables
// (stage 0: their slots; stage 1: their nodes; NodeTable::prefetch). No effect on results.
void prefetchRhs(const EGraph& g, const Rule& rule, const EClassId* slotClasses, int stage);

// Applies one match; returns true if the e-graph changed. Generators draw from ctx.tuning, and
// the merge is justified by the rule's id in ctx.rules. A type mismatch is a BadInput error
// naming the rule and showing both terms and their types. When `rhsNodes` is given, it receives
// the e-nodes of the right-hand side (added or already present) whenever it was built.
bool applyMatch(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx,
                const Match& m, std::vector<ENodeId>* rhsNodes = nullptr);

// applyMatch on a match the caller no longer needs: its substitution is used in place (its
// classes made canonical, the generators' sizes added) instead of a copy.
bool applyMatchInPlace(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx,
                       Match& m, std::vector<ENodeId>* rhsNodes = nullptr);

// The parallel apply phase (docs/egraph.md, "Parallel apply"): a match's right-hand side planned
// on the e-graph as it is (EGraph::planTerm), on any thread, then applied in order.
struct PlannedMatch {
    bool ok = false;
    std::vector<EClassId> classes;                         // the slot classes, canonical then
    std::map<std::string, arith::Size, std::less<>> sizes; // the generators' sizes, predicted
    bool drewTuning = false; // they may depend on variables the scratch space created
    std::vector<TypeId> rootArgTypes;
    EClassId root = kNoClass; // the matched class, canonical then
    TermPlan plan;
};
// Whether a rule's matches can be planned: a right-hand pattern, no C++ applier.
bool plannable(const Rule& rule);
// Plans a match of a plannable rule while `g` is frozen (nobody writes, `g.types` frozen).
// Generators draw from `scratch`, a scratch space over the tuning space (TuningSpace::over),
// which had `known` constraints when it was taken; the right-hand side is instantiated into `terms`
// (cleared first: one arena serves a thread's matches), and the thread's `memo` (or null) keeps the
// types it works out for the next matches. `out.ok` false: not planned.
void planMatch(EGraph& g, const Rule& rule, const Library& lib, TuningSpace& scratch, size_t known,
               const Match& m, PlannedMatch& out, TermArena& terms, PlanTypeMemo* memo = nullptr);
// applyMatchInPlace for a match planned since g.trackDataChanges(true), without explanations:
// the plan inserted if what it read is unchanged (then `*asPlanned` is set), else the match
// built as applyMatchInPlace builds it. The e-graph is the same either way.
bool applyPlanned(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx, Match& m,
                  const PlannedMatch& p, bool* asPlanned = nullptr);

// What applyMatch would union with the match's class: the right-hand side, added to the e-graph
// but not merged (soundness checking compares the two). nullopt when the rule does not apply to
// this match (an applier declined, or a variable would escape its binder). Ill-typed right-hand
// sides are BadInput errors naming the rule, as in applyMatch.
std::optional<EClassId> applyRhs(EGraph& g, const Rule& rule, const Library& lib,
                                 TuningSpace& tuning, const Match& m);

} // namespace egopt::egraph
