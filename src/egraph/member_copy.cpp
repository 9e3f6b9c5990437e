// Member-keeping copies of classes whose variables an applier rebinds (EGraph::
// keepMembersInCopies): every member of every class that uses a rebound variable is copied, so
// what earlier rewrites made inside the class is in the copy too. A smallest-term copy keeps one
// member per class, and a derivation's later step then finds nothing to rewrite there.
#include "library_parts.hpp"

#include <map>
#include <set>

namespace egopt::egraph::detail {

namespace {

// The copies' e-nodes beyond which a copy gives up (the applier then copies smallest terms): a
// bound on what one application may add.
constexpr size_t kMaxCopiedNodes = 20000;

class MemberCopier {
public:
    MemberCopier(EGraph& g, int32_t cutoff, const CopyVar& var)
        : g_(g), cutoff_(cutoff), var_(var) {}

    bool exhausted() const { return added_ > kMaxCopiedNodes; }

    // The copy of class `c` seen `depth` binders below the copied root; nullopt when no member
    // can be copied (each uses a variable the copy drops, or leads back to a class being copied).
    std::optional<EClassId> copy(EClassId c, int32_t depth) {
        c = g_.find(c);
        if (!dependsOnRebound(c, depth)) {
            return c; // no rebound variable: the class itself
        }
        std::pair key{c, depth};
        if (auto it = memo_.find(key); it != memo_.end()) {
            return it->second;
        }
        if (exhausted() || !active_.insert(key).second) {
            return std::nullopt; // a cycle: the member that closes it is left out
        }
        std::vector<ENodeId> members(g_.eclass(c).nodes.begin(), g_.eclass(c).nodes.end());
        std::vector<std::pair<ENodeId, EClassId>> made; // (original, copy)
        for (ENodeId n : members) {
            if (auto m = copyNode(n, depth)) {
                made.emplace_back(n, *m);
            }
        }
        active_.erase(key);
        std::optional<EClassId> out;
        if (!made.empty()) {
            for (size_t i = 1; i < made.size(); ++i) {
                g_.mergeCopies(made[0].second, made[i].second, made[0].first, made[i].first);
            }
            out = made[0].second;
        }
        memo_.emplace(key, out);
        return out;
    }

private:
    // Whether the class's value uses a variable the copy rebinds. Its smallest term tells:
    // another member may name a variable the value does not depend on (a redex such as
    // `(fun(x => 0.0f)) $ x0` in 0.0f's class, shared by contexts where x0 has other types).
    bool dependsOnRebound(EClassId c, int32_t depth) const {
        if (!g_.data(c).hasFreeVarAtLeast(depth + cutoff_)) {
            return false;
        }
        std::vector<int32_t> used = g_.smallestTermFreeVars(c);
        return !used.empty() && used.back() >= depth + cutoff_;
    }

    std::optional<EClassId> copyNode(ENodeId n, int32_t depth) {
        ENode node = g_.node(n); // a copy: adding nodes may move the store
        if (node.op == Op::Param && node.ival >= depth + cutoff_) {
            return var_(node, depth);
        }
        int32_t inner = node.op == Op::Lambda ? depth + node.ival : depth;
        for (EClassId& child : node.children) {
            auto c = copy(child, inner);
            if (!c) {
                return std::nullopt;
            }
            child = *c;
        }
        ++added_;
        try {
            return g_.add(std::move(node));
        } catch (const TypeError&) {
            return std::nullopt; // a member of another context (see dependsOnRebound): left out
        }
    }

    EGraph& g_;
    int32_t cutoff_;
    const CopyVar& var_;
    size_t added_ = 0;
    std::map<std::pair<EClassId, int32_t>, std::optional<EClassId>> memo_;
    std::set<std::pair<EClassId, int32_t>> active_;
};

} // namespace

std::optional<EClassId> copyKeepingMembers(EGraph& g, EClassId root, int32_t cutoff,
                                           const CopyVar& var, bool& exhausted) {
    MemberCopier copier(g, cutoff, var);
    std::optional<EClassId> out = copier.copy(root, 0);
    exhausted = copier.exhausted();
    return exhausted ? std::nullopt : out;
}

std::optional<EClassId> renumbered(EGraph& g, const ENode& var, int32_t depth, int32_t dropFrom,
                                   int32_t dropped) {
    int32_t rel = var.ival - depth;
    if (rel >= dropFrom && rel < dropFrom + dropped) {
        return std::nullopt;
    }
    ENode out = var;
    if (rel >= dropFrom + dropped) {
        out.ival -= dropped;
    }
    return g.add(std::move(out));
}

} // namespace egopt::egraph::detail
