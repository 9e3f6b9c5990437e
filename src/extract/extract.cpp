// Ranked terms to candidates: conversion to programs, tuning variables, and the code
// generator filter.
#include "egopt/extract/extract.hpp"

#include "egopt/lift/patterns.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/support/clock.hpp"
#include "egopt/support/diagnostic.hpp"
#include "search.hpp"

#include <chrono>
#include <map>
#include <numeric>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>
#include <set>
#include <unordered_set>

namespace egopt::extract {

namespace {

RankedTerm rankedTerm(const detail::Search& search, const detail::Entry& e) {
    RankedTerm r;
    r.root = search.terms().toTerm(e.term, r.terms);
    r.cost = e.cost;
    return r;
}

// The search's K best of the root and, with `explore`, exploration's distinct draws; timed.
std::vector<detail::Entry> runSearch(detail::Search& search, egraph::EClassId root,
                                     const SearchOptions& opt, ExtractStats& st,
                                     std::vector<detail::Entry>* drawn) {
    auto start = std::chrono::steady_clock::now();
    std::vector<detail::Entry> best = search.run(root, st, opt.maxUpdates, opt.stop);
    best.resize(std::min(best.size(), opt.count));
    auto searched = std::chrono::steady_clock::now();
    st.seconds = std::chrono::duration<double>(searched - start).count();
    if (drawn && !(opt.stop && opt.stop())) {
        *drawn = search.explore(opt.explore, st.guidedDrawn);
        st.exploreSeconds = secondsSince(searched);
    }
    return best;
}

} // namespace

std::vector<RankedTerm> extractTerms(const egraph::EGraph& g, egraph::EClassId root,
                                     const CostFunction& cost, const SearchOptions& opt,
                                     ExtractStats* stats, std::vector<RankedTerm>* explored) {
    ExtractStats local;
    detail::Search search(g, cost, opt);
    std::vector<detail::Entry> drawn;
    std::vector<RankedTerm> out;
    for (const detail::Entry& e :
         runSearch(search, root, opt, stats ? *stats : local, explored ? &drawn : nullptr)) {
        out.push_back(rankedTerm(search, e));
    }
    for (const detail::Entry& e : drawn) {
        explored->push_back(rankedTerm(search, e));
    }
    return out;
}

namespace {

// Generates code for a candidate at the given sizes; returns the reason it was rejected. The
// generated source goes to `source`.
std::optional<std::string> codegenCheck(Candidate& c, const ExtractOptions& opt,
                                        std::string& source) {
    try {
        c.tuningValues =
            chooseTuningValues(c.tuning, opt.sizes, opt.tuningValues, opt.tuningTarget);
        arith::Bindings sizes = opt.sizes;
        sizes.insert(c.tuningValues.begin(), c.tuningValues.end());
        lift::Program p = c.program;
        lift::TypeInfo info = lift::typecheck(p);
        codegen::GeneratedCode code = codegen::generate(p, info, sizes, opt.codegen);
        if (opt.buildOn) {
            opt.buildOn->build(code.source, code.kernel.name);
        }
        source = std::move(code.source);
        return std::nullopt;
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
}

void collectDims(const egraph::TermArena& t, egraph::TermId id,
                 std::map<lift::Op, std::set<int32_t>>& dims) {
    const egraph::TermNode& n = t.at(id);
    if (lift::isThreadMap(n.op)) {
        dims[n.op].insert(n.ival);
    }
    for (egraph::TermId c : n.children) {
        collectDims(t, c, dims);
    }
}

egraph::TermId renumber(const egraph::TermArena& in, egraph::TermId id,
                        const std::map<lift::Op, std::set<int32_t>>& dims, egraph::TermArena& out) {
    egraph::TermNode n = in.at(id);
    if (lift::isThreadMap(n.op) && dims.at(n.op).size() == 1) {
        n.ival = 0;
    }
    for (egraph::TermId& c : n.children) {
        c = renumber(in, c, dims, out);
    }
    return out.add(std::move(n));
}

// The term with the dimension of every kind of thread map that uses a single dimension set to 0
// (MapGlb(1) alone runs as MapGlb(0) does); nullopt when it is unchanged. Nests over several
// dimensions are kept: which dimension is innermost decides coalescing.
std::optional<std::pair<egraph::TermArena, egraph::TermId>>
dimensionNormalised(const egraph::TermArena& t, egraph::TermId root) {
    std::map<lift::Op, std::set<int32_t>> dims;
    collectDims(t, root, dims);
    bool changed = false;
    for (const auto& [op, ds] : dims) {
        changed = changed || (ds.size() == 1 && *ds.begin() != 0);
    }
    if (!changed) {
        return std::nullopt;
    }
    egraph::TermArena out;
    egraph::TermId r = renumber(t, root, dims, out);
    return std::make_pair(std::move(out), r);
}

// The key under which candidates count as the same kernel: the generated source of the
// dimension-normalised term (identical code up to toGlobal placements that change nothing, no-op
// layouts that index simplification removes, or the dimension of a one-dimensional map).
std::string kernelKey(const egraph::EGraph& g, const RankedTerm& r, const egraph::Signature& sig,
                      const Candidate& c, const ExtractOptions& opt, std::string source) {
    auto norm = dimensionNormalised(r.terms, r.root);
    if (!norm) {
        return source;
    }
    try {
        Candidate n;
        n.program = egraph::termToProgram(g, norm->first, norm->second, sig);
        n.tuning = c.tuning;
        n.program.sizeVars = c.program.sizeVars;
        ExtractOptions o = opt;
        o.buildOn = nullptr;
        std::string normalised;
        if (!codegenCheck(n, o, normalised)) {
            return normalised;
        }
    } catch (const std::exception&) {
    }
    return source;
}

// What the code generator filter finds for one ranked term, computed from read-only state (so
// that many terms are examined in parallel): a candidate and its kernel key, or why not.
struct Examined {
    std::optional<Candidate> candidate;
    std::string text; // the term, shown
    std::string why;  // the rejection's reason when there is no candidate
    std::string key;  // the kernel key (ExtractOptions::distinctKernels)
};

Examined examine(const egraph::EGraph& g, const egraph::TuningSpace& tuning, const RankedTerm& r,
                 size_t rank, const egraph::Signature& sig, const ExtractOptions& opt) {
    Examined out;
    Candidate c;
    c.cost = r.cost;
    c.rank = rank;
    c.text = out.text = egraph::showTerm(g, r.terms, r.root, sig.names);
    try {
        c.program = egraph::termToProgram(g, r.terms, r.root, sig);
    } catch (const std::exception& e) {
        out.why = e.what();
        return out;
    }
    c.tuning = tuningVariables(tuning, c.program);
    for (const TuningVar& t : c.tuning) {
        c.program.sizeVars.push_back(t.name);
    }
    if (opt.checkCodegen) {
        std::string source;
        if (auto why = codegenCheck(c, opt, source)) {
            out.why = *why;
            return out;
        }
        if (opt.distinctKernels) {
            out.key = kernelKey(g, r, sig, c, opt, std::move(source));
        }
    }
    out.candidate = std::move(c);
    return out;
}

// The filter's bookkeeping for one examined term, in the order the terms are taken: a candidate,
// or nullopt with the term listed in `result.rejected` or `result.duplicates`. `kernels` maps
// kernel keys to candidate labels.
std::optional<Candidate> claim(Examined e, size_t rank, double cost,
                               std::map<std::string, std::string>& kernels,
                               const std::string& label, ExtractResult& result) {
    if (!e.candidate) {
        result.rejected.push_back({rank, cost, std::move(e.text), std::move(e.why)});
        return std::nullopt;
    }
    if (!e.key.empty()) {
        auto [it, fresh] = kernels.emplace(std::move(e.key), label);
        if (!fresh) {
            result.duplicates.push_back({rank, cost, e.text, "the same kernel as " + it->second});
            return std::nullopt;
        }
    }
    return std::move(e.candidate);
}

// `terms` examined in parallel, in their order.
std::vector<Examined> examineAll(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                                 const detail::Search& search,
                                 const std::vector<detail::Entry>& terms, size_t firstRank,
                                 const egraph::Signature& sig, const ExtractOptions& opt) {
    std::vector<Examined> out(terms.size());
    tbb::parallel_for(size_t{0}, terms.size(), [&](size_t i) {
        out[i] = examine(g, tuning, rankedTerm(search, terms[i]), firstRank + i, sig, opt);
    });
    return out;
}

// Exploration's drawn terms through the same filter, after the candidates (so a drawn kernel
// that repeats a candidate's is a duplicate). Rejections are not listed with the candidates':
// most drawn terms are poor, and their reasons would drown the candidates'; the guided draws'
// (a macro's or the shape goal's replays) are kept apart, the first few with their reasons.
// Returns the accepted terms.
std::vector<detail::TermRef>
acceptExplored(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
               const detail::Search& search, const std::vector<detail::Entry>& drawn,
               const egraph::Signature& sig, const ExtractOptions& opt,
               std::map<std::string, std::string>& kernels, ExtractResult& result) {
    result.exploreDrawn = drawn.size();
    ExtractResult scratch;
    std::vector<detail::TermRef> accepted;
    // In chunks examined in parallel, claimed in order; the time budget is checked per chunk.
    constexpr size_t kChunk = 32;
    std::vector<Examined> chunk;
    for (size_t i = 0; i < drawn.size() && i < opt.exploreChecks; ++i) {
        if (i % kChunk == 0) {
            if (opt.stopExploring && opt.stopExploring()) {
                break;
            }
            size_t end = std::min({i + kChunk, drawn.size(), opt.exploreChecks});
            chunk = examineAll(
                g, tuning, search,
                std::vector<detail::Entry>(drawn.begin() + long(i), drawn.begin() + long(end)), i,
                sig, opt);
        }
        ++result.exploreChecked;
        std::string label = "explored term " + std::to_string(result.explored.size());
        size_t rejectedBefore = scratch.rejected.size();
        bool guided = i < result.stats.guidedDrawn;
        auto c = claim(std::move(chunk[i % kChunk]), i, drawn[i].cost, kernels, label, scratch);
        if (guided && scratch.rejected.size() > rejectedBefore) {
            ++result.guidedRejectedCount;
            if (result.guidedRejected.size() < ExtractResult::kGuidedRejectionsKept) {
                result.guidedRejected.push_back(scratch.rejected.back());
            }
        }
        if (c) {
            c->explored = true;
            c->guided = guided;
            if (c->guided) {
                c->guide = drawn[i].guide;
                c->guideHits = drawn[i].guideHits;
                c->threadMaps = drawn[i].threadMaps;
            }
            result.explored.push_back(std::move(*c));
            accepted.push_back(drawn[i].term);
        }
    }
    return accepted;
}

// The code generator filter over ranked terms in order, until `k` candidates are taken from them
// or a term costs over maxCostRatio x the first one taken. Returns the taken terms. The terms are
// examined in parallel a chunk at a time and taken in order (the same candidates as one at a time;
// at most a chunk's worth of terms is examined in vain).
std::vector<detail::TermRef>
takeRanked(const egraph::EGraph& g, const egraph::TuningSpace& tuning, const detail::Search& search,
           const std::vector<detail::Entry>& ranked, size_t k, bool secondView,
           const egraph::Signature& sig, const ExtractOptions& opt,
           std::map<std::string, std::string>& kernels, ExtractResult& result) {
    constexpr size_t kChunk = 16;
    std::vector<detail::TermRef> taken;
    std::optional<double> first;
    std::vector<Examined> chunk;
    for (size_t rank = 0; rank < ranked.size() && taken.size() < k; ++rank) {
        const detail::Entry& r = ranked[rank];
        if (opt.maxCostRatio > 0 && first && r.cost > opt.maxCostRatio * *first) {
            result.beyondCostRatio += ranked.size() - rank; // ranked is in cost order
            break;
        }
        if (rank % kChunk == 0) {
            size_t end = std::min(rank + kChunk, ranked.size());
            chunk = examineAll(
                g, tuning, search,
                std::vector<detail::Entry>(ranked.begin() + long(rank), ranked.begin() + long(end)),
                rank, sig, opt);
        }
        std::string label = "candidate " + std::to_string(result.candidates.size());
        if (auto c = claim(std::move(chunk[rank % kChunk]), rank, r.cost, kernels, label, result)) {
            c->secondView = secondView;
            first = first.value_or(c->cost);
            result.candidates.push_back(std::move(*c));
            taken.push_back(r.term);
        }
    }
    return taken;
}

// A term the refinement may expand: its rank, and whether its neighbours were checked.
struct Seed {
    double rank;
    detail::TermRef term;
    bool expanded = false;
};

// Rounds of the local search (ExtractOptions::refineRounds): the best unexpanded seeds' neighbours
// through the filter, the remaining checks shared equally among a round's seeds.
void refine(const egraph::EGraph& g, const egraph::TuningSpace& tuning, detail::Search& search,
            std::vector<Seed> pool, std::unordered_set<detail::TermRef> seen,
            const egraph::Signature& sig, const ExtractOptions& opt,
            std::map<std::string, std::string>& kernels, ExtractResult& result) {
    ExtractResult scratch;
    while (result.refineRounds < opt.refineRounds && result.refineChecked < opt.refineChecks) {
        std::vector<size_t> order(pool.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return pool[a].rank < pool[b].rank; });
        std::vector<size_t> seeds;
        for (size_t i : order) {
            if (!pool[i].expanded && seeds.size() < opt.refineSeeds) {
                seeds.push_back(i);
            }
        }
        if (seeds.empty() || (opt.stopExploring && opt.stopExploring())) {
            break;
        }
        ++result.refineRounds;
        size_t share = (opt.refineChecks - result.refineChecked + seeds.size() - 1) / seeds.size();
        for (size_t i : seeds) {
            pool[i].expanded = true;
            if (opt.stopExploring && opt.stopExploring()) {
                break;
            }
            // The seed's unseen neighbours within its share, examined in parallel, then taken
            // in order.
            std::vector<detail::Entry> fresh;
            for (const detail::Entry& n : search.neighbours(pool[i].term)) {
                if (fresh.size() == share ||
                    result.refineChecked + fresh.size() == opt.refineChecks) {
                    break;
                }
                if (seen.insert(n.term).second) {
                    fresh.push_back(n);
                }
            }
            std::vector<Examined> examined = examineAll(g, tuning, search, fresh, 0, sig, opt);
            // Claimed in order (the kernel map decides duplicates), then ranked in parallel:
            // each rank generates the kernel at the real sizes.
            std::vector<std::optional<Candidate>> claimed;
            for (size_t k = 0; k < fresh.size(); ++k) {
                ++result.refineChecked;
                std::string label = "refinement's term " + std::to_string(k);
                claimed.push_back(
                    claim(std::move(examined[k]), 0, fresh[k].cost, kernels, label, scratch));
            }
            std::vector<std::optional<double>> ranks(claimed.size());
            tbb::parallel_for(size_t{0}, claimed.size(), [&](size_t k) {
                if (claimed[k]) {
                    ranks[k] = opt.rank(*claimed[k]);
                }
            });
            for (size_t k = 0; k < claimed.size(); ++k) {
                if (!ranks[k]) {
                    continue;
                }
                claimed[k]->explored = true;
                result.explored.push_back(std::move(*claimed[k]));
                ++result.refineAccepted;
                pool.push_back({*ranks[k], fresh[k].term});
            }
        }
    }
}

} // namespace

ExtractResult extractCandidates(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                                egraph::EClassId root, const egraph::Signature& sig,
                                const CostFunction& cost, const ExtractOptions& opt) {
    ExtractResult result;
    SearchOptions so{opt.k * std::max<size_t>(opt.poolFactor, 1),
                     opt.k,
                     opt.sizes,
                     opt.multipleKernels,
                     opt.maxUpdates,
                     opt.explore,
                     opt.stopSearch,
                     opt.perStateFor};
    so.distinctShapes = opt.distinctShapes;
    detail::Search search(g, cost, so);
    // The second view's search runs beside the first (its own terms, states and cost object;
    // both only read the e-graph); its candidates still come after the first view's.
    SearchOptions second = so;
    second.explore.draws = 0; // exploration draws from the first view's search
    std::optional<detail::Search> secondSearch;
    ExtractStats secondStats;
    std::vector<detail::Entry> secondBest;
    tbb::task_group group;
    if (opt.secondCost && opt.secondK > 0) {
        secondSearch.emplace(g, *opt.secondCost, second);
        group.run(
            [&] { secondBest = runSearch(*secondSearch, root, second, secondStats, nullptr); });
    }
    std::vector<detail::Entry> drawn;
    std::vector<detail::Entry> ranked = runSearch(search, root, so, result.stats, &drawn);
    result.exploreSeconds = result.stats.exploreSeconds;
    std::map<std::string, std::string> kernels; // kernel key -> the candidate that has it
    // The first view's filter runs while the second view may still be searching.
    std::vector<detail::TermRef> candidateTerms =
        takeRanked(g, tuning, search, ranked, opt.k, false, sig, opt, kernels, result);
    group.wait();
    if (secondSearch) {
        result.stats.seconds = std::max(result.stats.seconds, secondStats.seconds); // together
        result.stats.truncated = result.stats.truncated || secondStats.truncated;
        takeRanked(g, tuning, *secondSearch, secondBest, opt.secondK, true, sig, opt, kernels,
                   result);
    }
    auto start = std::chrono::steady_clock::now();
    std::vector<detail::TermRef> explored =
        acceptExplored(g, tuning, search, drawn, sig, opt, kernels, result);
    auto explorationDone = std::chrono::steady_clock::now();
    result.exploreSeconds += std::chrono::duration<double>(explorationDone - start).count();
    if (opt.rank && opt.refineRounds > 0) {
        std::vector<Seed> pool;
        std::unordered_set<detail::TermRef> seen;
        // The first view's candidates and the accepted draws, ranked in parallel, in order.
        std::vector<std::pair<const Candidate*, detail::TermRef>> start;
        for (size_t i = 0; i < candidateTerms.size(); ++i) {
            start.emplace_back(&result.candidates[i], candidateTerms[i]);
        }
        for (size_t i = 0; i < explored.size(); ++i) {
            start.emplace_back(&result.explored[i], explored[i]);
        }
        std::vector<std::optional<double>> ranks(start.size());
        tbb::parallel_for(size_t{0}, start.size(),
                          [&](size_t i) { ranks[i] = opt.rank(*start[i].first); });
        for (size_t i = 0; i < start.size(); ++i) {
            seen.insert(start[i].second);
            if (ranks[i]) {
                pool.push_back({*ranks[i], start[i].second});
            }
        }
        for (const detail::Entry& d : drawn) {
            seen.insert(d.term); // checked already, or beyond exploreChecks
        }
        refine(g, tuning, search, std::move(pool), std::move(seen), sig, opt, kernels, result);
        result.refineSeconds = secondsSince(explorationDone);
    }
    return result;
}

} // namespace egopt::extract
