// The e-graph (docs/design.md §5): hash-consed arena e-nodes, union-find, e-classes with parent
// lists, deferred rebuilding that restores congruence in batches (as egg does), and e-class
// analyses computed by make/merge hooks (analysis.cpp): the type of every e-class, its free
// De Bruijn variables, constant lengths, the smallest term (for extraction and shifting) and
// the types that term gives its variables (var_types.cpp, for the context check).
//
// Not thread-safe for writers; the const query functions (findConst, classes, nodes) may be
// called concurrently while nobody writes, which is what the parallel search relies on.
#pragma once

#include "egopt/egraph/chunked.hpp"
#include "egopt/egraph/egraph_parts.hpp"
#include "egopt/egraph/enode.hpp"
#include "egopt/egraph/id_pool.hpp"
#include "egopt/egraph/inline_vec.hpp"
#include "egopt/egraph/node_table.hpp"
#include "egopt/egraph/shape.hpp"
#include "egopt/egraph/term.hpp"
#include "egopt/egraph/var_types.hpp"
#include "egopt/lift/type.hpp"

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

class EGraph {
public:
    EGraph();

    // --- tables shared by every inserted program
    lift::TypeArena types;
    std::vector<lift::UserFunDecl> userFuns; // interned by name
    std::vector<lift::LiteralDecl> literals; // interned by (type, text)
    uint32_t internUserFun(const lift::UserFunDecl& decl);
    uint32_t internLiteral(TypeId type, const std::string& text);
    AttrId internAttr(Attr attr) {
        size_t before = attrs_.size();
        AttrId id = attrs_.intern(std::move(attr));
        changes_ += attrs_.size() - before;
        return id;
    }
    const Attr& attr(AttrId id) const { return attrs_.at(id); }
    const Attr& attrOf(const ENode& n) const { return attrs_.at(n.attr); }

    // When set, every inserted term keeps its exact syntax (a node that differs from an
    // existing one only in non-canonical children gets its own id, congruent to the existing
    // one), so explanations can name each intermediate term. Set it before inserting anything.
    bool explanations = false;
    // When set, the appliers that rebuild a term under other binders (foldInterchange, foldJoin,
    // reduceFission) copy every member of the classes that use the rebound variables, not only
    // their smallest terms (copyKeepingMembers in library_parts.hpp), so a later rewrite still
    // sees what earlier ones made there. Derivations set it for their stated steps; the
    // pipeline leaves it off.
    bool keepMembersInCopies = false;

