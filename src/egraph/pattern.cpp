// E-matching by backtracking over the members of each class (pattern_queries.cpp: what a
// pattern's shape says, and its instantiation).
#include "egopt/egraph/pattern.hpp"

#include "match_binders.hpp"

#include <algorithm>

namespace egopt::egraph {

namespace {

bool isSizeVar(const arith::Size& s, std::string& name) {
    auto v = s.variable();
    if (v && !v->empty() && (*v)[0] == '#') {
        name = *v;
        return true;
    }
    return false;
}

// Set up once per pattern and reused for every class it is tried on: a rule is tried on
// thousands of classes per iteration, most of which fail at the root.
class Matcher {
public:
    Matcher(const EGraph& g, const Pattern& p, size_t slots,
            const std::function<void(const Subst&)>& onMatch, const BindFilter& keep = {},
            const MatchAge& age = {}, const Deferral* deferral = nullptr,
            const Resumption* resume = nullptr, const FunctionFilter* filter = nullptr)
        : g_(g), p_(p), onMatch_(onMatch), keep_(keep), age_(age), deferral_(deferral),
          resume_(resume), filter_(resume ? resume->filter : filter), canonical_(g.clean()),
          prefetch_(g.numNodes() >= kPrefetchNodes), binders_(g, p) {
        if (filter_) {
            picked_.resize(p.nodes.size() + 1);
        }
        s_.classes.assign(slots, kNoClass);
        hot_ = deferral && deferral->hot ? deferral->hot : &ownHot_;
    }

    // The members of the root class tried at the root's e-node step (matchClasses).
    void setRoots(MemberRange roots) { roots_ = roots; }

    // Leaves the substitution empty again: every binding is undone on backtracking.
    void run(EClassId c) {
        root_ = c;
        todo_.clear();
        path_.clear();
        todo_.emplace_back(p_.root, c);
        step(todo_);
    }

private:
    // A class's members and operator mask as the search sees them (resuming: as they were).
    struct View {
        std::span<const ENodeId> nodes;
        uint64_t opMask = 0;
    };
    View view(EClassId c) const {
        if (resume_) {
            const ClassSnapshot::Entry& e = resume_->classAt(c);
            return {e.members, e.opMask};
        }
        EClass ec = g_.eclass(c);
        return {ec.nodes, ec.opMask};
    }

    // The canonical id of a class that the search reached: itself in a clean e-graph (as the
    // runner's search sees it), whose e-nodes' children and operator index are canonical, so
    // no union-find entry (a likely cache miss on a large e-graph) is read.
    EClassId canon(EClassId c) const { return canonical_ ? c : g_.findConst(c); }

    // Matches the pending (pattern, class) pairs; calls onMatch_ for each full match.
    void step(std::vector<std::pair<PatId, EClassId>>& todo) {
        if (todo.empty()) {
            finish();
            return;
        }
        if (resume_ && resume_->wanted && !resume_->wanted(s_, todo)) {
            return;
        }
        auto [pid, cls] = todo.back();
        todo.pop_back();
        const PatNode& pn = p_.nodes[pid];
        // Resuming, the ids are those the search saw: the classes of a journal.
        cls = resume_ ? cls : canon(cls);
        if (pn.kind == PatNode::Kind::ClassVar) {
            EClassId& bound = s_.classes[pn.slot];
            if (bound == kNoClass) {
                bound = cls;
                if (!keep_ || keep_(s_, pn.slot)) {
                    step(todo);
                }
                bound = kNoClass;
            } else if (bound == cls) {
                step(todo);
            }
        } else {
            nodeStep(pid, pn, cls, todo);
        }
        todo.emplace_back(pid, cls);
    }

    // A full match: checked and handed on.
    void finish() {
        if (!binders_.agree(s_)) {
            return;
        }
        s_.unchanged =
            resume_ != nullptr ||
            (age_.since != 0 && changed_ == 0 &&
             std::all_of(age_.classSlots.begin(), age_.classSlots.end(), [&](uint32_t v) {
                 return g_.classChangedAt(s_.classes[v]) < age_.since;
             }));
        onMatch_(s_);
    }

