// The e-graph core: insertion, union-find, merging and egg-style deferred rebuilding.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

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

EClassId EGraph::find(EClassId c) {
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
    ref_[n] = kDuplicate | owner;
    store_[ref].id = kHole;
    ++holes_;
}

EClassId EGraph::newClass(EClass c) {
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

EClassId EGraph::add(ENode node) {
    return addNode(std::move(node), lift::kNoType, true);
}

EClassId EGraph::addNode(ENode node, TypeId applyType, bool probe) {
    // Without explanations the node as inserted is not kept: canonicalize it where it is.
    ENode c = explanations ? canonicalize(node) : std::move(node);
    if (!explanations) {
        canonicalizeInPlace(c);
    }
    uint32_t foundRef = probe ? memo_.find(c, store_) : NodeTable::kNone;
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
    ClassData data = make(c, applyType); // throws TypeError before anything changes
    auto id = static_cast<ENodeId>(parent_.size());
    data.best = id;
    for (EClassId child : c.children) {
        auto& parents = cls(child).parents;
        if (parents.empty() || parents.back() != id) {
            parents.push_back(id);
        }
    }
    if (explanations) {
        countHeapChildren(node);
        orig_.push_back(std::move(node));
        proof_.emplace_back();
    }
    countHeapChildren(c);
    uint64_t mask = opBit(c.op);
    c.age = age();
    uint32_t ref = storeNode(std::move(c), id);
    ref_.push_back(ref);
    parent_.push_back(kRoot | newClass(EClass{.nodes = {id},
                                              .parents = {},
                                              .data = std::move(data),
                                              .opMask = mask,
                                              .dropped = 0,
                                              .age = age()}));
    memo_.insert(ref, store_);
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
        return std::pair(cls(c).parents.size() + cls(c).dropped, -int64_t(c));
    };
    if (key(a) < key(b)) {
        std::swap(a, b);
    }
    EClass from = std::move(cls(b));
    cls(b) = EClass{};
    freeSlots_.push_back(parent_[b] & ~kRoot);
    parent_[b] = a;
    ++changes_;
    touchClass(a);
    for (ENodeId n : from.nodes) { // they move to another class
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
    EClass& into = cls(a);
    into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
    into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
    into.dropped += from.dropped;
    into.opMask |= from.opMask;
    bool changed = mergeData(into.data, from.data);
    if (changed && trackingData_) {
        if (a >= dataChanged_.size()) {
            dataChanged_.resize(parent_.size());
        }
        dataChanged_[a] = true;
    }
    bool fromChanged = from.data.freeVars != into.data.freeVars ||
                       from.data.cost != into.data.cost || from.data.fun != into.data.fun;
    if (changed || fromChanged) { // the parents of one side see new facts
        analysisPending_.push_back(a);
    }
    pending_.push_back(a);
    dirty_.push_back(a); // its members now come from two classes
    --numClasses_;
    return true;
}

void EGraph::repairParents(EClassId c) {
    InlineVec<ENodeId> parents = std::move(cls(c).parents);
    cls(c).parents.clear();
    cls(c).dropped = 0; // the list is rebuilt without any duplicate
    for (ENodeId p : parents) {
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
    c = find(c);
    // Keep one parent per canonical form: the one the hashcons points at.
    auto& out = cls(c).parents;
    for (ENodeId p : parents) {
        if (!isDuplicate(p)) {
            out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.shrink_to_fit();
}

// A duplicate's entry in a parent list matters only to the analysis: propagateAnalysis offers
// each parent's node, with the parent as its `best`, and a duplicate offers its owner's node
// (the same node: it reads it). A duplicate with a larger id than its owner, which is in the
// same lists, never wins the tie on (cost, best), so its entries can go: the analysis and
// repairs (which skip duplicates) are the same without them, and merges count them (`dropped`)
// to pick the same root.
void EGraph::dropParents() {
    for (EClassId& c : staleParents_) {
        c = find(c);
    }
    std::sort(staleParents_.begin(), staleParents_.end());
    staleParents_.erase(std::unique(staleParents_.begin(), staleParents_.end()),
                        staleParents_.end());
    for (EClassId c : staleParents_) {
        auto& parents = cls(c).parents;
        auto droppable = [&](ENodeId p) { return isDuplicate(p) && p > (ref_[p] & ~kDuplicate); };
        auto kept = std::remove_if(parents.begin(), parents.end(), droppable);
        cls(c).dropped += static_cast<uint32_t>(parents.end() - kept);
        parents.erase(kept, parents.end());
        if (parents.capacity() > 2 * parents.size()) {
            parents.shrink_to_fit();
        }
    }
    staleParents_.clear();
    staleParents_.shrink_to_fit();
}

// The live nodes slide down over the holes, in order: the store stays in id order, so the
// members of a class, which are often added close together, are close together in memory.
void EGraph::compactStore() {
    std::vector<uint32_t> moved(store_.size(), NodeTable::kNone);
    uint32_t to = 0;
    for (uint32_t from = 0; from < store_.size(); ++from) {
        if (store_[from].id == kHole) {
            continue;
        }
        if (to != from) {
            store_[to] = std::move(store_[from]);
            ref_[store_[to].id] = to;
        }
        moved[from] = to++;
    }
    store_.truncate(to);
    memo_.remap(moved);
    holes_ = 0;
}

// Members: one node per canonical form, in id order (deterministic matching order).
void EGraph::dedupMembers(EClassId c) {
    EClass& k = cls(c);
    std::vector<ENodeId> kept;
    kept.reserve(k.nodes.size());
    k.opMask = 0;
    for (ENodeId n : k.nodes) {
        // An owner of its form is canonical already (rebuild re-canonicalized every parent of
        // a merged class); any other member is a duplicate, outside the hashcons, which reads
        // its owner's node.
        if (!isDuplicate(n)) {
            kept.push_back(n);
            k.opMask |= opBit(store_[ref_[n]].node.op);
        }
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    if (kept != k.nodes) {
        touchClass(c);
        k.nodes.clear();
        k.nodes.appendExact(kept.data(), kept.size());
    }
}

void EGraph::rebuild() {
    ++changes_; // besides repairs, the hashcons and the class slots may shrink
    while (!pending_.empty() || !analysisPending_.empty()) {
        std::vector<EClassId> todo;
        todo.swap(pending_);
        std::sort(todo.begin(), todo.end());
        todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
        for (EClassId c : todo) {
            repairParents(find(c));
        }
        propagateAnalysis();
    }
    // Only classes that were merged or had a member re-canonicalized can hold a stale or
    // duplicate member; every other class is as the last rebuild left it.
    for (EClassId& c : dirty_) {
        c = find(c);
    }
    std::sort(dirty_.begin(), dirty_.end());
    dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
    for (EClassId c : dirty_) {
        dedupMembers(c);
    }
    dirty_.clear();
    dropParents();
    memo_.shrink();
    if (holes_ > NodeTable::Nodes::kChunk && 8 * holes_ > store_.size()) {
        compactStore();
    }
    if (classes_.size() > 2 * numClasses_ + decltype(classes_)::kChunk) {
        compactClasses();
    }
}

void EGraph::compactClasses() {
    decltype(classes_) live;
    for (EClassId c = 0; c < parent_.size(); ++c) {
        if (isRoot(c)) {
            uint32_t slot = static_cast<uint32_t>(live.size());
            live.push_back(std::move(cls(c)));
            parent_[c] = kRoot | slot;
        }
    }
    classes_ = std::move(live);
    freeSlots_.clear();
    freeSlots_.shrink_to_fit();
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
    if (on && dataChanged_.size() >= parent_.size()) {
        std::fill(dataChanged_.begin(), dataChanged_.end(), false);
    } else {
        std::vector<bool> marks(on ? parent_.size() : 0, false);
        dataChanged_.swap(marks);
    }
}

// Not counted: absorbedParent_, dataChanged_ and staleParents_, transients of the apply phase and
// rebuild.
EGraph::MemoryParts EGraph::memoryParts() const {
    auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    MemoryParts m;
    m.nodes = store_.bytes() + heapChildBytes_;
    m.ids = parent_.bytes() + ref_.bytes();
    m.classes = classes_.bytes() + vec(freeSlots_);
    m.hashcons = memo_.bytes();
    // The heap parts of every class slot, summed in parallel (integer sums: the same total in
    // any order): the runner asks every 4,096 applications, between which most classes change.
    struct Heap {
        size_t members = 0, parents = 0, classes = 0;
    };
    Heap heap = tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, classes_.size(), 4096), Heap{},
        [&](const tbb::blocked_range<size_t>& r, Heap sum) {
            for (size_t i = r.begin(); i < r.end(); ++i) {
                const EClass& c = classes_[i];
                sum.members += c.nodes.heapBytes();
                sum.parents += c.parents.heapBytes();
                sum.classes += c.data.freeVars.heapBytes() + c.data.fun.params.heapBytes();
            }
            return sum;
        },
        [](Heap a, const Heap& b) {
            a.members += b.members;
            a.parents += b.parents;
            a.classes += b.classes;
            return a;
        });
    m.members += heap.members;
    m.parents += heap.parents;
    m.classes += heap.classes;
    m.other = attrs_.bytes() + vec(orig_) + vec(proof_);
    for (const auto& edges : proof_) {
        m.other += vec(edges);
    }
    return m;
}

size_t EGraph::memoryBytes() const {
    if (bytesAt_ == changes_) {
        return bytes_;
    }
    bytes_ = memoryParts().total();
    bytesAt_ = changes_;
    return bytes_;
}

} // namespace egopt::egraph
