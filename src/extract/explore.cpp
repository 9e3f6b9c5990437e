// Exploration (docs/extraction.md): random terms of the root drawn from the search's states and
// K-best lists, for rankings that the per-e-node cost cannot make (the pipeline's cost model
// reads the generated kernel's accesses).
#include "search.hpp"

#include <random>

namespace egopt::extract::detail {

struct Search::Draw {
    const ExploreOptions& opt;
    std::mt19937_64 rng;

    // Uniform in [0, n) without std::uniform_int_distribution, whose output differs between
    // standard libraries (draws must be the same everywhere for a seed).
    size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }
    bool chance(double p) { return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p; }
};

Entry Search::build(uint32_t s, const Edge& e, std::span<const Entry> kids) {
    std::vector<ChildChoice> choices;
    std::vector<TermRef> kidTerms;
    for (uint32_t c = 0; c < e.numChildren; ++c) {
        uint32_t cs = childStates_[e.firstChild + c];
        choices.push_back(
            {states_[cs].eclass, states_[cs].ctx, terms_.node(kids[c].term), kids[c].cost});
        kidTerms.push_back(kids[c].term);
    }
    const State& st = states_[s];
    CostInput in{g_, st.eclass, g_.node(e.node), st.ctx, types_[st.types], choices, sizes_};
    return Entry{cost_.cost(in), terms_.make(e.node, kidTerms)};
}

// One of the state's listed terms (the K best), uniformly.
Entry Search::keepListed(uint32_t s, Draw& d) {
    const std::vector<Entry>& list = lists_[s];
    return list[d.below(list.size())];
}

// The edges of state `s` whose children all have terms.
std::vector<uint32_t> Search::viableEdges(uint32_t s) const {
    const State& st = states_[s];
    std::vector<uint32_t> out;
    for (uint32_t i = st.firstEdge; i < st.firstEdge + st.numEdges; ++i) {
        const Edge& e = edges_[i];
        bool ok = true;
        for (uint32_t c = 0; c < e.numChildren && ok; ++c) {
            ok = !lists_[childStates_[e.firstChild + c]].empty();
        }
        if (ok) {
            out.push_back(i);
        }
    }
    return out;
}

// A random term of state `s`: an edge uniformly among the viable ones, each child listed or
// drawn. nullopt when the state has no term at all. A drawn e-node that already occurs below
// (a cycle) is retried a few times, then the state's best listed term is taken.
std::optional<Entry> Search::draw(uint32_t s, size_t depth, Draw& d) {
    if (lists_[s].empty()) {
        return std::nullopt;
    }
    if (depth >= d.opt.maxDepth) {
        return keepListed(s, d);
    }
    std::vector<uint32_t> viable = viableEdges(s);
    std::vector<Entry> kids;
    std::vector<TermRef> kidTerms;
    for (int attempt = 0; attempt < 4 && !viable.empty(); ++attempt) {
        const Edge& e = edges_[viable[d.below(viable.size())]];
        kids.clear();
        kidTerms.clear();
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            uint32_t cs = childStates_[e.firstChild + c];
            std::optional<Entry> kid;
            if (!d.chance(d.opt.keep)) {
                kid = draw(cs, depth + 1, d);
            }
            kids.push_back(kid ? *kid : keepListed(cs, d));
            kidTerms.push_back(kids.back().term);
        }
        if (!kidTerms.empty() && terms_.contains(kidTerms, e.node)) {
            continue;
        }
        return build(s, e, kids);
    }
    return lists_[s].front();
}

std::vector<Entry> Search::explore(const ExploreOptions& opt) {
    std::vector<Entry> out;
    if (states_.empty() || opt.draws == 0) {
        return out;
    }
    Draw d{opt, std::mt19937_64(opt.seed)};
    std::unordered_set<TermRef> seen;
    for (size_t i = 0; i < opt.draws; ++i) {
        std::optional<Entry> e = draw(0, 0, d);
        if (!e) {
            break; // the root has no term
        }
        if (seen.insert(e->term).second) {
            out.push_back(*e);
        }
    }
    return out;
}

} // namespace egopt::extract::detail
