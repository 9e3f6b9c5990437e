// Explanations from the union forest.
//
// The forest path between two ids is unique but rarely short: a rule instance refers to the
// class representatives it matched, so each congruence step may walk a child to its
// representative and back, at every nesting level, which makes flat derivations exponential
// in the depth (dot's six nested halvings did not finish in 30 s). As egg's greedy
// explanations do, we instead search, inside the class, a shortest path over the forest edges
// plus congruence edges between every two congruent ids, weighting a congruence edge with the
// forest lengths of its child proofs (memoised). Derivations are expanded from these paths and
// any loop left in the sequence of whole terms is cut out.
#include "egopt/egraph/explain.hpp"

#include "egopt/support/diagnostic.hpp"

#include <deque>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace egopt::egraph {

namespace {

using Length = uint64_t;
constexpr Length kHuge = Length(1) << 40; // saturating lengths stay below overflow

Length plus(Length a, Length b) {
    return std::min(a + b, kHuge);
}

uint64_t pairKey(ENodeId a, ENodeId b) {
    return (uint64_t(a) << 32) | b;
}

struct RawStep {
    uint32_t rule;
    bool forward;
    std::vector<size_t> path; // child indices from the root
    ENodeId to;
};

// One edge of a derivation inside a class: a rule application or a congruence.
struct Hop {
    ENodeId from;
    ENodeId to;
    Justification why;
    bool forward;
};

// The ids of one class (its forest component) and which of them are congruent.
struct ClassIds {
    std::vector<ENodeId> ids;
    std::unordered_map<ENodeId, size_t> group; // id -> index into groups
    std::vector<std::vector<ENodeId>> groups;  // ids with one canonical form
};

// Congruence cliques can be large (a popular function under many aliases): beyond this many
// mates per id the search keeps the forest edges only, which stay correct, just longer.
constexpr size_t kMaxMates = 32;

class Explainer {
public:
    explicit Explainer(const EGraph& g) : g_(g), up_(g.numNodeIds()), depth_(g.numNodeIds(), -1) {}

    void explain(ENodeId a, ENodeId b, std::vector<size_t>& at, std::vector<RawStep>& out) {
        if (a == b) {
            return;
        }
        uint64_t key = pairKey(a, b);
        // Re-entering a pair (possible through cyclic e-graphs) falls back to the forest
        // path, whose expansion terminates: a congruence edge's children were equal before it.
        bool reentered = !active_.insert(key).second;
        std::vector<Hop> hops = reentered ? treeHops(a, b) : shortestHopsMemo(a, b);
        for (const Hop& h : hops) {
            if (h.why.kind == Justification::Kind::Rule) {
                out.push_back({h.why.rule, h.forward, at, h.to});
                continue;
            }
            if (h.why.kind == Justification::Kind::Copy) {
                auto [from, to] = original(h);
                explain(from, to, at, out);
                continue;
            }
            const ENode& x = g_.originalNode(h.from);
            const ENode& y = g_.originalNode(h.to);
            for (size_t i = 0; i < x.children.size(); ++i) {
                at.push_back(i);
                explain(x.children[i], y.children[i], at, out);
                at.pop_back();
            }
        }
        if (!reentered) {
            active_.erase(key);
        }
    }

private:
    // The original nodes whose equality a Copy hop repeats, in the hop's direction.
    std::pair<ENodeId, ENodeId> original(const Hop& h) const {
        auto [a, b] = g_.copyOrigin(h.why.rule);
        return h.forward ? std::pair{a, b} : std::pair{b, a};
    }

    // The length of a hop that is not a rule application.
    Length hopLength(const Hop& h) {
        if (h.why.kind == Justification::Kind::Copy) {
            auto [from, to] = original(h);
            return treeLength(from, to);
        }
        return congruenceLength(h.from, h.to);
    }

    // Hops of the unique forest path from a to b (both in one class): both climb the class's
    // BFS tree to their common ancestor.
    std::vector<Hop> treeHops(ENodeId a, ENodeId b) {
        classIds(a);
        std::vector<Hop> up;
        std::vector<Hop> down;
        while (a != b) {
            if (depth_[a] >= depth_[b]) {
                up.push_back(up_[a]);
                a = up_[a].to;
            } else {
                const Hop& h = up_[b];
                down.push_back(Hop{h.to, h.from, h.why, !h.forward});
                b = h.to;
            }
        }
        up.insert(up.end(), down.rbegin(), down.rend());
        return up;
    }

