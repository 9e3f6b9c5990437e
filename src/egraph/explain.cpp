// Explanations from the union forest.
#include "egopt/egraph/explain.hpp"

#include <deque>
#include <unordered_map>

namespace egopt::egraph {

namespace {

struct RawStep {
    uint32_t rule;
    bool forward;
    std::vector<size_t> path; // child indices from the root
    ENodeId to;
};

class Explainer {
public:
    explicit Explainer(const EGraph& g) : g_(g) {}

    // Edges of the forest path from a to b (both in one class).
    std::vector<std::pair<ENodeId, EGraph::ProofEdge>> path(ENodeId a, ENodeId b) const {
        std::unordered_map<ENodeId, std::pair<ENodeId, EGraph::ProofEdge>> via;
        std::deque<ENodeId> todo{a};
        via.emplace(a, std::pair(a, EGraph::ProofEdge{}));
        while (!todo.empty() && !via.count(b)) {
            ENodeId x = todo.front();
            todo.pop_front();
            for (const auto& e : g_.proofEdges()[x]) {
                if (via.emplace(e.other, std::pair(x, e)).second) {
                    todo.push_back(e.other);
                }
            }
        }
        std::vector<std::pair<ENodeId, EGraph::ProofEdge>> out;
        for (ENodeId x = b; x != a;) {
            auto [from, edge] = via.at(x);
            out.emplace_back(from, edge);
            x = from;
        }
        return {out.rbegin(), out.rend()};
    }

    void explain(ENodeId a, ENodeId b, std::vector<size_t>& at, std::vector<RawStep>& out,
                 size_t depth) {
        if (a == b || depth > 10000) {
            return;
        }
        for (const auto& [from, edge] : path(a, b)) {
            if (edge.why.kind == Justification::Kind::Rule) {
                out.push_back({edge.why.rule, edge.forward, at, edge.other});
                continue;
            }
            const ENode& x = g_.originalNode(from);
            const ENode& y = g_.originalNode(edge.other);
            for (size_t i = 0; i < x.children.size(); ++i) {
                at.push_back(i);
                explain(x.children[i], y.children[i], at, out, depth + 1);
                at.pop_back();
            }
        }
    }

    // The exact term of an id, as inserted.
    TermId build(ENodeId id, TermArena& t) const {
        const ENode& n = g_.originalNode(id);
        TermNode node;
        node.op = n.op;
        node.ival = n.ival;
        node.sizes = g_.attrOf(n).sizes;
        node.types = g_.attrOf(n).types;
        for (EClassId c : n.children) {
            node.children.push_back(build(c, t));
        }
        return t.add(std::move(node));
    }

    TermId replace(TermArena& t, TermId root, const std::vector<size_t>& at, size_t i,
                   TermId with) const {
        if (i == at.size()) {
            return with;
        }
        TermNode n = t.at(root);
        n.children.at(at[i]) = replace(t, n.children[at[i]], at, i + 1, with);
        return t.add(std::move(n));
    }

private:
    const EGraph& g_;
};

} // namespace

Explanation explain(const EGraph& g, ENodeId a, ENodeId b,
                    const std::vector<std::string>& freeNames) {
    Explanation out;
    Explainer ex(g);
    TermArena t;
    TermId current = ex.build(a, t);
    out.start = showTerm(g, t, current, freeNames);
    out.equal = g.findConst(a) == g.findConst(b);
    if (!out.equal) {
        return out;
    }
    std::vector<RawStep> raw;
    std::vector<size_t> at;
    ex.explain(a, b, at, raw, 0);
    for (const RawStep& s : raw) {
        current = ex.replace(t, current, s.path, 0, ex.build(s.to, t));
        out.steps.push_back(
            {g.ruleNames().at(s.rule), s.forward, showTerm(g, t, current, freeNames)});
    }
    return out;
}

} // namespace egopt::egraph