    // An e-node step: pattern node `pid` (not a class variable) at class `cls`.
    void nodeStep(PatId pid, const PatNode& pn, EClassId cls,
                  std::vector<std::pair<PatId, EClassId>>& todo) {
        // The class's operator summary rules most classes out without a look at a member.
        View v = view(cls);
        if ((v.opMask & opBit(pn.kind == PatNode::Kind::BoundVar ? Op::Param : pn.op)) == 0) {
            return;
        }
        if (resume_ && path_.size() <= resume_->path.size()) {
            resumeStep(pid, cls, v.nodes, todo);
        } else if (deferral_ && changed_ == 0 && quiet(todo)) {
            deferStep(pid, cls, v.nodes, todo);
        } else if (path_.empty() && pid == p_.root && !roots_.whole()) {
            members(pid, cls, v.nodes, std::min<size_t>(roots_.lo, v.nodes.size()),
                    std::min<size_t>(roots_.hi, v.nodes.size()), todo);
        } else {
            members(pid, cls, v.nodes, 0, v.nodes.size(), todo);
        }
    }

    // Members are scattered, and a node is read through its reference: at the start of each
    // batch of members [lo, hi), the references of the next batch and the nodes of this one are
    // fetched together, so that their misses overlap. A hint: no effect on results.
    void prefetchMembers(std::span<const ENodeId> nodes, size_t lo, size_t i, size_t hi) const {
        if (!prefetch_) {
            return;
        }
        constexpr size_t kBatch = 16;
        if ((i - lo) % kBatch != 0 || hi - lo == 1) {
            return;
        }
        for (size_t j = i + kBatch; j < std::min(i + 2 * kBatch, hi); ++j) {
            g_.prefetchNode(nodes[j], 0);
        }
        for (size_t j = i; j < std::min(i + kBatch, hi); ++j) {
            g_.prefetchNode(nodes[j], 1);
        }
    }

    // Tries members [lo, hi) of class `cls` at pattern node `pid`.
    void members(PatId pid, EClassId cls, std::span<const ENodeId> nodes, size_t lo, size_t hi,
                 std::vector<std::pair<PatId, EClassId>>& todo) {
        if (filter_ && filter_->fnSlot[pid] >= 0) {
            pickedMembers(pid, cls, nodes, lo, hi, todo);
            return;
        }
        for (size_t i = lo; i < hi; ++i) {
            prefetchMembers(nodes, lo, i, hi);
            tryMember(pid, nodes, i, todo);
        }
    }

    void tryMember(PatId pid, std::span<const ENodeId> nodes, size_t i,
                   std::vector<std::pair<PatId, EClassId>>& todo) {
        ENodeId n = nodes[i];
        bool changed = age_.since != 0 && g_.nodeChangedAt(n) >= age_.since;
        changed_ += changed;
        path_.push_back(static_cast<uint32_t>(i));
        tryNode(pid, g_.node(n), todo);
        path_.pop_back();
        changed_ -= changed;
    }

    // tryMember(pid, nodes, i, todo) by the member's store position (OpIndex::memberPositions).
    void tryMemberAt(PatId pid, size_t i, uint32_t position,
                     std::vector<std::pair<PatId, EClassId>>& todo) {
        bool changed = age_.since != 0 && g_.nodeChangedAtPosition(position) >= age_.since;
        changed_ += changed;
        path_.push_back(static_cast<uint32_t>(i));
        tryNode(pid, g_.nodeAt(position), todo);
        path_.pop_back();
        changed_ -= changed;
    }

    // Whether member i of class `cls` can match `?f $ (...)` at `pid` (FunctionFilter).
    bool admitted(PatId pid, std::span<const EClassId> keys, size_t i) const {
        uint32_t slot = static_cast<uint32_t>(filter_->fnSlot[pid]);
        EClassId bound = s_.classes[slot];
        return bound != kNoClass ? keys[i] == bound
                                 : keys[i] != kNoClass && filter_->admits(slot, keys[i]);
    }

