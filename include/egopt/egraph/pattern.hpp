// Patterns and e-matching. A pattern is a flat, id-based tree whose variables are resolved to
// slots when it is built (the "compiled" form): e-class variables (?x, matched against any
// class, non-linear occurrences compared), size variables (#n, bound from a node's size
// arguments), and variables bound by the pattern's own lambdas (De Bruijn indices).
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

using PatId = uint32_t;

struct PatNode {
    enum class Kind : uint8_t { ClassVar, BoundVar, Node } kind = Kind::Node;
    Op op = Op::Id;
    int32_t ival = 0;               // Node: attribute; BoundVar: De Bruijn index
    std::vector<arith::Size> sizes; // may mention size variables "#n"
    std::vector<PatId> children;
    uint32_t slot = 0; // ClassVar: the variable's slot
    int32_t depth = 0; // binders of the pattern enclosing this node
    SourceLoc loc;
};

struct Pattern {
    std::vector<PatNode> nodes;
    PatId root = 0;
    bool isFunction() const; // decidable sort of the root (true: a function)
    bool sortKnown() const;
};

struct FunctionFilter; // below

// A substitution: classes for e-class slots, sizes for size-variable names.
struct Subst {
    std::vector<EClassId> classes;
    std::map<std::string, arith::Size, std::less<>> sizes;
    // Set by a search with a MatchAge: every e-node of the match, and the member list of every
    // class in MatchAge::classSlots, is unchanged since the epoch MatchAge::since.
    bool unchanged = false;
};

// Asks a search to tell which matches are unchanged since an epoch (Subst::unchanged).
struct MatchAge {
    uint32_t since = 0; // 0: none is
    std::vector<uint32_t> classSlots;
};

// Semi-naive matching (docs/egraph.md, "Unchanged matches"). A search with a Deferral does not
// enumerate the matches it can tell are unchanged since `since` (MatchAge) before it reaches
// them (it needs a MatchAge): where no e-node matched so far is newer and no pending part of the
// pattern can match a newer e-node or read a newer class (a condition slot), it hands a range of
// the current class's members to `onDeferred` instead, with the member index chosen at every e-node
// step before it (`path`). Every match the full search finds below those members is unchanged; a
// Resumption enumerates them later, in the same order.
// By (pattern node << 32 | class): the members of the class, by index, that can start a match
// of the node with an e-node or condition class newer than the search's age. Open addressing
// (the matcher asks at every e-node step of a deferring search); an answer stays where it is
// while others are added.
class HotMembers {
public:
    const std::vector<uint32_t>* find(uint64_t key) const {
        if (slots_.empty()) {
            return nullptr;
        }
        for (size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].second == 0) {
                return nullptr;
            }
            if (slots_[i].first == key) {
                return &values_[slots_[i].second - 1];
            }
        }
    }
    // `key` must not be present.
    const std::vector<uint32_t>& add(uint64_t key, std::vector<uint32_t> members) {
        if (2 * (values_.size() + 1) > slots_.size()) {
            grow();
        }
        values_.push_back(std::move(members));
        place(key, static_cast<uint32_t>(values_.size()));
        return values_.back();
    }

private:
    size_t home(uint64_t key) const {
        return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> 32) & (slots_.size() - 1);
    }
    void place(uint64_t key, uint32_t value) {
        size_t i = home(key);
        while (slots_[i].second != 0) {
            i = (i + 1) & (slots_.size() - 1);
        }
        slots_[i] = {key, value};
    }
    void grow() {
        std::vector<std::pair<uint64_t, uint32_t>> old = std::move(slots_);
        slots_.assign(old.empty() ? 64 : 2 * old.size(), {0, 0});
        for (const auto& [key, value] : old) {
            if (value != 0) {
                place(key, value);
            }
        }
    }
    std::vector<std::pair<uint64_t, uint32_t>> slots_; // key, 1 + value index (0: empty)
    std::deque<std::vector<uint32_t>> values_;
};
struct Deferral {
    std::vector<bool> conditionSlot; // by slot: a condition reads the class's members
    std::function<void(EClassId root, std::span<const uint32_t> path, uint32_t lo, uint32_t hi)>
        onDeferred;
    // The memo of hot members, when the caller shares one between searches of the same rule,
    // age and e-graph (the answers depend on nothing else); else each search keeps its own.
    HotMembers* hot = nullptr;
};

