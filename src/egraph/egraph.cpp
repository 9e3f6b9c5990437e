// The e-graph core: insertion, union-find, merging and egg-style deferred rebuilding.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>

namespace egopt::egraph {

EGraph::EGraph() = default;

uint32_t EGraph::internUserFun(const lift::UserFunDecl& decl) {
    for (size_t i = 0; i < userFuns.size(); ++i) {
        if (userFuns[i].name == decl.name) {
            return static_cast<uint32_t>(i);
        }
    }
    userFuns.push_back(decl);
    return static_cast<uint32_t>(userFuns.size() - 1);
}

uint32_t EGraph::internLiteral(TypeId type, const std::string& text) {
    for (size_t i = 0; i < literals.size(); ++i) {
        if (literals[i].type == type && literals[i].text == text) {
            return static_cast<uint32_t>(i);
        }
    }
    literals.push_back({type, text});
    return static_cast<uint32_t>(literals.size() - 1);
}

EClassId EGraph::findPath(EClassId c) {
    EClassId root = c;
    while ((parent_[root] & kRoot) == 0) {
        root = parent_[root];
    }
    while (c != root) { // path compression
        EClassId next = parent_[c];
        parent_[c] = root;
        c = next;
    }
    return root;
}

EClassId EGraph::findConst(EClassId c) const {
    while ((parent_[c] & kRoot) == 0) {
        c = parent_[c];
    }
    return c;
}

ENode EGraph::canonicalize(const ENode& n) const {
    ENode out = n;
    canonicalizeInPlace(out);
    return out;
}

void EGraph::canonicalizeInPlace(ENode& n) const {
    for (EClassId& c : n.children) {
        c = findConst(c);
    }
}

void EGraph::countHeapChildren(const ENode& n) {
    if (n.children.size() > 3) {
        heapChildBytes_ += n.children.capacity() * sizeof(EClassId);
    }
}

std::optional<EClassId> EGraph::lookup(ENode node) const {
    uint32_t ref = memo_.find(canonicalize(node), store_);
    if (ref == NodeTable::kNone) {
        return std::nullopt;
    }
    return findConst(store_[ref].id);
}

uint32_t EGraph::storeNode(ENode node, ENodeId id) {
    store_.push_back({std::move(node), id});
    return static_cast<uint32_t>(store_.size() - 1);
}

// `n` lost its form to `owner`: it reads owner's node from now on, and its storage is a hole
// until compactStore.
void EGraph::releaseDuplicate(ENodeId n, ENodeId owner) {
    uint32_t ref = ref_[n];
    ENode& node = store_[ref].node;
    if (n > owner) { // dropParents may drop it
        staleParents_.insert(staleParents_.end(), node.children.begin(), node.children.end());
    }
    if (node.children.size() > 3) {
        heapChildBytes_ -= node.children.capacity() * sizeof(EClassId);
    }
    node.children.clear();
    if (n < repairHint_.size()) {
        repairHint_[n] = 0;
    }
    ref_[n] = kDuplicate | owner;
    store_[ref].id = kHole;
    ++holes_;
}

EClassId EGraph::newClass(ClassSlot c) {
    uint32_t slot = 0;
    if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
        classes_[slot] = std::move(c);
    } else {
        slot = static_cast<uint32_t>(classes_.size());
        classes_.push_back(std::move(c));
    }
    return slot;
}

void EGraph::setCost(EClassId root, uint64_t cost) {
    ClassSlot& k = cls(root);
    if (cost < kLargeCost) {
        if (k.cost == kLargeCost) {
            largeCosts_.erase(root);
        }
        k.cost = static_cast<uint32_t>(cost);
    } else {
        k.cost = kLargeCost;
        largeCosts_[root] = cost;
    }
}

EClassId EGraph::add(ENode node) {
    return addNode(std::move(node), lift::kNoType, true);
}

EClassId EGraph::addCanonical(const ENode& node, uint32_t hash) {
    if (explanations || recording_) {
        return add(node);
    }
    uint32_t foundRef = memo_.find(node, hash, store_);
    if (foundRef != NodeTable::kNone) {
        return find(store_[foundRef].id);
    }
    return addNode(node, lift::kNoType, false, hash);
}