    // members() at an application node of a FunctionFilter: the members that apply the wanted
    // function, picked from the index's keys (read in order) before any e-node is read.
    void pickedMembers(PatId pid, EClassId cls, std::span<const ENodeId> nodes, size_t lo,
                       size_t hi, std::vector<std::pair<PatId, EClassId>>& todo) {
        std::span<const EClassId> keys = filter_->index->appliedFunctions(cls, nodes.size());
        std::vector<uint32_t>& picked = picked_[path_.size()];
        picked.clear();
        for (size_t i = lo; i < hi; ++i) {
            if (admitted(pid, keys, i)) {
                picked.push_back(static_cast<uint32_t>(i));
            }
        }
        // The index's store positions: one access a member. Resuming, too: the index describes
        // the classes as the search saw them, and no node moves in the store before the rebuild.
        constexpr size_t kBatch = 16; // as prefetchMembers, over the picked members
        std::span<const uint32_t> at = filter_->index->memberPositions(cls, nodes.size());
        for (size_t k = 0; k < picked.size(); ++k) {
            if (prefetch_ && k % kBatch == 0 && picked.size() > 1) {
                for (size_t j = k; j < std::min(k + kBatch, picked.size()); ++j) {
                    g_.prefetchNodeAt(at[picked[j]]);
                }
            }
            tryMemberAt(pid, picked[k], at[picked[k]], todo);
        }
    }

    // Resuming: the member the search chose at this step, or the deferred range.
    void resumeStep(PatId pid, EClassId cls, std::span<const ENodeId> nodes,
                    std::vector<std::pair<PatId, EClassId>>& todo) {
        size_t k = path_.size();
        if (k < resume_->path.size()) {
            size_t i = resume_->path[k];
            if (i < nodes.size()) {
                members(pid, cls, nodes, i, i + 1, todo);
            }
            return;
        }
        members(pid, cls, nodes, resume_->lo, std::min<size_t>(resume_->hi, nodes.size()), todo);
    }

    // No e-node matched so far is new and the pending pairs cannot match one: the members that
    // cannot either are deferred in runs, the others tried.
    void deferStep(PatId pid, EClassId cls, std::span<const ENodeId> nodes,
                   std::vector<std::pair<PatId, EClassId>>& todo) {
        auto defer = [&](size_t lo, size_t hi) {
            deferral_->onDeferred(root_, path_, static_cast<uint32_t>(lo),
                                  static_cast<uint32_t>(hi));
        };
        size_t run = 0; // the first member of the current run of cold ones
        for (uint32_t i : hotMembers(pid, cls)) {
            if (run < i) {
                defer(run, i);
            }
            members(pid, cls, nodes, i, i + 1, todo);
            run = i + 1;
        }
        if (run < nodes.size()) {
            defer(run, nodes.size());
        }
    }

    bool quiet(const std::vector<std::pair<PatId, EClassId>>& todo) {
        for (size_t v = 0; v < s_.classes.size(); ++v) {
            if (deferral_->conditionSlot[v] && s_.classes[v] != kNoClass &&
                g_.classChangedAt(s_.classes[v]) >= age_.since) {
                return false;
            }
        }
        return std::none_of(todo.begin(), todo.end(),
                            [&](const auto& t) { return hot(t.first, canon(t.second)); });
    }

    // Whether pattern node `pid` can match at class `c` with a new e-node or a new condition
    // class in it (Deferral).
    bool hot(PatId pid, EClassId c) {
        const PatNode& pn = p_.nodes[pid];
        if (pn.kind == PatNode::Kind::ClassVar) {
            return deferral_->conditionSlot[pn.slot] && g_.classChangedAt(c) >= age_.since;
        }
        return pn.kind == PatNode::Kind::BoundVar || !hotMembers(pid, c).empty();
    }