    // Length of the flat derivation along forest paths (memoised; the recursion terminates
    // for the reason given in explain()).
    Length treeLength(ENodeId a, ENodeId b) {
        if (a == b) {
            return 0;
        }
        uint64_t key = pairKey(std::min(a, b), std::max(a, b));
        if (auto it = treeLen_.find(key); it != treeLen_.end()) {
            return it->second;
        }
        treeLen_[key] = kHuge; // guards against a cycle
        Length n = 0;
        for (const Hop& h : treeHops(a, b)) {
            n = plus(n, h.why.kind == Justification::Kind::Rule ? 1 : hopLength(h));
        }
        treeLen_[key] = n;
        return n;
    }

    Length congruenceLength(ENodeId x, ENodeId y) {
        uint64_t key = pairKey(x, y);
        if (auto it = congLen_.find(key); it != congLen_.end()) {
            return it->second;
        }
        const ENode& nx = g_.originalNode(x);
        const ENode& ny = g_.originalNode(y);
        Length n = 0;
        for (size_t i = 0; i < nx.children.size(); ++i) {
            n = plus(n, treeLength(nx.children[i], ny.children[i]));
        }
        congLen_[key] = n;
        return n;
    }

    const ClassIds& classIds(ENodeId a) {
        EClassId root = g_.findConst(a);
        if (auto it = classes_.find(root); it != classes_.end()) {
            return it->second;
        }
        ClassIds& c = classes_[root];
        // A BFS tree of the forest component: up_[x] is the hop from x towards a.
        depth_[a] = 0;
        std::deque<ENodeId> todo{a};
        while (!todo.empty()) {
            ENodeId x = todo.front();
            todo.pop_front();
            c.ids.push_back(x);
            for (const auto& e : g_.proofEdges()[x]) {
                if (depth_[e.other] < 0) {
                    depth_[e.other] = depth_[x] + 1;
                    up_[e.other] = Hop{e.other, x, e.why, !e.forward};
                    todo.push_back(e.other);
                }
            }
        }
        std::unordered_map<std::string, size_t> byForm; // canonical form as bytes
        for (ENodeId x : c.ids) {
            const ENode& n = g_.originalNode(x);
            std::vector<uint32_t> words{uint32_t(n.op), uint32_t(n.ival), n.attr};
            for (EClassId child : n.children) {
                words.push_back(g_.findConst(child));
            }
            std::string form(reinterpret_cast<const char*>(words.data()), words.size() * 4);
            auto [it, fresh] = byForm.try_emplace(std::move(form), c.groups.size());
            if (fresh) {
                c.groups.emplace_back();
            }
            c.groups[it->second].push_back(x);
            c.group[x] = it->second;
        }
        return c;
    }

    const std::vector<Hop>& shortestHopsMemo(ENodeId a, ENodeId b) {
        uint64_t key = pairKey(a, b);
        if (auto it = shortest_.find(key); it != shortest_.end()) {
            return it->second;
        }
        return shortest_[key] = shortestHops(a, b);
    }

    // Dijkstra from a to b over the class's forest edges and congruence mates.
    std::vector<Hop> shortestHops(ENodeId a, ENodeId b) {
        const ClassIds& c = classIds(a);
        std::unordered_map<ENodeId, std::pair<Length, Hop>> best;
        using Item = std::pair<Length, ENodeId>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> todo;
        best[a] = {0, Hop{a, a, {}, true}};
        todo.push({0, a});
        auto relax = [&](Length d, const Hop& h) {
            auto it = best.find(h.to);
            if (it == best.end() || d < it->second.first) {
                best[h.to] = {d, h};
                todo.push({d, h.to});
            }
        };
        while (!todo.empty()) {
            auto [d, x] = todo.top();
            todo.pop();
            if (x == b) {
                break;
            }
            if (d > best[x].first) {
                continue;
            }
            for (const auto& e : g_.proofEdges()[x]) {
                if (e.why.kind == Justification::Kind::Rule) {
                    relax(plus(d, 1), Hop{x, e.other, e.why, e.forward});
                }
            }
            const auto& mates = c.groups[c.group.at(x)];
            for (size_t i = 0; i < mates.size() && i < kMaxMates; ++i) {
                if (mates[i] != x) {
                    Hop h{x, mates[i], {Justification::Kind::Congruence, 0}, true};
                    relax(plus(d, congruenceLength(x, mates[i])), h);
                }
            }
            for (const auto& e : g_.proofEdges()[x]) { // forest congruences beyond the cap
                if (e.why.kind == Justification::Kind::Congruence) {
                    relax(plus(d, congruenceLength(x, e.other)), Hop{x, e.other, e.why, true});
                } else if (e.why.kind == Justification::Kind::Copy) {
                    Hop h{x, e.other, e.why, e.forward};
                    relax(plus(d, hopLength(h)), h);
                }
            }
        }
        std::vector<Hop> out;
        for (ENodeId x = b; x != a; x = best.at(x).second.from) {
            out.push_back(best.at(x).second);
        }
        return {out.rbegin(), out.rend()};
    }