    // --- building
    // Adds a node (children need not be canonical). Throws TypeError if it is ill-typed.
    EClassId add(ENode node);
    // add() for a node whose children are roots, without explanations (DirectRhs): the same
    // result and the same e-graph, without canonicalizing the children again.
    // `hash` is NodeTable::hashOf(node), computed ahead (DirectRhs::Lookahead).
    // Found nodes (most right-hand sides of a saturating run) are not copied.
    EClassId addCanonical(const ENode& node, uint32_t hash);
    // addCanonical of the node (op, ival, the empty attribute, kids), built only if absent;
    // `hash` is NodeTable::hashOfParts.
    EClassId addCanonical(Op op, int32_t ival, std::span<const EClassId> kids, uint32_t hash);
    // Adds a term; `argTypes` are the argument types when the term is a function (needed to
    // type a lambda whose parameter types are not given); `freeVarTypes` type the variables
    // free in the term that carry no type (outermost first, as top-level parameters).
    // Throws TypeError.
    EClassId addTerm(const TermArena& terms, TermId root, std::span<const TypeId> argTypes = {},
                     std::span<const TypeId> freeVarTypes = {});
    // The plan of addTerm(terms, root, argTypes), read from the e-graph as it is: false when it
    // cannot be planned without changing something (a type or attribute not interned yet, a
    // type that only inserting would tell, an ill-typed node, a variable that would escape).
    // Thread-safe while nobody writes and `types` is frozen (lift::TypeArena::freeze).
    // `memo`, if given, holds the types of earlier plans on the same frozen e-graph.
    bool planTerm(const TermArena& terms, TermId root, std::span<const TypeId> argTypes,
                  TermPlan& out, PlanTypeMemo* memo = nullptr);
    // Inserts a plan made since trackDataChanges(true) last cleared the marks: the same nodes, in
    // the same order, with the same result as addTerm would have now. nullopt, having changed
    // nothing, when a merge since then touched a class the plan relied on (TermPlan::roots,
    // settled). Throws TypeError as addTerm.
    std::optional<EClassId> replayPlan(const TermPlan& plan);
    // While on, a merge that changes the surviving class's analysis data marks it, and every
    // merge marks the class it absorbs; turning it on clears the marks.
    void trackDataChanges(bool on);
    // Whether `c`, a root when trackDataChanges(true) last cleared the marks, still is one: a
    // bit per class that no merge since absorbed, which stays in cache where the union-find
    // entries of the classes a planned window reads are misses (docs/egraph.md, "Parallel
    // apply"). Without tracking, isRoot.
    bool stillRoot(EClassId c) const {
        if (!trackingData_) {
            return isRoot(c);
        }
        return c / 64 >= absorbed_.size() || ((absorbed_[c / 64] >> (c % 64)) & 1) == 0;
    }
    // Whether `c`, a root when trackDataChanges(true) last cleared the marks, still is one and
    // no merge since changed its analysis data; false without tracking.
    bool unchangedSinceTracking(EClassId c) const {
        return trackingData_ && stillRoot(c) && !(c < dataChanged_.size() && dataChanged_[c]);
    }
    // While on, new nodes' hashcons entries wait in a small side table and move into the
    // hashcons in batches (NodeTable::deferInserts); lookups see them either way. Turning it
    // off moves the rest: other threads may then read the hashcons again.
    void deferHashconsInserts(bool on) { memo_.deferInserts(on); }
    // The class of `c` with its free variables >= cutoff shifted by `by` (which may be negative
    // when no free variable falls below cutoff - by). Uses the smallest member term.
    EClassId shift(EClassId c, int32_t by, int32_t cutoff = 0);
    // Merges two classes; returns false if they were already equal. Throws TypeError, without
    // changing anything, when their types differ.
    bool merge(EClassId a, EClassId b, Justification why);
    // Merges `a` and `b`, copies of the equal nodes `fromA` and `fromB` made by rewriting their
    // variables: explanations explain the copies' equality as the originals' (Kind::Copy).
    bool mergeCopies(ENodeId a, ENodeId b, ENodeId fromA, ENodeId fromB) {
        copyOrigins_.push_back({fromA, fromB});
        auto index = static_cast<uint32_t>(copyOrigins_.size() - 1);
        return merge(a, b, {Justification::Kind::Copy, index});
    }
    std::pair<ENodeId, ENodeId> copyOrigin(uint32_t index) const { return copyOrigins_.at(index); }
    // Restores the invariants (congruence, canonical hashcons, analyses) after merges.
    void rebuild();
    // While recording, add() appends the node id of every node it adds or finds to `into`.
    void recordNodes(std::vector<ENodeId>* into) { recording_ = into; }