    // The members of class `c` (canonical) that can start such a match of node `pid`, by
    // index; memoised per search.
    const std::vector<uint32_t>& hotMembers(PatId pid, EClassId c) {
        uint64_t key = (uint64_t(pid) << 32) | c;
        if (const std::vector<uint32_t>* known = hot_->find(key)) {
            return *known;
        }
        std::vector<uint32_t> found;
        EClass ec = g_.eclass(c);
        if (ec.mayHold(p_.nodes[pid].op)) {
            // A member the function filter rules out matches nothing (its pins only: the
            // answer must not depend on the bindings so far).
            std::span<const EClassId> keys;
            std::span<const uint32_t> at; // the members' store positions
            int32_t fnSlot = filter_ ? filter_->fnSlot[pid] : -1;
            if (fnSlot >= 0) {
                keys = filter_->index->appliedFunctions(c, ec.nodes.size());
                at = filter_->index->memberPositions(c, ec.nodes.size());
            }
            for (size_t i = 0; i < ec.nodes.size(); ++i) {
                if (fnSlot >= 0 && (keys[i] == kNoClass ||
                                    !filter_->admits(static_cast<uint32_t>(fnSlot), keys[i]))) {
                    continue;
                }
                bool hot = false;
                if (fnSlot >= 0) { // an application: its position is in the index
                    if (prefetch_ && i % 16 == 0) {
                        for (size_t j = i; j < std::min(i + 16, at.size()); ++j) {
                            g_.prefetchNodeAt(at[j] != UINT32_MAX ? at[j] : at[i]);
                        }
                    }
                    hot = memberHot(pid, g_.nodeAt(at[i]), g_.nodeChangedAtPosition(at[i]));
                } else {
                    prefetchMembers(ec.nodes, 0, i, ec.nodes.size());
                    hot = memberHot(pid, g_.node(ec.nodes[i]), g_.nodeChangedAt(ec.nodes[i]));
                }
                if (hot) {
                    found.push_back(static_cast<uint32_t>(i));
                }
            }
        }
        return hot_->add(key, std::move(found));
    }

    // Whether a member (its e-node, changed at epoch `changedAt`) can start a match of `pid`
    // with a new e-node or condition class in it.
    bool memberHot(PatId pid, const ENode& node, uint32_t changedAt) {
        const PatNode& pn = p_.nodes[pid];
        if (node.op != pn.op || node.ival != pn.ival ||
            node.children.size() != pn.children.size()) {
            return false; // matches nothing here
        }
        if (changedAt >= age_.since) {
            return true;
        }
        for (size_t k = 0; k < pn.children.size(); ++k) {
            if (hot(pn.children[k], canon(node.children[k]))) {
                return true;
            }
        }
        return false;
    }

    void tryNode(PatId pid, const ENode& n, std::vector<std::pair<PatId, EClassId>>& todo) {
        const PatNode& pn = p_.nodes[pid];
        if (pn.kind == PatNode::Kind::BoundVar) {
            if (n.op == Op::Param && n.ival == pn.ival && binders_.typeMatches(pid, n)) {
                step(todo);
            }
            return;
        }
        if (n.op != pn.op || n.children.size() != pn.children.size()) {
            return;
        }
        // A lambda's attribute holds its parameter types, which patterns do not constrain.
        if (n.ival != pn.ival) {
            return;
        }
        // The empty attribute (id 0) has no sizes: most nodes, whose table entry is not read.
        if (n.attr == 0 && pn.sizes.empty() && pn.op != Op::Lambda) {
            matchChildren(pn, n, todo);
            return;
        }
        const Attr& a = g_.attrOf(n);
        if (a.sizes.size() != pn.sizes.size()) {
            return;
        }
        std::vector<std::string> newlyBound;
        bool ok = true;
        for (size_t i = 0; i < pn.sizes.size() && ok; ++i) {
            std::string name;
            if (!isSizeVar(pn.sizes[i], name)) {
                ok = pn.sizes[i] == a.sizes[i];
            } else if (auto it = s_.sizes.find(name); it != s_.sizes.end()) {
                ok = it->second == a.sizes[i];
            } else {
                s_.sizes.emplace(name, a.sizes[i]);
                newlyBound.push_back(name);
            }
        }
        if (ok) {
            const std::vector<TypeId>* saved = binders_.lambdaTypes(pid);
            if (pn.op == Op::Lambda) {
                binders_.lambdaTypes(pid) = &a.types;
            }
            matchChildren(pn, n, todo);
            binders_.lambdaTypes(pid) = saved;
        }
        for (const auto& name : newlyBound) {
            s_.sizes.erase(name);
        }
    }