// The member lists (and operator masks) of classes as they were when a search ran, for those
// that changed since (the apply phase journals a class before a merge changes it).
class ClassSnapshot {
public:
    struct Entry {
        std::vector<ENodeId> members;
        uint64_t opMask = 0;
        std::vector<uint8_t> conditions; // by the journal's condition probes (Runner)
    };
    const Entry* find(EClassId c) const {
        return c < index_.size() && index_[c] != kNone ? &entries_[index_[c]] : nullptr;
    }
    bool has(EClassId c) const { return find(c) != nullptr; }
    Entry& add(EClassId c) {
        if (c >= index_.size()) {
            index_.resize(std::max<size_t>(c + 1, 2 * index_.size()), kNone);
        }
        if (index_[c] == kNone) {
            index_[c] = static_cast<uint32_t>(entries_.size());
            entries_.emplace_back();
        }
        return entries_[index_[c]];
    }
    void clear() {
        index_.clear();
        entries_.clear();
    }

private:
    // By class id, the entry's index (a class is looked up at every step of a resumed match: a
    // hash map's lookups were a few percent of arith-8's time). A deque keeps the entries in
    // place, so a reference stays valid as others are added.
    static constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> index_;
    std::deque<Entry> entries_;
};

// Enumerates the matches a Deferral handed over: the member chosen at each e-node step of
// `path`, then members [lo, hi) of the class at the next step, and every match below them, on
// the classes as they were when the search ran (`classAt`: their members and operator masks;
// class ids are not canonicalized again, the e-nodes' children are as the search saw them).
// At every step `wanted` is asked (with the bindings so far and the pending (pattern node,
// class) pairs): false leaves out every match that extends them. Every match is unchanged.
struct Resumption {
    std::span<const uint32_t> path;
    uint32_t lo = 0, hi = 0;
    std::function<const ClassSnapshot::Entry&(EClassId)> classAt;
    std::function<bool(const Subst&, std::span<const std::pair<PatId, EClassId>> pending)> wanted;
    // The search's FunctionFilter, if it had one: its index describes the classes as they were.
    const FunctionFilter* filter = nullptr;
};

// Shared among the patterns of one rule: which slot a name denotes and the binder depth at
// which the left-hand side binds it (to shift it when the right-hand side uses it elsewhere).
struct VarTable {
    std::vector<std::string> names;
    std::vector<int32_t> depth;
};

// Every substitution under which `p` matches class `c` (in a deterministic order).
void matchClass(const EGraph& g, const Pattern& p, size_t numSlots, EClassId c,
                const std::function<void(const Subst&)>& onMatch);

// Called when matching binds class variable `slot` (the substitution so far); false drops every
// match that extends this binding (a rule's conditions on the variables bound so far), which
// prunes the backtracking without changing the order of the matches that remain.
// `slots` names the slots it reads (empty: all), so that binding any other one costs no call.
struct BindFilter {
    std::function<bool(const Subst&, uint32_t slot)> fn;
    std::vector<bool> slots;
    explicit operator bool() const { return static_cast<bool>(fn); }
    bool operator()(const Subst& s, uint32_t slot) const {
        return (!slots.empty() && !slots[slot]) || fn(s, slot);
    }
};

// A range of a class's members by index, [lo, hi) (hi past the end: to the end).
struct MemberRange {
    uint32_t lo = 0, hi = UINT32_MAX;
    bool whole() const { return lo == 0 && hi == UINT32_MAX; }
};

// matchClass for each of `classes` in turn (one matcher set-up for all of them).
// With `deferral`, unchanged matches may be deferred instead (Deferral).
// With `roots`, a pattern rooted at an e-node is matched only at the members of each class in
// that range: the matches of consecutive ranges, concatenated, are those of the whole class in
// their order (the root's members are tried in order). Not with a deferral.
void matchClasses(const EGraph& g, const Pattern& p, size_t numSlots,
                  std::span<const EClassId> classes,
                  const std::function<void(EClassId, const Subst&)>& onMatch,
                  const BindFilter& keep = {}, const MatchAge& age = {},
                  const Deferral* deferral = nullptr, const FunctionFilter* filter = nullptr,
                  MemberRange roots = {});
// The matches a Deferral handed over for root class `root` (Resumption).
void resumeMatches(const EGraph& g, const Pattern& p, size_t numSlots, EClassId root,
                   const Resumption& resume, const std::function<void(const Subst&)>& onMatch,
                   const BindFilter& keep = {});