    // --- queries
    // Inline for a root (most calls: a saturating run finds the classes of its matches), the
    // walk with path compression out of line.
    EClassId find(EClassId c) { return (parent_[c] & kRoot) != 0 ? c : findPath(c); }
    // A hint that find(c) comes soon. No effect on results.
    void prefetchFind(EClassId c) const { __builtin_prefetch(&parent_[c]); }
    EClassId findConst(EClassId c) const;
    std::optional<EClassId> lookup(ENode node) const; // the class of a node, if present
    // A hint that lookup(node) or add(node) comes soon (NodeTable::prefetch's stages).
    void prefetchLookup(ENode node, int stage) const {
        canonicalizeInPlace(node);
        memo_.prefetch(node, store_, stage);
    }
    // prefetchLookup of a canonical node by its NodeTable::hashOf.
    void prefetchHashed(uint32_t hash, int stage) const { memo_.prefetch(hash, store_, stage); }
    EClass eclass(EClassId c) const {
        const ClassSlot& k = cls(findConst(c));
        return {memberPool_.view(k.nodes), parentPool_.view(k.parents), k.opMask()};
    }
    ClassData data(EClassId c) const { return dataOf(findConst(c)); }
    // The outer length of a data class whose type is an array of constant length.
    std::optional<int64_t> constLength(EClassId c) const;
    // Canonical as of the last rebuild. A duplicate (a node that lost its form to an equal
    // node) reads the node that owns the form: the same node up to canonical children.
    const ENode& node(ENodeId n) const { return store_[storeRef(n)].node; }
    // Where node(n) is stored: store positions change only when a rebuild compacts the store,
    // so an index built on a clean e-graph (OpIndex) reads a member with one access, not two.
    uint32_t nodePosition(ENodeId n) const { return storeRef(n); }
    const ENode& nodeAt(uint32_t position) const { return store_[position].node; }
    uint32_t nodeChangedAtPosition(uint32_t position) const {
        return base_ + store_[position].node.age;
    }
    void prefetchNodeAt(uint32_t position) const { __builtin_prefetch(&store_[position]); }
    // A hint that node(n) comes soon: stage 0 fetches n's reference, stage 1 (once that is in
    // cache) the node. No effect on results.
    void prefetchNode(ENodeId n, int stage) const {
        if (stage == 0) {
            __builtin_prefetch(&ref_[n]);
        } else if (uint32_t r = ref_[n]; (r & kDuplicate) == 0) {
            __builtin_prefetch(&store_[r]);
        }
    }
    // As inserted with explanations; without them, the node's children may be canonical ids of
    // the classes it was inserted with (only explanations need the exact spelling).
    const ENode& originalNode(ENodeId n) const { return explanations ? orig_[n] : node(n); }
    std::vector<EClassId> classIds() const; // canonical ids, ascending
    size_t numClasses() const { return numClasses_; }
    size_t numNodes() const { return memo_.size(); } // distinct canonical e-nodes
    size_t numNodeIds() const { return parent_.size(); }
    // Bytes of e-graph data, from the containers' capacities (allocator overhead not counted):
    // deterministic, unlike allocator statistics, so the memory limit stops at the same place on
    // every run (docs/egraph.md, "Memory").
    size_t memoryBytes() const;
    // memoryBytes by part: stored nodes (and their heap children), the per-id arrays
    // (union-find and node references), classes (their slots, the shapes they share and the
    // dropped-parent counts), the hashcons, the member and parent lists' pools, the rest
    // (attributes, explanations).
    struct MemoryParts {
        size_t nodes = 0, ids = 0, classes = 0, hashcons = 0, members = 0, parents = 0, other = 0;
        size_t total() const {
            return nodes + ids + classes + hashcons + members + parents + other;
        }
    };
    MemoryParts memoryParts() const;
    bool clean() const { return pending_.empty() && analysisPending_.empty(); }

    // --- ages, for skipping matches that are known to change nothing (docs/egraph.md,
    // "Unchanged matches")
    // A counter that only grows. Every e-node and class records the epoch of its last change:
    // an e-node when it is added, its children are re-canonicalized or its class is merged into
    // another; a class when its member list changes.
    uint32_t epoch() const { return epoch_; }
    void advanceEpoch();
    uint32_t nodeChangedAt(ENodeId n) const { return base_ + node(n).age; }
    uint32_t classChangedAt(EClassId c) const { return base_ + cls(findConst(c)).age; }
    bool isRoot(EClassId c) const { return (parent_[c] & kRoot) != 0; }
    // While tracking, a merge that makes a class non-root marks the child classes of its member
    // e-nodes: a class without the mark has no parent class that stopped being a root since
    // trackAbsorbed(true), so an e-node over it that was found before still has the same root.
    void trackAbsorbed(bool on);
    bool parentAbsorbed(EClassId c) const {
        return c < absorbedParent_.size() && absorbedParent_[c];
    }
    // When set, merge calls it with the class that stays a root and the one merged into it,
    // before it changes either (the runner journals them for semi-naive search).
    std::function<void(EClassId root, EClassId absorbed)> beforeMerge;