EClassId EGraph::addCanonical(Op op, int32_t ival, std::span<const EClassId> kids, uint32_t hash) {
    if (!explanations && !recording_) {
        uint32_t foundRef = memo_.findParts(op, ival, kids, hash, store_);
        if (foundRef != NodeTable::kNone) {
            return find(store_[foundRef].id);
        }
    }
    ENode node;
    node.op = op;
    node.ival = ival;
    node.children = ChildList(kids);
    return addCanonical(node, hash);
}

EClassId EGraph::addNode(ENode node, TypeId applyType, bool probe, std::optional<uint32_t> known) {
    // Without explanations the node as inserted is not kept: canonicalize it where it is.
    ENode c = explanations ? canonicalize(node) : std::move(node);
    if (!explanations && !known) {
        canonicalizeInPlace(c);
    }
    uint32_t hash = known ? *known : NodeTable::hashOf(c);
    uint32_t foundRef = probe ? memo_.find(c, hash, store_) : NodeTable::kNone;
    if (foundRef != NodeTable::kNone) {
        ENodeId found = store_[foundRef].id;
        if (recording_) {
            recording_->push_back(found);
        }
        EClassId existing = find(found);
        if (!explanations) {
            return existing;
        }
        if (orig_[found] == node) {
            return found; // the exact term (explanations refer to terms by id)
        }
        // An alias: the same canonical node spelled with other (equal) children, a duplicate
        // of the node found (never in the hashcons).
        auto id = static_cast<ENodeId>(parent_.size());
        countHeapChildren(node);
        orig_.push_back(std::move(node));
        ref_.push_back(kDuplicate | found);
        parent_.push_back(existing);
        ++changes_;
        proof_.emplace_back();
        proof_[id].push_back({found, {Justification::Kind::Congruence, 0}, true});
        proof_[found].push_back({id, {Justification::Kind::Congruence, 0}, false});
        return id;
    }
    ClassFacts data = make(c, applyType); // throws TypeError before anything changes
    auto id = static_cast<ENodeId>(parent_.size());
    for (EClassId child : c.children) {
        IdList& parents = cls(child).parents;
        if (parents.empty() || parentPool_.view(parents).back() != id) {
            parentPool_.push_back(parents, id);
        }
    }
    if (explanations) {
        countHeapChildren(node);
        orig_.push_back(std::move(node));
        proof_.emplace_back();
    }
    countHeapChildren(c);
    ClassSlot k;
    memberPool_.push_back(k.nodes, id); // inline: no block
    k.shape = shapeOf(data);
    k.best = id;
    k.setOpMask(opBit(c.op));
    k.age = age();
    c.age = age();
    uint32_t ref = storeNode(std::move(c), id);
    ref_.push_back(ref);
    parent_.push_back(kRoot | newClass(k));
    unsettled_.push_back(id); // its variable types are settled when first read
    setCost(id, data.cost);
    memo_.insert(ref, hash);
    if (trackingData_) {
        uint32_t b = hash & (kAddedBits - 1);
        addedHashes_[b / 64] |= uint64_t(1) << (b % 64);
    }
    ++numClasses_;
    ++changes_;
    if (recording_) {
        recording_->push_back(id);
    }
    return id;
}

