// Extraction and exploration in the pipeline (pipeline.hpp, docs/extraction.md): the K best
// candidates of the e-graph, and the explored terms the cost model predicts fastest.
#include "stages.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tbb/parallel_for.h>
#include <unordered_set>

namespace egopt::pipeline {

namespace {

constexpr size_t kGuidedPredictions = 64; // the model's descent per guided replay
constexpr size_t kGoalGuides = 4;         // the newest shared reductions replayed (--no-macros)
constexpr size_t kGoalGuidedDraws = 16;   // guided draws per goal guide (--no-macros)
const std::string kGoalRule = "goal: shared reduction";
// The growth's 2-D blocks of vector accumulators (growVectorBlocks): their own guides and
// guided slots, so that they join the candidates besides the scalar blocks, not instead.
constexpr size_t kBlockGuides = 2;
const std::string kBlockRule = "goal: block of vectors";
bool isGoalRule(const std::string& rule) {
    return rule == kGoalRule || rule == kBlockRule;
}
constexpr size_t kTileGuides = 8; // the oldest local tiles replayed (--no-macros)
const std::string kTileRule = "local tile";
const std::string kAroundGoal = " around the goal"; // a tile guide with a goal guide below

bool aroundGoal(const std::string& rule) {
    return rule.size() > kAroundGoal.size() &&
           rule.compare(rule.size() - kAroundGoal.size(), kAroundGoal.size(), kAroundGoal) == 0;
}

// Exploration's accepted terms that join the candidates: first the `options.search.keepGuided`
// guided slots, each macro rule's best replay (the most of the rule's e-nodes, then the fastest
// predicted), the fastest of those as predicted at the model's best tuning values near the
// defaults (modelDescent), each at most `exploreRatio` times the best candidate's prediction.
// That prediction, not the one at default values, because a macro's schedule at default tuning
// values can be far from its tuned time (mm's register blocking at 64 x 64 work-items, a
// work-group tree whose last fold is one work-item's). Then the `options.search.keep` others the
// model predicts fastest at their default tuning values, within the same bound.
void addExplored(Work& w, extract::ExtractResult& r, const std::vector<std::string>& guideRule,
                 const std::vector<size_t>& guideSize, Result& result) {
    auto predicted = [&w](const extract::Candidate& c) { return w.predictAtDefaults(c); };
    double bound = 1e30;
    for (const auto& c : r.candidates) {
        if (auto p = predicted(c)) {
            bound = std::min(bound, *p * w.options.search.ratio);
        }
    }
    // The model's prediction at its best tuning values near the defaults (modelDescent), once
    // per explored term; computed for several terms at once, in parallel (each prediction
    // generates a kernel at the real sizes).
    std::map<size_t, std::optional<double>> tuned;
    auto tuneAll = [&](const std::vector<size_t>& terms) {
        std::vector<std::optional<double>> out(terms.size());
        tbb::parallel_for(size_t{0}, terms.size(), [&](size_t k) {
            const extract::Candidate& c = r.explored[terms[k]];
            out[k] = modelDescent(
                         Space(c.tuning, w.sizes),
                         [&](const arith::Bindings& v) { return w.predict(c, v); },
                         kGuidedPredictions, kDefaultTuningValue)
                         .second;
        });
        for (size_t k = 0; k < terms.size(); ++k) {
            tuned[terms[k]] = out[k];
        }
    };
    auto predictedTuned = [&](size_t i) {
        if (!tuned.count(i)) {
            tuneAll({i});
        }
        return tuned.at(i);
    };
    std::vector<std::optional<double>> atDefaults(r.explored.size());
    tbb::parallel_for(size_t{0}, r.explored.size(),
                      [&](size_t i) { atDefaults[i] = predicted(r.explored[i]); });
    std::vector<size_t> unfit; // guided replays whose defaults do not fit the device
    for (size_t i = 0; i < r.explored.size(); ++i) {
        if (!atDefaults[i] && r.explored[i].guided) {
            unfit.push_back(i);
        }
    }
    tuneAll(unfit);
    std::vector<std::pair<double, size_t>> keyed;
    // Per macro rule, its replay with the most of the rule's e-nodes, then the fastest predicted.
    // rule: partial, rank, -hits, -thread maps, p, i. The shape goal's guides come in the order of
    // the goal properties their shared reductions meet (sharedReductions): a replay of an earlier
    // guide first, but a replay that took all its guide's e-nodes before one that did not (a
    // guide's application may stand in no context, and its replay then holds another form). The
    // goal keeps its `keepGuided` best replays (the guided slots are the goal's without macros, and
    // the model's prediction of a replay's maps above its loop is poor: two ways down, not one).
    using ReplayKey = std::tuple<bool, size_t, int64_t, int64_t, double, size_t>;
    std::map<std::string, std::vector<ReplayKey>> bestReplays;
    for (size_t i = 0; i < r.explored.size(); ++i) {
        auto p = atDefaults[i];
        if (!p && r.explored[i].guided) {
            // A macro's open sizes at their defaults may not fit the device at all (register
            // blocks of 64 rows): judge the replay at the model's best values instead.
            p = predictedTuned(i);
        }
        if (!p) {
            continue;
        }
        if (*p <= bound) {
            keyed.emplace_back(*p, i);
        }
        if (const auto& c = r.explored[i]; c.guided && c.guide < guideRule.size()) {
            bool goal = isGoalRule(guideRule[c.guide]);
            bool partial = goal && c.guide < guideSize.size() && c.guideHits < guideSize[c.guide];
            size_t rank = goal ? c.guide : 0;
            // Then the most maps over work-items around the replay, up to kThreadMapsCounted
            // (with threadMapsAbove; the model ranks a replay's parallel maps poorly: at mm 128^3
            // on PoCL it predicted one work-item per row of C, 45 ms, faster than a work-group per
            // block, under 1 ms). Among replays with two the model decides, which reads whose
            // dimension-0 neighbours' loads coalesce (mm 1024^3 on the H200: 3-D R x 4 blocks
            // with B's columns in dimension 2, 1.1-1.4 ms, took the slots).
            int64_t threads = goal ? -int64_t(std::min<size_t>(
                                         c.threadMaps, extract::ExploreOptions::kThreadMapsCounted))
                                   : 0;
            bestReplays[guideRule[c.guide]].emplace_back(partial, rank, -int64_t(c.guideHits),
                                                         threads, *p, i);
        }
    }
    std::vector<std::pair<std::string, ReplayKey>> bestReplay;
    for (auto& [rule, keys] : bestReplays) {
        std::sort(keys.begin(), keys.end());
        size_t n = isGoalRule(rule) ? w.options.search.keepGuided : 1;
        for (size_t k = 0; k < keys.size() && k < n; ++k) {
            bestReplay.emplace_back(rule, keys[k]);
        }
    }
    std::stable_sort(keyed.begin(), keyed.end());
    size_t within = keyed.size();
    // Per goal guide, its replays that passed the filter and the most of its e-nodes one took.
    std::map<size_t, std::pair<size_t, size_t>> perGuide;
    for (const extract::Candidate& c : r.explored) {
        if (c.guided && c.guide < guideRule.size() &&
            (isGoalRule(guideRule[c.guide]) || aroundGoal(guideRule[c.guide]))) {
            auto& [n, most] = perGuide[c.guide];
            ++n;
            most = std::max(most, c.guideHits);
        }
    }
    for (const auto& [guide, counts] : perGuide) {
        w.progress(fmt("explore: %s guide %zu: %zu replays, at most %zu of its e-nodes",
                       guideRule[guide] == kGoalRule    ? "goal"
                       : guideRule[guide] == kBlockRule ? "block of vectors"
                                                        : "local tile",
                       guide, counts.first, counts.second));
    }
    std::vector<std::pair<double, size_t>> taken;
    std::vector<size_t> replays;
    for (const auto& [rule, key] : bestReplay) {
        if (!tuned.count(std::get<5>(key))) {
            replays.push_back(std::get<5>(key));
        }
    }
    tuneAll(replays);
    std::map<size_t, std::string> replayRule; // explored term -> its guide's rule
    for (const auto& [rule, key] : bestReplay) {
        replayRule[std::get<5>(key)] = rule;
        std::optional<double> p = predictedTuned(std::get<5>(key));
        // The shape goal's replay (and a local tile around it) is a step towards a schedule,
        // kept for the next stage's beam (selectBeam) however slow it is predicted. A local
        // tile's replay is kept wherever the tuner measures it: the model does not
        // credit what its copy saves (every neighbour read from local memory), so a staged 2-D
        // tile is predicted several times slower than the maps over the neighbourhoods it beats.
        double far = w.options.tune.farRatio > 0
                         ? bound / w.options.search.ratio * w.options.tune.farRatio
                         : 1e30;
        bool tile = rule.rfind(kTileRule, 0) == 0;
        if (double at = p.value_or(std::get<4>(key));
            at <= bound || isGoalRule(rule) || aroundGoal(rule) || (tile && at <= far)) {
            taken.emplace_back(at, std::get<5>(key));
        }
    }
    std::stable_sort(taken.begin(), taken.end());
    // The goal's replays have their own `keepGuided` slots, the other rules' (macros, local
    // tiles) as many: without macros a local tile staged above the goal's loops is predicted
    // faster than the goal's replays, which are then still measured (the v x 1 register
    // blocks that are the fastest kernels on the H200 without local memory).
    // The 2-D blocks' replays have `keepGuided` slots of their own too.
    std::vector<std::pair<double, size_t>> goalSlots;
    std::vector<std::pair<double, size_t>> blockSlots;
    std::vector<std::pair<double, size_t>> otherSlots;
    // Of the others, the tiles around the goal's loops first (predicted as slowly as the goal's
    // replays, which run fastest without local memory on the H200).
    std::stable_partition(taken.begin(), taken.end(),
                          [&](const auto& t) { return aroundGoal(replayRule.at(t.second)); });
    for (const auto& t : taken) {
        const std::string& rule = replayRule.at(t.second);
        auto& slots = rule == kGoalRule ? goalSlots : rule == kBlockRule ? blockSlots : otherSlots;
        if (slots.size() < w.options.search.keepGuided) {
            slots.push_back(t);
        }
    }
    taken = std::move(goalSlots);
    taken.insert(taken.end(), blockSlots.begin(), blockSlots.end());
    taken.insert(taken.end(), otherSlots.begin(), otherSlots.end());
    std::stable_sort(taken.begin(), taken.end());
    size_t guided = taken.size();
    for (const auto& k : keyed) {
        if (taken.size() - guided < w.options.search.keep &&
            std::none_of(taken.begin(), taken.end(),
                         [&](const auto& t) { return t.second == k.second; })) {
            taken.push_back(k);
        }
    }
    keyed = std::move(taken);
    w.progress(fmt("explore: %zu draws, %zu distinct terms, %zu checked, %zu new kernels (%.2f "
                   "s); refinement: %zu rounds, %zu neighbours checked, %zu new kernels (%.2f s); "
                   "%zu predicted within %.0fx the best candidate, %zu taken (%zu of guided draws)",
                   w.options.search.draws, r.exploreDrawn, r.exploreChecked,
                   r.explored.size() - r.refineAccepted, r.exploreSeconds, r.refineRounds,
                   r.refineChecked, r.refineAccepted, r.refineSeconds, within,
                   w.options.search.ratio, keyed.size(), guided));
    result.refineRounds = r.refineRounds;
    result.refineChecked = r.refineChecked;
    result.refineAccepted = r.refineAccepted;
    result.exploreDrawn = r.exploreDrawn;
    result.exploreChecked = r.exploreChecked;
    result.guidedRejectedCount = r.guidedRejectedCount;
    result.guidedRejected = r.guidedRejected;
    if (!r.guidedRejected.empty()) {
        w.progress(fmt("explore: %zu guided draws refused by the code generator (the report's "
                       "extraction.exploration.guided_rejections); the first: %s",
                       r.guidedRejectedCount, r.guidedRejected.front().reason.c_str()));
    }
    result.exploreAccepted = r.explored.size();
    result.exploreTaken = keyed.size();
    for (auto& [p, i] : keyed) {
        const extract::Candidate& c = r.explored[i];
        std::string how;
        if (c.guided && c.guide < guideRule.size()) {
            how = ", guided draw of " + guideRule[c.guide] + ", " + std::to_string(c.guideHits) +
                  " of its e-nodes";
        }
        if (c.guided && c.guide < guideRule.size() && guideRule[c.guide] == kGoalRule) {
            w.goalTexts.insert(c.text);
        }
        w.progress(fmt("explore: candidate %zu (predicted %.3f ms, cost %.1f%s): %s",
                       r.candidates.size(), p * 1e3, c.cost, how.c_str(),
                       c.text.substr(0, 300).c_str()));
        r.candidates.push_back(std::move(r.explored[i]));
    }
}

// The e-nodes of each application of a macro rule whose right-hand side is a schedule (a rule
// that states its composition, `by a; b; ...`, ICFP'15's macro rules: the runner records their
// applications), one guide each for exploration's guided draws, and the rule of each guide.
struct MacroGuides {
    std::vector<std::vector<egraph::ENodeId>> nodes; // in the runner's order of recording
    std::vector<std::string> rule;
};

MacroGuides macroGuides(const egraph::Applications& applications) {
    constexpr size_t kGuidesPerRule = 4;
    MacroGuides guides;
    for (const egraph::Applications::Entry& e : applications.rhs) {
        if (!e.schedule) {
            continue; // a high-level composition (register-block): no schedule to replay
        }
        // The first applications: the program's own nests (later ones rewrite the forms other
        // rules made of them, and a macro such as macro-map-wrg-lcl applies thousands of times).
        for (size_t i = 0; i < std::min(e.instances.size(), kGuidesPerRule); ++i) {
            guides.nodes.emplace_back(e.instances[i].begin(), e.instances[i].end());
            guides.rule.push_back(e.rule);
        }
    }
    return guides;
}

} // namespace

// Whether to optimise for a GPU: --search.target gpu, or auto on a device whose type says GPU.
// It selects extraction's cost views and the GPU-only rules of the lowering phase.
bool targetsGpu(const Work& w) {
    ExtractTarget t = w.options.search.target;
    return t == ExtractTarget::Gpu ||
           (t == ExtractTarget::Auto && w.bench().device().type.find("GPU") != std::string::npos);
}

std::vector<extract::Candidate> extractStage(const egraph::EGraph& g,
                                             const egraph::TuningSpace& tuning,
                                             const egraph::Inserted& ins,
                                             const egraph::Applications& applications, Work& w,
                                             Result& result) {
    auto inExtract = w.clock.enter(Stage::Extract);
    double started = w.elapsed();
    extract::ExtractOptions eo;
    eo.k = std::max<size_t>(1, w.options.search.candidates);
    eo.distinctShapes = w.options.search.distinctShapes;
    eo.sizes = w.sizes;
    eo.multipleKernels = true; // reductions need a kernel boundary to run in parallel
    eo.codegen = w.codegen;
    eo.explore.draws =
        w.options.search.keep || w.options.search.keepGuided ? w.options.search.draws : 0;
    eo.explore.seed = w.options.seed;
    MacroGuides guides = macroGuides(applications);
    std::vector<std::vector<egraph::ENodeId>> goalGuides; // sharedReductions' order
    if (w.shapeGoal) {
        // Without macros the guides are the shape goal's (docs/search-goal.md, "A shape goal").
        // The shared reductions from before the 2-D blocks' runs, then those blocks' own.
        for (auto& goal : sharedReductions(g, kGoalGuides, true, {0, w.vectorBlocksFrom})) {
            w.progress(fmt("explore: goal guide %zu: %zu e-nodes, %s, %s, %s", guides.nodes.size(),
                           goal.size(), boundedReduction(g, goal.back()) ? "bounded" : "unbounded",
                           fusedReduction(g, goal.back()) ? "fused" : "not fused",
                           fusedStep(g, goal.back()) ? "one computing map in its step"
                                                     : "products in a temporary in its step"));
            goalGuides.push_back(goal);
            guides.nodes.push_back(std::move(goal));
            guides.rule.push_back(kGoalRule);
        }
        if (w.vectorBlocksFrom < g.numNodeIds()) {
            for (auto& block : vectorBlocks(g, kBlockGuides, w.vectorBlocksFrom)) {
                w.progress(fmt("explore: block of vectors guide %zu: %zu e-nodes, %s, %s",
                               guides.nodes.size(), block.size(),
                               boundedReduction(g, block.back()) ? "bounded" : "unbounded",
                               fusedReduction(g, block.back()) ? "fused" : "not fused"));
                guides.nodes.push_back(std::move(block));
                guides.rule.push_back(kBlockRule);
            }
        }
    }
    if (w.options.saturation.noMacros) {
        // A tile staged in local memory (a stencil's overlapped tiles, stencils.rules), which
        // the structural cost ranks below reading global memory: it counts no loads.
        std::vector<std::vector<egraph::ENodeId>> tiles =
            localTiles(g, ins.root, kTileGuides, w.tileGuides);
        if (w.tileGuides.empty()) {
            w.tileGuides = tiles;
        }
        for (auto& tile : tiles) {
            // The tile around the goal's loop: where the staged element is the block every
            // work-item's shared reduction reads, a replay of the tile and the goal's first
            // guide below it stages the block and keeps the loop (a plain tile guide's way down
            // below the copy is drawn, mostly to other forms of the block's computation).
            for (size_t k = 0; k < goalGuides.size(); ++k) {
                if (tileHolds(g, tile, goalGuides[k].back())) {
                    std::vector<egraph::ENodeId> around = goalGuides[k];
                    std::vector<egraph::ENodeId> staged = withoutReaders(g, tile);
                    around.insert(around.end(), staged.begin(), staged.end());
                    w.progress(fmt("explore: local tile guide %zu: %zu e-nodes, around goal "
                                   "guide %zu",
                                   guides.nodes.size(), around.size(), k));
                    guides.nodes.push_back(std::move(around));
                    guides.rule.push_back(kTileRule + " " + std::to_string(guides.rule.size()) +
                                          kAroundGoal);
                    break;
                }
            }
            w.progress(fmt("explore: local tile guide %zu: %zu e-nodes", guides.nodes.size(),
                           tile.size()));
            guides.nodes.push_back(std::move(tile));
            // One name per guide: each replay competes for the guided slots by its prediction
            // (one rule's replays compete by the guide e-nodes they take first).
            guides.rule.push_back(kTileRule + " " + std::to_string(guides.rule.size()));
        }
    }
    eo.explore.guides = guides.nodes;
    // The goal's guides are one sequential loop: the maps above it are the parallel ones. The
    // code generator refuses many of the ways down through them (views it cannot index), which
    // the extraction's states do not know: more draws per goal guide.
    eo.explore.threadMapsAbove = w.shapeGoal;
    eo.explore.towardsRoot = w.shapeGoal;
    if (w.shapeGoal) {
        eo.explore.guidedDraws = kGoalGuidedDraws;
    }
    eo.refineRounds =
        eo.explore.draws > 0 ? w.options.search.refineRounds : 0; // part of exploration
    eo.rank = [&w](const extract::Candidate& c) { return w.predictAtDefaults(c); };
    // The search keeps what it has at its deadline; exploration only adds to the candidates.
    eo.stopSearch = [&w] { return w.stopped() || w.budget.leftUntil(Stage::Extract) < 0; };
    eo.stopExploring = [&w] { return w.stopped() || w.budget.leftUntil(Stage::Explore) < 0; };
    if (w.budget.limited()) {
        eo.perStateFor = [&w](size_t states) {
            // The search costs about this per state and term kept on the 2-core development
            // machine (mm 512^3: 688k states, 7 s at 2 terms, 43 s at 16); half the window
            // leaves room for a slower machine and the code generator filter.
            constexpr double kSecondsPerStateTerm = 5e-6;
            double window = std::max(0.0, w.budget.leftUntil(Stage::Extract)) / 2;
            return static_cast<size_t>(window / (kSecondsPerStateTerm * double(states)));
        };
    }
    // Tuning variables at plausible values; on a GPU, coalesced (strided) chunks preferred.
    bool gpu = targetsGpu(w);
    extract::StructuralCost cost(g, tuning, w.sizes,
                                 gpu ? extract::StructuralCost::Params::gpu()
                                     : extract::StructuralCost::Params{});
    // On a GPU also the occupancy view's best (cost.hpp): neither view ranks every program's
    // fast forms first (mm's 2-D thread maps vs gemv's work-group rows), measurement decides.
    std::optional<extract::StructuralCost> occupancy;
    if (gpu) {
        occupancy.emplace(g, tuning, w.sizes, extract::StructuralCost::Params::gpuOccupancy());
        eo.secondCost = &*occupancy;
        eo.secondK = std::max<size_t>(1, eo.k / 2);
    }
    extract::ExtractResult r =
        extract::extractCandidates(g, tuning, ins.root, ins.signature, cost, eo);
    w.clock.move(Stage::Extract, Stage::Explore, r.exploreSeconds + r.refineSeconds);
    result.extractStats = r.stats;
    result.rejected = r.rejected;
    if (r.stats.truncated) {
        result.notes.push_back(fmt("extraction's search stopped before its fixed point after %zu "
                                   "updates (its share of the time budget or its update bound)",
                                   r.stats.updates));
    }
    w.progress(fmt("extract: %zu candidates (%zu rejected by the code generator, %zu repeating a "
                   "better candidate's kernel, %zu over %.0fx the best's cost), %zu states, %.2f s",
                   r.candidates.size(), r.rejected.size(), r.duplicates.size(), r.beyondCostRatio,
                   eo.maxCostRatio, r.stats.states, r.stats.seconds));
    for (size_t c = 0; c < r.candidates.size(); ++c) {
        w.progress(fmt("extract: candidate %zu (cost %.1f): %s", c, r.candidates[c].cost,
                       r.candidates[c].text.substr(0, 300).c_str()));
    }
    w.stageDone("extract", w.elapsed() - started - r.exploreSeconds - r.refineSeconds,
                fmt("%zu candidates, %zu states%s", r.candidates.size(), r.stats.states,
                    r.stats.truncated ? " (search cut short)" : ""));
    if (eo.explore.draws > 0) {
        auto inExplore = w.clock.enter(Stage::Explore);
        double exploreStart = w.elapsed();
        std::vector<size_t> sizes;
        for (const auto& nodes : guides.nodes) {
            sizes.push_back(nodes.size());
        }
        addExplored(w, r, guides.rule, sizes, result);
        w.stageDone("explore", w.elapsed() - exploreStart + r.exploreSeconds + r.refineSeconds,
                    fmt("%zu drawn, %zu new kernels, %zu taken", r.exploreDrawn,
                        result.exploreAccepted, result.exploreTaken));
    }
    return std::move(r.candidates);
}

} // namespace egopt::pipeline