    // The result type of applying function class `fn` to arguments of these types.
    TypeId resultOf(EClassId fn, std::span<const TypeId> args);
    // The type of a data class, or of the result of the function class at its argument types
    // as a string ("[Float]N", "fun").
    std::string showType(EClassId c) const;

    // --- extraction (smallest term)
    TermId extract(EClassId c, TermArena& out) const;
    // The same, appending the canonical class of each term node to `visited`.
    TermId extract(EClassId c, TermArena& out, std::vector<EClassId>* visited) const;
    // The De Bruijn variables free in the smallest member term (sorted). A class's freeVars
    // unite its members' (a beta-redex `(fun(x => 0.0f)) $ x0` makes 0.0f's class "use" x0);
    // every member denotes the same value, so a variable the smallest term does not use is one
    // the class does not depend on.
    std::vector<int32_t> smallestTermFreeVars(EClassId c) const;
    // The free variables of the smallest member term with the types its parameter nodes give
    // them (var_types.hpp), sorted: an analysis kept through merges and rebuilds, the same as
    // reading the term now. Thread-safe while nobody writes; a class changed since the last
    // settleVarTypes has its list worked out into `scratch` (not kept).
    std::span<const VarType> smallestVarTypes(EClassId c, VarTypeScratch& scratch) const;
    // Works out and keeps the lists of `c` (settled, smallestVarTypes reads them from then on
    // until they change) / of every class changed since the last call.
    void settleVarTypes(EClassId c);
    void settleVarTypes();
    bool varTypesSettled(EClassId c) const { return cls(findConst(c)).varTypes != kUnsettled; }
    std::string show(EClassId c) const; // Lift-like text of the smallest term