bool EGraph::merge(EClassId a0, EClassId b0, Justification why) {
    EClassId a = find(a0);
    EClassId b = find(b0);
    if (a == b) {
        return false;
    }
    checkCompatible(a, b);
    if (explanations) {
        proof_[a0].push_back({b0, why, true});
        proof_[b0].push_back({a0, why, false});
    }
    // The class with more parents stays root (fewer parents to move); ties keep the older id,
    // which keeps ids deterministic.
    auto key = [&](EClassId c) {
        return std::pair(cls(c).parents.size() + droppedOf(c), -int64_t(c));
    };
    if (key(a) < key(b)) {
        std::swap(a, b);
    }
    if (beforeMerge) {
        beforeMerge(a, b);
    }
    varTypesBeforeMerge(a, b,
                        std::pair(costOf(b), cls(b).best) < std::pair(costOf(a), cls(a).best));
    ClassSlot from = cls(b);
    if (!repairHint_.empty()) { // the nodes over b are no longer canonical
        unhint(parentsOf(from));
        if (repairingOld_ && findConst(repairing_) == b) {
            unhint(parentPool_.view(*repairingOld_));
        }
    }
    uint64_t fromCost = costOf(b);
    if (from.cost == kLargeCost) {
        largeCosts_.erase(b);
    }
    cls(b) = ClassSlot{};
    if (trackingData_) {
        if (b / 64 >= absorbed_.size()) {
            absorbed_.resize((parent_.size() + 63) / 64, 0);
        }
        absorbed_[b / 64] |= uint64_t(1) << (b % 64);
    }
    freeSlots_.push_back(parent_[b] & ~kRoot);
    parent_[b] = a;
    ++changes_;
    touchClass(a);
    for (ENodeId n : membersOf(from)) { // they move to another class
        touchNode(n);
        if (tracking_) {
            for (EClassId child : node(n).children) {
                if (child >= absorbedParent_.size()) {
                    absorbedParent_.resize(parent_.size());
                }
                absorbedParent_[child] = true;
            }
        }
    }
    ClassSlot& into = cls(a);
    memberPool_.append(into.nodes, membersOf(from));
    memberPool_.clear(from.nodes);
    parentPool_.append(into.parents, parentsOf(from));
    parentPool_.clear(from.parents);
    if (uint32_t count = droppedOf(b); count != 0) { // entries are positive
        dropped_.erase(b);
        dropped_[a] += count;
        markDropped(a);
    }
    into.setOpMask(into.opMask() | from.opMask());
    const Shape& fromShape = shapes_[from.shape];
    bool changed = mergeData(a, fromShape.fun, fromShape.freeVars, fromCost, from.best);
    if (changed && trackingData_) {
        if (a >= dataChanged_.size()) {
            dataChanged_.resize(parent_.size());
        }
        dataChanged_[a] = true;
    }
    // Interned: the same shape is the same signature and free variables (the types agree).
    bool fromChanged = from.shape != into.shape || fromCost != costOf(a);
    if (changed || fromChanged) { // the parents of one side see new facts
        analysisPending_.push_back(a);
    }
    pending_.push_back(a);
    dirty_.push_back(a); // its members now come from two classes
    --numClasses_;
    return true;
}

void EGraph::repairParents(EClassId c) {
    // The old list stays in its block while the merges below grow other lists (which never
    // moves it), and is freed at the end.
    IdList old = cls(c).parents;
    cls(c).parents = IdList{};
    repairing_ = c;
    repairingOld_ = &old;
    dropped_.erase(c); // the list is rebuilt without any duplicate
    std::span<const ENodeId> parents = parentPool_.view(old);
    if (dirty_.capacity() < dirty_.size() + parents.size()) { // most parents go there
        dirty_.reserve(std::max(2 * dirty_.capacity(), dirty_.size() + parents.size()));
    }
    for (ENodeId p : parents) {
        if (hinted(p)) {
            // Canonical, as when the round began, and it stays so: its class's members need no
            // dedup on its account (a merge or a member that changes form lists the class).
            continue;
        }
        if (isDuplicate(p)) {
            // An equal node owns its form (and is in this list too). Giving the duplicate the
            // form back would revive a node that other parent lists dropped.
            continue;
        }
        dirty_.push_back(p); // p's class: a member may change its form or become a duplicate
        uint32_t ref = ref_[p];
        ENode& node = store_[ref].node;
        bool same = std::all_of(node.children.begin(), node.children.end(),
                                [&](EClassId k) { return isRoot(k); });
        if (same) {
            continue; // canonical already: it keeps its form and the hashcons entry
        }
        memo_.erase(ref, store_); // before its key, the stored node, changes
        canonicalizeInPlace(node);
        touchNode(p);
        uint32_t ownerRef = memo_.find(node, store_);
        if (ownerRef == NodeTable::kNone) {
            memo_.insert(ref, store_);
        } else {
            ENodeId owner = store_[ownerRef].id;
            releaseDuplicate(p, owner);
            if (find(owner) != find(p)) {
                merge(owner, p, {Justification::Kind::Congruence, 0});
            }
        }
    }
    repairingOld_ = nullptr;
    keepCanonicalParents(find(c), parents);
    parentPool_.clear(old);
}