    const EGraph& g_;
    std::vector<Hop> up_;        // by id: the hop towards its class's BFS root
    std::vector<int32_t> depth_; // by id: -1 until its class is visited
    std::unordered_map<uint64_t, Length> treeLen_;
    std::unordered_map<EClassId, ClassIds> classes_;
    std::unordered_map<uint64_t, Length> congLen_;
    std::unordered_map<uint64_t, std::vector<Hop>> shortest_;
    std::unordered_set<uint64_t> active_;
};

// Hash-consed terms (equal terms get equal ids), so loops in a derivation are found by id
// and only the steps that remain are printed.
class Terms {
public:
    explicit Terms(const EGraph& g) : g_(g) {}
    TermArena arena;

    // The exact term of an id, as inserted.
    TermId build(ENodeId id) {
        if (auto it = built_.find(id); it != built_.end()) {
            return it->second;
        }
        const ENode& n = g_.originalNode(id);
        std::vector<TermId> kids;
        for (EClassId c : n.children) {
            kids.push_back(build(c));
        }
        TermId out = add(n.op, n.ival, n.attr, kids);
        built_.emplace(id, out);
        return out;
    }

    // `root` with the subterm at `at` (child indices) replaced by `with`.
    TermId replace(TermId root, const std::vector<size_t>& at, size_t i, TermId with) {
        if (i == at.size()) {
            return with;
        }
        TermNode n = arena.at(root); // a copy: the recursion may grow the arena
        std::vector<TermId> kids(n.children.begin(), n.children.end());
        kids.at(at[i]) = replace(kids[at[i]], at, i + 1, with);
        return add(n.op, n.ival, attrs_[root], kids);
    }

private:
    TermId add(Op op, int32_t ival, AttrId attr, const std::vector<TermId>& kids) {
        std::vector<uint32_t> words{uint32_t(op), uint32_t(ival), attr};
        words.insert(words.end(), kids.begin(), kids.end());
        std::string key(reinterpret_cast<const char*>(words.data()), words.size() * 4);
        if (auto it = index_.find(key); it != index_.end()) {
            return it->second;
        }
        TermNode node;
        node.op = op;
        node.ival = ival;
        node.sizes = g_.attr(attr).sizes;
        node.types = g_.attr(attr).types;
        node.children.assign(kids.begin(), kids.end());
        TermId id = arena.add(std::move(node));
        attrs_.resize(std::max<size_t>(attrs_.size(), id + 1));
        attrs_[id] = attr;
        index_.emplace(std::move(key), id);
        return id;
    }

    const EGraph& g_;
    std::unordered_map<ENodeId, TermId> built_;
    std::unordered_map<std::string, TermId> index_;
    std::vector<AttrId> attrs_; // by TermId
};

// Cuts every loop out of a sequence of terms (a term seen earlier restarts from there), so
// each remaining step still rewrites its predecessor. Returns the indices of the kept steps.
std::vector<size_t> withoutLoops(TermId start, const std::vector<TermId>& terms) {
    std::unordered_map<TermId, size_t> seen{{start, 0}}; // term -> number of kept steps
    std::vector<size_t> kept;
    for (size_t i = 0; i < terms.size(); ++i) {
        auto it = seen.find(terms[i]);
        if (it == seen.end()) {
            kept.push_back(i);
            seen.emplace(terms[i], kept.size());
            continue;
        }
        while (kept.size() > it->second) {
            seen.erase(terms[kept.back()]);
            kept.pop_back();
        }
    }
    return kept;
}

} // namespace

Explanation explain(const EGraph& g, const RuleNames& rules, ENodeId a, ENodeId b,
                    const std::vector<std::string>& freeNames) {
    Explanation out;
    Terms t(g);
    TermId start = t.build(a);
    out.start = showTerm(g, t.arena, start, freeNames);
    out.equal = g.findConst(a) == g.findConst(b);
    if (!out.equal) {
        return out;
    }
    if (!g.explanations) { // no union forest was recorded
        throw Error(ErrorKind::Internal, "explain: the e-graph records no explanations");
    }
    std::vector<RawStep> raw;
    std::vector<size_t> at;
    Explainer(g).explain(a, b, at, raw);
    std::vector<TermId> terms;
    TermId current = start;
    for (const RawStep& s : raw) {
        current = t.replace(current, s.path, 0, t.build(s.to));
        terms.push_back(current);
    }
    for (size_t i : withoutLoops(start, terms)) {
        out.steps.push_back(
            {rules.name(raw[i].rule), raw[i].forward, showTerm(g, t.arena, terms[i], freeNames)});
    }
    return out;
}

} // namespace egopt::egraph