    // --- explanations: the union forest over node ids (recorded only with explanations)
    struct ProofEdge {
        ENodeId other;
        Justification why;
        bool forward; // this node was the left-hand side of the rule
    };
    const std::vector<std::vector<ProofEdge>>& proofEdges() const { return proof_; }

private:
    // A class as stored, 40 bytes (docs/egraph.md, "Memory"): its member and parent lists (of
    // memberPool_ and parentPool_), the id of its shape, its smallest term and that term's
    // variable types.
    struct ClassSlot {
        IdList nodes;   // members (canonical after rebuild, sorted, unique)
        IdList parents; // nodes that have this class as a child
        ShapeId shape = 0;
        ENodeId best = 0;
        uint32_t cost = 0;        // ClassData::cost, or kLargeCost (then in largeCosts_)
        uint32_t opLow = 0;       // EClass::opMask, bits 0-31
        uint32_t opHigh : 24 = 0; // and 32-55
        // The epoch of the last change of the member list, less base_ (classChangedAt).
        uint32_t age : 8 = 0;
        // smallestVarTypes, or kUnsettled: not known (settled on demand). A settled class's
        // smallest term reads only settled classes: a change that may alter a class's list
        // unsettles it and every class whose smallest term reads it (unsettleAbove).
        VarTypesId varTypes = kUnsettled;
        uint64_t opMask() const { return opLow | uint64_t(opHigh) << 32; }
        void setOpMask(uint64_t mask) {
            opLow = static_cast<uint32_t>(mask);
            opHigh = static_cast<uint32_t>(mask >> 32);
        }
    };
    static constexpr VarTypesId kUnsettled = UINT32_MAX;
    static_assert(sizeof(IdList) == 8 && sizeof(ClassSlot) == 40, "docs/egraph.md, Memory");
    static constexpr uint32_t kLargeCost = UINT32_MAX;
    uint64_t costOf(EClassId root) const {
        uint32_t cost = cls(root).cost;
        return cost != kLargeCost ? cost : largeCosts_.at(root);
    }
    void setCost(EClassId root, uint64_t cost);
    ClassData dataOf(EClassId root) const {
        const ClassSlot& k = cls(root);
        const Shape& s = shapes_[k.shape];
        return {s.fun, s.freeVars, costOf(root), s.type, k.best};
    }
    std::span<const ENodeId> membersOf(const ClassSlot& k) const {
        return memberPool_.view(k.nodes);
    }
    std::span<const ENodeId> parentsOf(const ClassSlot& k) const {
        return parentPool_.view(k.parents);
    }
    ShapeId shapeOf(const ClassFacts& d) { return shapes_.intern({d.fun, d.freeVars, d.type}); }
    ENode canonicalize(const ENode& n) const;
    // Children to their roots where they are: no copy, and a node's heap children keep their
    // capacity (counted once, by countHeapChildren, when the node was added).
    void canonicalizeInPlace(ENode& n) const;
    void countHeapChildren(const ENode& n);
    // `applyType`: an application's type, known already (TermPlan::types).
    ClassFacts make(const ENode& canonical, TypeId applyType = lift::kNoType);
    // add(), with an application's type known, and without the lookup when `probe` is false
    // (a node over a class that was just created cannot be in the hashcons yet).
    // `hash`, where given, is NodeTable::hashOf the node, which must then be canonical.
    EClassId addNode(ENode node, TypeId applyType, bool probe,
                     std::optional<uint32_t> hash = std::nullopt);
    ClassFacts remake(const ENode& n) const; // what mergeData reads of make(n)
    TypeId patternResult(const ENode& fn, std::span<const TypeId> args);
    // The argument types a pattern passes to its nested function (lift::nestedArgTypes).
    std::vector<TypeId> childArgTypes(Op op, std::span<const arith::Size> sizes,
                                      std::span<const TypeId> args);
    // Merges another class's or node's data (its signature, free variables and smallest term)
    // into `into`'s; true if `into` changed.
    bool mergeData(EClassId into, const FunSig& fun, const InlineVec<int32_t>& freeVars,
                   uint64_t cost, ENodeId best);
    // Whether mergeData(into, from) would change `into` (read only).
    bool wouldChange(EClassId into, const ClassFacts& from) const;
    void checkCompatible(EClassId a, EClassId b) const;
    void repairParents(EClassId c);
    void keepCanonicalParents(EClassId c, std::span<const ENodeId> parents);
    void dedupMembers(); // the member lists of the classes in dirty_
    ClassSlot& cls(EClassId root) { return classes_[parent_[root] & ~kRoot]; }
    const ClassSlot& cls(EClassId root) const { return classes_[parent_[root] & ~kRoot]; }
    EClassId newClass(ClassSlot c); // a slot for a new root's class
    // After a rebuild that left most class slots free: the live classes moved to the first
    // slots and the rest released (slots are not observable; only memory is).
    void compactClasses();
    // After a rebuild that left many holes in the store: the live nodes move over them.
    void compactStore();
    // Drops duplicates from the parent lists that hold them (dropParents in egraph.cpp).
    void dropParents();
    // `ids` as the sorted set of their roots (in parallel when long: the same set either way).
    void rootSet(std::vector<EClassId>& ids) const;
    void propagateAnalysis();
    // The smallest-term variable types (var_types.cpp): the list of a class from its smallest
    // member and its children's lists, each given by `listOf` (nullopt: not known yet).
    template <typename ListOf>
    std::optional<std::vector<VarType>> varTypesFrom(EClassId root, ListOf listOf) const;
    // Before merge(a, b) joins them (both roots; `bWins`: b's smallest term becomes the
    // class's): the survivor's list, and the classes above the loser unsettled where it differs.
    void varTypesBeforeMerge(EClassId a, EClassId b, bool bWins);
    // After the analysis gave `c` a smaller term: its list settled again, and the classes above
    // unsettled where it changed.
    void varTypesOnNewBest(EClassId c, VarTypesId before);
    // Unsettles every settled class whose smallest term reads `c`, transitively.
    void unsettleAbove(EClassId c);
    VarTypeTable varTypes_;
    std::vector<EClassId> unsettled_; // classes (by any id) whose list may be unknown
    // While repairParents rebuilds a class's parent list, the old list it reads from (the
    // class's parents are that and its new list): unsettleAbove reads both.
    EClassId repairing_ = kNoClass;
    const IdList* repairingOld_ = nullptr;
    // A rebuild round's repair hints (hintRepairs in upkeep.cpp), by node id: 1 for a node that
    // was no duplicate and had root children when the round began, until a merge absorbs one of
    // its children or the node becomes a duplicate. Its repair then changes nothing but the
    // work list of classes to dedup: it is skipped without reading the node. Empty with one
    // thread and for small rounds.
    std::vector<uint8_t> repairHint_;
    void hintRepairs(const std::vector<EClassId>& todo);
    bool hinted(ENodeId n) const { return n < repairHint_.size() && repairHint_[n] != 0; }
    void unhint(std::span<const ENodeId> nodes) {
        for (ENodeId n : nodes) {
            if (n < repairHint_.size()) {
                repairHint_[n] = 0;
            }
        }
    }
    EClassId addTermRec(const TermArena& t, TermId id, std::span<const TypeId> argTypes,
                        std::vector<TypeId>& env);