// Keeps one parent per canonical form, the one the hashcons points at, in ascending order. A
// long list (the largest hold over a million parents on mm) is filtered in fixed ranges read
// back in order and sorted in parallel: the same list, in the same pool blocks, for any thread
// count.
void EGraph::keepCanonicalParents(EClassId c, std::span<const ENodeId> parents) {
    constexpr size_t kRange = 4096; // parents a range; lists up to this are filtered in order
    IdList& out = cls(c).parents;
    auto keep = [this](ENodeId p) { return hinted(p) || !isDuplicate(p); };
    if (parents.size() <= kRange) {
        for (ENodeId p : parents) {
            if (keep(p)) {
                parentPool_.push_back(out, p);
            }
        }
    } else {
        std::vector<std::vector<ENodeId>> ranges((parents.size() + kRange - 1) / kRange);
        tbb::parallel_for(size_t(0), ranges.size(), [&](size_t r) {
            std::span<const ENodeId> part =
                parents.subspan(r * kRange, std::min(kRange, parents.size() - r * kRange));
            std::copy_if(part.begin(), part.end(), std::back_inserter(ranges[r]), keep);
        });
        std::vector<ENodeId> kept;
        kept.reserve(parents.size());
        for (const std::vector<ENodeId>& part : ranges) {
            kept.insert(kept.end(), part.begin(), part.end());
        }
        parentPool_.append(out, kept);
    }
    std::span<ENodeId> list = parentPool_.view(out);
    constexpr size_t kParallelSort = size_t(1) << 14;
    if (list.size() < kParallelSort) {
        std::sort(list.begin(), list.end());
    } else {
        tbb::parallel_sort(list.begin(), list.end());
    }
    parentPool_.truncate(out, std::unique(list.begin(), list.end()) - list.begin());
}

void EGraph::rebuild() {
    ++changes_; // besides repairs, the hashcons and the class slots may shrink
    while (!pending_.empty() || !analysisPending_.empty()) {
        std::vector<EClassId> todo;
        todo.swap(pending_);
        tbb::parallel_sort(todo.begin(), todo.end()); // the same order for any thread count
        todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
        hintRepairs(todo);
        for (EClassId c : todo) {
            repairParents(find(c));
        }
        repairHint_.clear();
        propagateAnalysis();
    }
    // Only classes that were merged or had a member re-canonicalized can hold a stale or
    // duplicate member; every other class is as the last rebuild left it.
    dedupMembers();
    dropParents();
    // Variable types are settled on demand and before planned windows (settleVarTypes); the
    // list of unsettled classes only sheds the settled and merged ones here, to stay short.
    if (unsettled_.size() > numClasses_) {
        rootSet(unsettled_);
        std::erase_if(unsettled_, [this](EClassId c) { return cls(c).varTypes != kUnsettled; });
    }
    memo_.shrink();
    if (holes_ > NodeTable::Nodes::kChunk && 8 * holes_ > store_.size()) {
        compactStore();
    }
    if (classes_.size() > 2 * numClasses_ + decltype(classes_)::kChunk) {
        compactClasses();
    }
    // The lists' pools, after merges and repairs freed many blocks (in slot order: only memory
    // is observable).
    auto eachSlot = [this](auto list) {
        return [this, list](auto visit) {
            for (size_t i = 0; i < classes_.size(); ++i) {
                visit(classes_[i].*list);
            }
        };
    };
    if (memberPool_.fragmented()) {
        memberPool_.repack(eachSlot(&ClassSlot::nodes));
    }
    if (parentPool_.fragmented()) {
        parentPool_.repack(eachSlot(&ClassSlot::parents));
    }
}

std::vector<EClassId> EGraph::classIds() const {
    std::vector<EClassId> out;
    out.reserve(numClasses_);
    for (EClassId c = 0; c < parent_.size(); ++c) {
        if (isRoot(c)) {
            out.push_back(c);
        }
    }
    return out;
}

void EGraph::advanceEpoch() {
    ++epoch_;
    if (epoch_ - base_ > UINT8_MAX) {
        base_ = epoch_;
        for (size_t n = 0; n < store_.size(); ++n) {
            store_[n].node.age = 0;
        }
        for (size_t i = 0; i < classes_.size(); ++i) {
            classes_[i].age = 0;
        }
    }
}

void EGraph::trackAbsorbed(bool on) {
    tracking_ = on;
    std::vector<bool> marks(on ? parent_.size() : 0, false);
    absorbedParent_.swap(marks);
}

void EGraph::trackDataChanges(bool on) {
    trackingData_ = on;
    addedHashes_.assign(on ? kAddedBits / 64 : 0, 0);
    absorbed_.assign(on ? (parent_.size() + 63) / 64 : 0, 0);
    if (on && dataChanged_.size() >= parent_.size()) {
        std::fill(dataChanged_.begin(), dataChanged_.end(), false);
    } else {
        std::vector<bool> marks(on ? parent_.size() : 0, false);
        dataChanged_.swap(marks);
    }
}

} // namespace egopt::egraph
