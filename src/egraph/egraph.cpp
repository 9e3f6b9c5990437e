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
    for (EClassId& c : out.children) {
        c = findConst(c);
    }
    return out;
}

std::optional<EClassId> EGraph::lookup(ENode node) const {
    auto it = memo_.find(canonicalize(node));
    if (it == memo_.end()) {
        return std::nullopt;
    }
    return findConst(it->second);
}

EClassId EGraph::add(ENode node) {
    ENode c = canonicalize(node);
    auto it = memo_.find(c);
    if (it != memo_.end() && recording_) {
        recording_->push_back(it->second);
    }
    if (it != memo_.end()) {
        EClassId existing = find(it->second);
        if (!explanations) {
            return existing;
        }
        if (orig_[it->second] == node) {
            return it->second; // the exact term (explanations refer to terms by id)
        }
        // An alias: the same canonical node spelled with other (equal) children.
        auto id = static_cast<ENodeId>(orig_.size());
        orig_.push_back(std::move(node));
        canon_.push_back(std::move(c));
        parent_.push_back(existing);
        classes_.emplace_back();
        proof_.emplace_back();
        proof_[id].push_back({it->second, {Justification::Kind::Congruence, 0}, true});
        proof_[it->second].push_back({id, {Justification::Kind::Congruence, 0}, false});
        return id;
    }
    ClassData data = make(c); // throws TypeError before anything changes
    auto id = static_cast<ENodeId>(orig_.size());
    data.best = id;
    for (EClassId child : c.children) {
        auto& parents = classes_[child].parents;
        if (parents.empty() || parents.back() != id) {
            parents.push_back(id);
        }
    }
    orig_.push_back(std::move(node));
    canon_.push_back(c);
    parent_.push_back(id);
    classes_.push_back(EClass{{id}, {}, std::move(data)});
    proof_.emplace_back();
    memo_.emplace(std::move(c), id);
    ++numClasses_;
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
    proof_[a0].push_back({b0, why, true});
    proof_[b0].push_back({a0, why, false});
    // The class with more parents stays root (fewer parents to move); ties keep the older id,
    // which keeps ids deterministic.
    auto key = [&](EClassId c) { return std::pair(classes_[c].parents.size(), -int64_t(c)); };
    if (key(a) < key(b)) {
        std::swap(a, b);
    }
    parent_[b] = a;
    EClass from = std::move(classes_[b]);
    classes_[b] = EClass{};
    EClass& into = classes_[a];
    into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
    into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
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
    std::vector<ENodeId> parents = std::move(classes_[c].parents);
    classes_[c].parents.clear();
    for (ENodeId p : parents) {
        auto it = memo_.find(canon_[p]);
        if (it == memo_.end() || it->second != p) {
            // A duplicate: an equal node owns its form (and is in this list too). Giving the
            // duplicate the form back would revive a node that other parent lists dropped.
            continue;
        }
        memo_.erase(it);
        canon_[p] = canonicalize(canon_[p]);
        auto [slot, inserted] = memo_.try_emplace(canon_[p], p);
        if (!inserted && find(slot->second) != find(p)) {
            merge(slot->second, p, {Justification::Kind::Congruence, 0});
        }
        dirty_.push_back(p); // p's class: a member changed its form or became a duplicate
    }
    c = find(c);
    // Keep one parent per canonical form: the one the hashcons points at.
    auto& out = classes_[c].parents;
    for (ENodeId p : parents) {
        auto it = memo_.find(canon_[p]);
        if (it != memo_.end() && it->second == p) {
            out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

void EGraph::propagateAnalysis() {
    while (!analysisPending_.empty()) {
        EClassId c = find(analysisPending_.back());
        analysisPending_.pop_back();
        for (ENodeId p : classes_[c].parents) {
            ClassData fresh;
            try {
                fresh = make(canonicalize(canon_[p]));
            } catch (const TypeError&) {
                continue; // types never change on merges; other facts are kept as they were
            }
            fresh.best = p;
            EClassId pc = find(p);
            if (mergeData(classes_[pc].data, fresh)) {
                analysisPending_.push_back(pc);
            }
        }
    }
}

void EGraph::rebuild() {
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
    // Members: one node per canonical form, in id order (deterministic matching order). Only
    // classes that were merged or had a member re-canonicalized can hold a stale or duplicate
    // member; every other class is as the last rebuild left it.
    for (EClassId& c : dirty_) {
        c = find(c);
    }
    std::sort(dirty_.begin(), dirty_.end());
    dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
    for (EClassId c : dirty_) {
        auto& nodes = classes_[c].nodes;
        std::vector<ENodeId> kept;
        kept.reserve(nodes.size());
        for (ENodeId n : nodes) {
            canon_[n] = canonicalize(canon_[n]);
            auto it = memo_.find(canon_[n]);
            if (it != memo_.end() && it->second == n) {
                kept.push_back(n);
            }
        }
        std::sort(kept.begin(), kept.end());
        kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
        nodes = std::move(kept);
    }
    dirty_.clear();
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

size_t EGraph::memoryBytes() const {
    size_t bytes = (orig_.capacity() + canon_.capacity()) * sizeof(ENode) +
                   parent_.capacity() * sizeof(EClassId) + classes_.capacity() * sizeof(EClass) +
                   proof_.capacity() * sizeof(proof_[0]) + attrs_.bytes();
    // Each hash-map entry: the node, the id, and the bucket/next pointers.
    bytes += memo_.size() * (sizeof(ENode) + sizeof(ENodeId) + 2 * sizeof(void*)) +
             memo_.bucket_count() * sizeof(void*);
    for (const EClass& c : classes_) {
        bytes += (c.nodes.capacity() + c.parents.capacity()) * sizeof(ENodeId) +
                 c.data.freeVars.capacity() * sizeof(int32_t) +
                 c.data.fun.params.capacity() * sizeof(TypeId);
    }
    for (const auto& edges : proof_) {
        bytes += edges.capacity() * sizeof(ProofEdge);
    }
    for (const ENode& n : orig_) {
        if (n.children.capacity() > 3) {
            bytes += 2 * n.children.capacity() * sizeof(EClassId);
        }
    }
    return bytes;
}

} // namespace egopt::egraph
