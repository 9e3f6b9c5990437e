// Neighbours of a term (docs/extraction.md, "Refinement"): the terms one choice away from it, for
// a local search that a model seeing the generated kernel ranks. Terms are context-free (an
// e-node over child terms), so a term is valid in a state when some edge of the state has its
// e-node and its children are valid in the edge's child states; a swap changes one e-node and
// keeps the rest of the term, which then only has to be valid in the new contexts.
#include "search.hpp"

namespace egopt::extract::detail {

struct Search::Refine {
    std::unordered_map<uint64_t, std::optional<double>> cost;
    std::unordered_map<uint64_t, std::vector<std::pair<Entry, uint32_t>>> near;
    static uint64_t key(TermRef t, uint32_t s) { return (uint64_t{t} << 32) | s; }
};

// The cheapest cost of term `t` in state `s`, or nullopt when no edge of `s` builds it.
std::optional<double> Search::costIn(TermRef t, uint32_t s, Refine& r) {
    uint64_t key = Refine::key(t, s);
    if (auto it = r.cost.find(key); it != r.cost.end()) {
        return it->second;
    }
    r.cost[key] = std::nullopt; // a term never contains itself, but stay safe on malformed input
    std::span<const TermRef> kids = terms_.children(t);
    std::optional<double> best;
    const State& st = states_[s];
    for (uint32_t i = st.firstEdge; i < st.firstEdge + st.numEdges; ++i) {
        const Edge& e = edges_[i];
        if (e.node != terms_.node(t) || e.numChildren != kids.size()) {
            continue;
        }
        std::vector<Entry> entries;
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            auto kc = costIn(kids[c], childStates_[e.firstChild + c], r);
            if (!kc) {
                break;
            }
            entries.push_back({*kc, kids[c]});
        }
        if (entries.size() == e.numChildren) {
            double cost = build(s, e, entries).cost;
            best = best ? std::min(*best, cost) : cost;
        }
    }
    r.cost[key] = best;
    return best;
}

// Whether edge node `a` can replace `b` keeping b's children: another e-node of the class over
// the same child classes.
static bool swappable(const egraph::EGraph& g, egraph::ENodeId a, egraph::ENodeId b) {
    if (a == b) {
        return false;
    }
    const egraph::ENode& x = g.node(a);
    const egraph::ENode& y = g.node(b);
    if (x.children.size() != y.children.size()) {
        return false;
    }
    for (size_t i = 0; i < x.children.size(); ++i) {
        if (g.findConst(x.children[i]) != g.findConst(y.children[i])) {
            return false;
        }
    }
    return true;
}

// The terms of state `s` one swap away from `t`, each with the depth of its swap (0: t's root).
const std::vector<std::pair<Entry, uint32_t>>& Search::neighboursIn(TermRef t, uint32_t s,
                                                                    Refine& r) {
    uint64_t key = Refine::key(t, s);
    if (auto it = r.near.find(key); it != r.near.end()) {
        return it->second;
    }
    r.near[key] = {}; // guards recursion on malformed input, as in costIn
    std::vector<std::pair<Entry, uint32_t>> out;
    std::vector<TermRef> kids(terms_.children(t).begin(), terms_.children(t).end());
    const State& st = states_[s];
    for (uint32_t i = st.firstEdge; i < st.firstEdge + st.numEdges; ++i) {
        const Edge e = edges_[i];
        bool same = e.node == terms_.node(t);
        if (e.numChildren != kids.size() || (!same && !swappable(g_, e.node, terms_.node(t)))) {
            continue;
        }
        std::vector<std::optional<double>> costs;
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            costs.push_back(costIn(kids[c], childStates_[e.firstChild + c], r));
        }
        auto entries = [&](uint32_t skip) {
            std::vector<Entry> v;
            for (uint32_t c = 0; c < e.numChildren; ++c) {
                v.push_back({c == skip || !costs[c] ? 0.0 : *costs[c], kids[c]});
            }
            return v;
        };
        auto valid = [&](uint32_t skip) {
            for (uint32_t c = 0; c < e.numChildren; ++c) {
                if (c != skip && !costs[c]) {
                    return false;
                }
            }
            return true;
        };
        if (!same) {
            if (valid(e.numChildren) && !(kids.size() && terms_.contains(kids, e.node))) {
                out.push_back({build(s, e, entries(e.numChildren)), 0});
            }
            continue;
        }
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            if (!valid(c)) {
                continue;
            }
            // Copied: the recursion may grow the memo and move the vector it refers to.
            auto below = neighboursIn(kids[c], childStates_[e.firstChild + c], r);
            for (const auto& [n, depth] : below) {
                std::vector<Entry> v = entries(c);
                v[c] = n;
                std::vector<TermRef> terms(kids);
                terms[c] = n.term;
                if (!terms_.contains(terms, e.node)) {
                    out.push_back({build(s, e, v), depth + 1});
                }
            }
        }
    }
    // One entry per term: the cheapest way to build it, at its shallowest swap.
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.first.term != b.first.term ? a.first.term < b.first.term
               : a.second != b.second       ? a.second < b.second
                                            : a.first.cost < b.first.cost;
    });
    out.erase(
        std::unique(out.begin(), out.end(),
                    [](const auto& a, const auto& b) { return a.first.term == b.first.term; }),
        out.end());
    return r.near[key] = std::move(out);
}

std::vector<Entry> Search::neighbours(TermRef t) {
    std::vector<Entry> out;
    if (states_.empty()) {
        return out;
    }
    Refine r;
    std::vector<std::pair<Entry, uint32_t>> near = neighboursIn(t, 0, r);
    // Ties by structure, not by term id: ids follow the order the search built terms in.
    std::sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
        if (a.second != b.second) {
            return a.second < b.second;
        }
        if (a.first.cost != b.first.cost) {
            return a.first.cost < b.first.cost;
        }
        return terms_.structurallyLess(a.first.term, b.first.term);
    });
    for (const auto& [e, depth] : near) {
        if (e.term != t) {
            out.push_back(e);
        }
    }
    return out;
}

} // namespace egopt::extract::detail