// resumeMatches for many roots with one matcher set-up: `body` gets the function that runs one
// root with `resume` as it is then (its path and bounds may change between runs).
void resumeMatchesSession(const EGraph& g, const Pattern& p, size_t numSlots,
                          const Resumption& resume,
                          const std::function<void(const Subst&)>& onMatch, const BindFilter& keep,
                          const std::function<void(const std::function<void(EClassId)>&)>& body);
// Whether semi-naive matching supports the pattern: no lambdas or bound variables.
bool deferrable(const Pattern& p);

// The operator every match's root e-node has (Op::Param for a bound variable), or nullopt when
// the root is a class variable, which matches any class. Searches use it to try a pattern only
// on the classes that hold an e-node of that operator.
std::optional<Op> rootOp(const Pattern& p);
// The operator of pattern node `id` as rootOp gives the root's.
std::optional<Op> patternOp(const Pattern& p, PatId id);

// The classes that hold at least one e-node of each operator (canonical ids, ascending), as
// egg and egglog keep them: a pattern is tried only on the classes its root operator occurs
// in, so a rule whose root operator has no e-nodes costs nothing. Almost every Lift rule is
// rooted at an application (`Map(?f) $ ?x`), so applications are also indexed by the operators
// of the applied function's class: `Map(?f) $ ?x` is tried only where some application's
// function class holds a Map. Built from a clean e-graph (after rebuild), valid until it
// changes.
class OpIndex {
public:
    // With `functionKeys`, also the applied functions of application members (below), for
    // searches that narrow applications by their function (FunctionFilter).
    explicit OpIndex(const EGraph& g, bool functionKeys = false);
    // The classes a match of `p` can be rooted at. Ascending, as a full scan would visit them.
    std::span<const EClassId> candidates(const Pattern& p) const;
    std::span<const EClassId> all() const { return all_; }
    std::span<const EClassId> withOp(Op op) const; // the classes holding an e-node of `op`
    // With functionKeys: by member of class `c` (canonical, `members` of them), the canonical
    // class of the function an application member applies, kNoClass for other members.
    std::span<const EClassId> appliedFunctions(EClassId c, size_t members) const;
    // With functionKeys: by member of class `c`, where an application member's e-node is
    // stored (EGraph::nodePosition), valid until the next rebuild; unset for other members.
    std::span<const uint32_t> memberPositions(EClassId c, size_t members) const {
        return std::span<const uint32_t>(positions_).subspan(keyAt_[c], members);
    }
    // With functionKeys: the classes holding an application of function class `f`, ascending.
    std::span<const EClassId> applying(EClassId f) const;
    // The classes of at least kLargeClass members, ascending: a search splits each into ranges
    // of members (MemberRange), which may run in parallel (one class of mm at a million e-nodes
    // holds 111,511 members, 2 of one rule's 47 CPU seconds of search).
    static constexpr size_t kLargeClass = 512;
    std::span<const EClassId> large() const { return large_; }

private:
    std::vector<EClassId> all_;
    std::vector<EClassId> large_;
    std::vector<std::vector<EClassId>> byOp_;      // by Op's value
    std::vector<std::vector<EClassId>> appliedOp_; // Apply classes, by the function's operator
    std::vector<uint32_t> keyAt_;                  // by class id: its members' first key
    std::vector<EClassId> keys_;                   // by member, class by class
    std::vector<uint32_t> positions_;              // by member, as keys_
    std::unordered_map<EClassId, std::vector<EClassId>> applying_;
};

// Narrows a search by the applied functions of application members (OpIndex's function keys):
// at a pattern node `?f $ (...)` a member that applies another class than ?f's, once ?f is
// bound, or than one of the classes ?f is pinned to before (a rule's condition holds only for
// them: isFun(?f, "add")), cannot match, and is skipped without reading it. The matches and
// their order are those of the search without the filter.
struct FunctionFilter {
    const OpIndex* index = nullptr;
    std::vector<int32_t> fnSlot;                   // by pattern node: its function's slot, or -1
    std::vector<bool> pinned;                      // by slot
    std::vector<std::vector<EClassId>> pins;       // by pinned slot: the classes it can bind
    bool admits(uint32_t slot, EClassId f) const { // pins are ascending
        return !pinned[slot] || std::binary_search(pins[slot].begin(), pins[slot].end(), f);
    }
};

// Builds the term of a pattern under a substitution (class variables as shifted references).
TermId instantiate(const Pattern& p, const VarTable& vars, const Subst& s, TermArena& out);

} // namespace egopt::egraph