    // Pushes the node's children as pending pairs (the first on top) and matches on.
    void matchChildren(const PatNode& pn, const ENode& n,
                       std::vector<std::pair<PatId, EClassId>>& todo) {
        size_t before = todo.size();
        for (size_t i = pn.children.size(); i-- > 0;) {
            todo.emplace_back(pn.children[i], n.children[i]);
        }
        step(todo);
        todo.resize(before);
    }

    const EGraph& g_;
    const Pattern& p_;
    const std::function<void(const Subst&)>& onMatch_;
    const BindFilter& keep_;
    const MatchAge& age_;
    const Deferral* deferral_;
    const Resumption* resume_;
    const FunctionFilter* filter_;
    bool canonical_; // the e-graph was clean when the matcher was set up (canon)
    // Prefetching members pays only on an e-graph larger than the caches hold.
    static constexpr size_t kPrefetchNodes = size_t(1) << 15;
    bool prefetch_;
    std::vector<std::vector<uint32_t>> picked_; // by path length: pickedMembers's members
    size_t changed_ = 0; // e-nodes of the partial match changed since age_.since
    Subst s_;
    EClassId root_ = kNoClass;
    MemberRange roots_;
    std::vector<uint32_t> path_; // the member index chosen at each e-node step so far
    // (pattern node, class): hotMembers(); references stay valid as it grows.
    HotMembers ownHot_;
    HotMembers* hot_ = nullptr; // the deferral's, or ownHot_
    detail::MatchBinders binders_;
    std::vector<std::pair<PatId, EClassId>> todo_;
};

} // namespace

void matchClass(const EGraph& g, const Pattern& p, size_t numSlots, EClassId c,
                const std::function<void(const Subst&)>& onMatch) {
    Matcher(g, p, numSlots, onMatch).run(c);
}

void matchClasses(const EGraph& g, const Pattern& p, size_t numSlots,
                  std::span<const EClassId> classes,
                  const std::function<void(EClassId, const Subst&)>& onMatch,
                  const BindFilter& keep, const MatchAge& age, const Deferral* deferral,
                  const FunctionFilter* filter, MemberRange roots) {
    EClassId current = kNoClass;
    std::function<void(const Subst&)> forward = [&](const Subst& s) { onMatch(current, s); };
    Matcher m(g, p, numSlots, forward, keep, age, age.since != 0 ? deferral : nullptr, nullptr,
              filter);
    m.setRoots(roots);
    for (EClassId c : classes) {
        current = c;
        m.run(c);
    }
}

void resumeMatches(const EGraph& g, const Pattern& p, size_t numSlots, EClassId root,
                   const Resumption& resume, const std::function<void(const Subst&)>& onMatch,
                   const BindFilter& keep) {
    Matcher(g, p, numSlots, onMatch, keep, {}, nullptr, &resume).run(root);
}

void resumeMatchesSession(const EGraph& g, const Pattern& p, size_t numSlots,
                          const Resumption& resume,
                          const std::function<void(const Subst&)>& onMatch, const BindFilter& keep,
                          const std::function<void(const std::function<void(EClassId)>&)>& body) {
    MatchAge none;
    Matcher m(g, p, numSlots, onMatch, keep, none, nullptr, &resume);
    body([&](EClassId root) { m.run(root); });
}

} // namespace egopt::egraph