    EClassId findPath(EClassId c); // find() of a class that is not a root
    // Per id, 8 bytes: the union-find parent_, which for a root is kRoot | the index of its
    // class in classes_ (the classes are stored densely: a class merged away frees its slot for
    // the next new class); and ref_, the index of the node in store_, or for a duplicate
    // kDuplicate | the id of an equal node (whose node it reads: a duplicate's storage is
    // reused by the next new node, docs/egraph.md "Memory").
    static constexpr uint32_t kRoot = 0x80000000U;
    static constexpr uint32_t kDuplicate = 0x80000000U;
    Chunked<EClassId, 10> parent_;
    Chunked<uint32_t, 10> ref_;
    uint32_t storeRef(ENodeId n) const {
        uint32_t r = ref_[n];
        while ((r & kDuplicate) != 0) {
            r = ref_[r & ~kDuplicate];
        }
        return r;
    }
    bool isDuplicate(ENodeId n) const { return (ref_[n] & kDuplicate) != 0; }
    ENode& nodeRef(ENodeId n) { return store_[storeRef(n)].node; }
    uint32_t storeNode(ENode node, ENodeId id); // its index in store_
    void releaseDuplicate(ENodeId n, ENodeId owner);
    AttrTable attrs_;
    std::vector<ENode> orig_; // by node id, as inserted: only with explanations
    // The nodes that own their form (canonical as of the last rebuild), each with its id; the
    // epoch of each node's last change is ENode::age, of each class's member list EClass::age,
    // less base_: a byte each. When the epoch outgrows a byte, base_ moves up and every age
    // becomes 0, as if everything had just changed (which only skips less).
    NodeTable::Nodes store_;
    // Slots of store_ that duplicates left (their id is kHole), reclaimed by compactStore.
    static constexpr ENodeId kHole = UINT32_MAX;
    size_t holes_ = 0;
    std::vector<EClassId> staleParents_; // classes whose parent lists hold a droppable duplicate
    Chunked<ClassSlot, 8> classes_;
    std::vector<uint32_t> freeSlots_;
    IdPool memberPool_;
    IdPool parentPool_;
    ShapeTable shapes_;
    // By root class: duplicates dropped from its parent list since the class was last repaired
    // (dropParents), which merges count as if they were still there. Few classes have any.
    std::unordered_map<EClassId, uint32_t> dropped_;
    // By class id: set once the class gets an entry in dropped_, never cleared (a stale mark
    // only costs a lookup). Every merge asks droppedOf of both classes, and few have entries.
    std::vector<bool> mayHaveDropped_;
    void markDropped(EClassId c) {
        if (c >= mayHaveDropped_.size()) {
            mayHaveDropped_.resize(std::max<size_t>(c + 1, parent_.size()));
        }
        mayHaveDropped_[c] = true;
    }
    // By root class: the costs that do not fit a ClassSlot (kLargeCost or more: rare, as the
    // smallest terms of inserted programs are small).
    std::unordered_map<EClassId, uint64_t> largeCosts_;
    uint32_t droppedOf(EClassId root) const {
        if (root >= mayHaveDropped_.size() || !mayHaveDropped_[root]) {
            return 0;
        }
        auto it = dropped_.find(root);
        return it == dropped_.end() ? 0 : it->second;
    }
    NodeTable memo_;                        // canonical node -> its owner id
    std::vector<EClassId> pending_;         // classes whose parents need re-canonicalizing
    std::vector<EClassId> analysisPending_; // classes whose data changed
    std::vector<EClassId> dirty_; // classes whose member list rebuild must re-canonicalize
    std::vector<std::vector<ProofEdge>> proof_;
    std::vector<std::pair<ENodeId, ENodeId>> copyOrigins_; // by Justification::rule of a Copy
    std::vector<ENodeId>* recording_ = nullptr;
    size_t numClasses_ = 0;
    // Bytes of the children of nodes with more than three (outside the 28-byte node), in orig_
    // and store_: kept as nodes are added and released, so memoryBytes need not visit every
    // node.
    size_t heapChildBytes_ = 0;
    uint32_t epoch_ = 1;
    uint32_t base_ = 1;
    uint8_t age() const { return static_cast<uint8_t>(epoch_ - base_); }
    void touchNode(ENodeId n) {
        if (!isDuplicate(n)) { // a duplicate is never matched: its age is not read
            store_[ref_[n]].node.age = age();
        }
    }
    void touchClass(EClassId c) { cls(c).age = age(); }
    std::vector<bool> absorbedParent_; // by class id, while tracking (trackAbsorbed)
    bool tracking_ = false;
    std::vector<bool> dataChanged_;  // by class id, while tracking data changes
    std::vector<uint64_t> absorbed_; // a bit by class id: absorbed by a merge, while tracking
    bool trackingData_ = false;
    // While tracking data changes: a bit per hash (modulo its size) of every node the hashcons
    // gained since the marks were cleared. A plan's step over classes, not found when planned
    // and over the same classes now, can only be found if its bit is set (the hashcons only
    // grows between rebuilds), so most replayed steps skip the probe.
    std::vector<uint64_t> addedHashes_;
    static constexpr uint32_t kAddedBits = 1U << 17;
    // replayPlan's lists by step (the class each made, whether it is fresh), kept between
    // replays for their memory: the replays run one after another in the apply phase.
    std::vector<EClassId> replayMade_;
    std::vector<bool> replayFresh_;
    bool mayHaveAdded(uint32_t hash) const {
        uint32_t b = hash & (kAddedBits - 1);
        return !trackingData_ || ((addedHashes_[b / 64] >> (b % 64)) & 1) != 0;
    }
    struct PlanState;
    uint32_t planRec(const TermArena& t, TermId id, std::span<const TypeId> argTypes,
                     std::vector<TypeId>& env, PlanState& st);
    uint32_t planShift(EClassId c, int32_t by, PlanState& st);
    uint32_t planAdd(ENode e, PlanState& st);
    TypeId planType(uint32_t ref, PlanState& st);
    TypeId stepType(const ENode& step, PlanState& st);
    TypeId planResult(uint32_t fn, std::span<const TypeId> args, PlanState& st);
    template <typename Compute>
    TypeId memoType(PlanState& st, std::span<const TypeId> args, Compute compute);
    bool appliesData(const ENode& n, PlanState& st) const;
    // memoryBytes is cached until the next change (with explanations it visits every id's proof
    // edges, and the runner asks every 4,096 applications, most of which change nothing).
    uint64_t changes_ = 0;
    mutable uint64_t bytesAt_ = UINT64_MAX;
    mutable size_t bytes_ = 0;
};

} // namespace egopt::egraph

namespace egopt::egraph {

// Lift-like text of a term: "Map(fun(x1 => abs $ x1)) $ p0". Free variables are named from
// `freeNames` (the innermost free variable last, as for top-level parameters), else "free<i>".
std::string showTerm(const EGraph& g, const TermArena& terms, TermId root,
                     const std::vector<std::string>& freeNames = {});

} // namespace egopt::egraph
