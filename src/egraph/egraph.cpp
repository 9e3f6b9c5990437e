// The e-graph core: insertion, union-find, merging and egg-style deferred rebuilding.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>

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
    while (parent_[root] != root) {
        root = parent_[root];
    }
    while (parent_[c] != root) { // path compression
        EClassId next = parent_[c];
        parent_[c] = root;
        c = next;
    }
    return root;
}

EClassId EGraph::findConst(EClassId c) const {
    while (parent_[c] != c) {
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
    ENodeId id = memo_.find(canonicalize(node), canon_);
    if (id == NodeTable::kNone) {
        return std::nullopt;
    }
    return findConst(id);
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
    // Without explanations the node as inserted is not kept: canonicalize it where it is.
    ENode c = explanations ? canonicalize(node) : std::move(node);
    if (!explanations) {
        canonicalizeInPlace(c);
    }
    c.duplicate = false;
    ENodeId found = memo_.find(c, canon_);
    if (found != NodeTable::kNone && recording_) {
        recording_->push_back(found);
    }
    if (found != NodeTable::kNone) {
        EClassId existing = find(found);
        if (!explanations) {
            return existing;
        }
        if (orig_[found] == node) {
            return found; // the exact term (explanations refer to terms by id)
        }
        // An alias: the same canonical node spelled with other (equal) children.
        auto id = static_cast<ENodeId>(canon_.size());
        countHeapChildren(node);
        countHeapChildren(c);
        orig_.push_back(std::move(node));
        c.age = age();
        c.duplicate = true; // an alias: never in the hashcons
        canon_.push_back(std::move(c));
        classAge_.push_back(age());
        parent_.push_back(existing);
        slot_.push_back(kNoClass);
        ++changes_;
        proof_.emplace_back();
        proof_[id].push_back({found, {Justification::Kind::Congruence, 0}, true});
        proof_[found].push_back({id, {Justification::Kind::Congruence, 0}, false});
        return id;
    }
    ClassData data = make(c); // throws TypeError before anything changes
    auto id = static_cast<ENodeId>(canon_.size());
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
    canon_.push_back(std::move(c));
    classAge_.push_back(age());
    parent_.push_back(id);
    slot_.push_back(newClass(EClass{{id}, {}, std::move(data), mask}));
    memo_.insert(id, canon_);
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
    auto key = [&](EClassId c) { return std::pair(cls(c).parents.size(), -int64_t(c)); };
    if (key(a) < key(b)) {
        std::swap(a, b);
    }
    parent_[b] = a;
    EClass from = std::move(cls(b));
    cls(b) = EClass{};
    freeSlots_.push_back(slot_[b]);
    slot_[b] = kNoClass;
    ++changes_;
    touchClass(a);
    for (ENodeId n : from.nodes) { // they move to another class
        touchNode(n);
        if (tracking_) {
            for (EClassId child : canon_[n].children) {
                if (child >= absorbedParent_.size()) {
                    absorbedParent_.resize(canon_.size());
                }
                absorbedParent_[child] = true;
            }
        }
    }
    EClass& into = cls(a);
    into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
    into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
    into.opMask |= from.opMask;
    bool changed = mergeData(into.data, from.data);
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
    std::vector<ENodeId> parents = std::move(cls(c).parents);
    cls(c).parents.clear();
    for (ENodeId p : parents) {
        if (canon_[p].duplicate) {
            // An equal node owns its form (and is in this list too). Giving the duplicate the
            // form back would revive a node that other parent lists dropped.
            continue;
        }
        dirty_.push_back(p); // p's class: a member may change its form or become a duplicate
        ENode& node = canon_[p];
        bool same = std::all_of(node.children.begin(), node.children.end(),
                                [&](EClassId k) { return parent_[k] == k; });
        if (same) {
            continue; // canonical already: it keeps its form and the hashcons entry
        }
        memo_.erase(p, canon_); // before its key, canon_[p], changes
        canonicalizeInPlace(node);
        touchNode(p);
        ENodeId owner = memo_.find(node, canon_);
        if (owner == NodeTable::kNone) {
            memo_.insert(p, canon_);
        } else {
            node.duplicate = true;
            if (find(owner) != find(p)) {
                merge(owner, p, {Justification::Kind::Congruence, 0});
            }
        }
    }
    c = find(c);
    // Keep one parent per canonical form: the one the hashcons points at.
    auto& out = cls(c).parents;
    for (ENodeId p : parents) {
        if (!canon_[p].duplicate) {
            out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.shrink_to_fit();
}

void EGraph::propagateAnalysis() {
    while (!analysisPending_.empty()) {
        EClassId c = find(analysisPending_.back());
        analysisPending_.pop_back();
        for (ENodeId p : cls(c).parents) {
            ClassData fresh;
            try {
                fresh = make(canonicalize(canon_[p]));
            } catch (const TypeError&) {
                continue; // types never change on merges; other facts are kept as they were
            }
            fresh.best = p;
            EClassId pc = find(p);
            if (mergeData(cls(pc).data, fresh)) {
                analysisPending_.push_back(pc);
            }
        }
    }
}

// Members: one node per canonical form, in id order (deterministic matching order).
void EGraph::dedupMembers(EClassId c) {
    EClass& k = cls(c);
    std::vector<ENodeId> kept;
    kept.reserve(k.nodes.size());
    k.opMask = 0;
    for (ENodeId n : k.nodes) {
        // An owner of its form is canonical already (rebuild re-canonicalized every parent of
        // a merged class); any other member is a duplicate, outside the hashcons.
        if (!canon_[n].duplicate) {
            kept.push_back(n);
            k.opMask |= opBit(canon_[n].op);
        } else {
            canonicalizeInPlace(canon_[n]);
        }
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    kept.shrink_to_fit();
    if (kept != k.nodes) {
        touchClass(c);
    }
    k.nodes = std::move(kept);
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
    memo_.shrink();
    if (classes_.size() > 2 * numClasses_ + decltype(classes_)::kChunk) {
        compactClasses();
    }
}

void EGraph::compactClasses() {
    Chunked<EClass> live;
    for (EClassId c = 0; c < parent_.size(); ++c) {
        if (parent_[c] == c) {
            uint32_t slot = static_cast<uint32_t>(live.size());
            live.push_back(std::move(cls(c)));
            slot_[c] = slot;
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
        if (parent_[c] == c) {
            out.push_back(c);
        }
    }
    return out;
}

void EGraph::advanceEpoch() {
    ++epoch_;
    if (epoch_ - base_ > UINT8_MAX) {
        base_ = epoch_;
        for (size_t n = 0; n < canon_.size(); ++n) {
            canon_[n].age = 0;
        }
        classAge_.fill(0);
    }
}

void EGraph::trackAbsorbed(bool on) {
    tracking_ = on;
    std::vector<bool> marks(on ? canon_.size() : 0, false);
    absorbedParent_.swap(marks);
}

// Not counted: absorbedParent_, a transient of the apply phase.
size_t EGraph::memoryBytes() const {
    if (bytesAt_ == changes_) {
        return bytes_;
    }
    auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    size_t bytes = vec(orig_) + canon_.bytes() + classAge_.bytes() + parent_.bytes() +
                   slot_.bytes() + classes_.bytes() + vec(freeSlots_) + vec(proof_) +
                   memo_.bytes() + attrs_.bytes();
    for (size_t i = 0; i < classes_.size(); ++i) {
        const EClass& c = classes_[i];
        bytes += vec(c.nodes) + vec(c.parents) + vec(c.data.freeVars) + vec(c.data.fun.params);
    }
    for (const auto& edges : proof_) {
        bytes += vec(edges);
    }
    bytes_ = bytes + heapChildBytes_;
    bytesAt_ = changes_;
    return bytes_;
}

} // namespace egopt::egraph
