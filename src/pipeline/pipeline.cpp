// The pipeline (pipeline.hpp, docs/pipeline.md): load → insert → saturate → extract → predict →
// tune → confirm → choose.
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/runtime/device.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_set>

namespace egopt::pipeline {

std::string_view statusName(CandidateResult::Status s) {
    switch (s) {
    case CandidateResult::Status::Valid:
        return "valid";
    case CandidateResult::Status::Invalid:
        return "invalid";
    case CandidateResult::Status::Failed:
        return "failed";
    case CandidateResult::Status::Unconfirmed:
        return "unconfirmed";
    case CandidateResult::Status::Unmeasured:
        break;
    }
    return "unmeasured";
}

namespace {

constexpr double kTuneShare = 0.6; // of Options::timeBudget: when tuning stops measuring

std::string showValues(const arith::Bindings& b) {
    std::string out;
    for (const auto& [k, v] : b) {
        out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
    }
    return out.empty() ? "-" : out;
}

std::string fmt(const char* format, auto... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, format, args...);
    return buf;
}

arith::Bindings resolve(const Options& o, const lift::Program& p) {
    auto r = lift::resolveSizes(p, o.sizes, lift::readCompanionSizes(o.file));
    if (!r.missing.empty()) {
        std::string names;
        for (const auto& m : r.missing) {
            names += (names.empty() ? "" : ", ") + m;
        }
        badInput("no value for size variable(s) " + names + ": pass --size NAME=VALUE", o.file);
    }
    return r.bindings;
}

constexpr size_t kGuidedPredictions = 24;   // the model's descent per guided replay
constexpr int64_t kDefaultTuningValue = 64; // Space::initial's target, as predictAtDefaults

// Exploration's accepted terms that join the candidates: first the `options.guided` guided
// slots, each macro rule's best replay (the most of the rule's e-nodes, then the fastest
// predicted), the fastest of those as predicted at the model's best tuning values near the
// defaults (modelDescent), each at most `exploreRatio` times the best candidate's prediction.
// That prediction, not the one at default values, because a macro's schedule at default tuning
// values can be far from its tuned time (mm's register blocking at 64 x 64 work-items, a
// work-group tree whose last fold is one work-item's). Then the `options.explored` others the
// model predicts fastest at their default tuning values, within the same bound.
void addExplored(Work& w, extract::ExtractResult& r, const std::vector<std::string>& guideRule,
                 Result& result) {
    auto predicted = [&w](const extract::Candidate& c) { return w.predictAtDefaults(c); };
    double bound = 1e30;
    for (const auto& c : r.candidates) {
        if (auto p = predicted(c)) {
            bound = std::min(bound, *p * w.options.exploreRatio);
        }
    }
    std::vector<std::pair<double, size_t>> keyed;
    // Per macro rule, its replay with the most of the rule's e-nodes, then the fastest predicted.
    std::map<std::string, std::tuple<int64_t, double, size_t>> bestReplay; // rule: -hits, p, i
    for (size_t i = 0; i < r.explored.size(); ++i) {
        auto p = predicted(r.explored[i]);
        if (!p) {
            continue;
        }
        if (*p <= bound) {
            keyed.emplace_back(*p, i);
        }
        if (const auto& c = r.explored[i]; c.guided && c.guide < guideRule.size()) {
            std::tuple<int64_t, double, size_t> key{-int64_t(c.guideHits), *p, i};
            auto [it, fresh] = bestReplay.emplace(guideRule[c.guide], key);
            if (!fresh && key < it->second) {
                it->second = key;
            }
        }
    }
    std::stable_sort(keyed.begin(), keyed.end());
    size_t within = keyed.size();
    std::vector<std::pair<double, size_t>> taken;
    for (const auto& [rule, key] : bestReplay) {
        const extract::Candidate& c = r.explored[std::get<2>(key)];
        auto predictAt = [&](const arith::Bindings& v) { return w.predict(c, v); };
        std::optional<double> p = modelDescent(Space(c.tuning, w.sizes), predictAt,
                                               kGuidedPredictions, kDefaultTuningValue)
                                      .second;
        if (double at = p.value_or(std::get<1>(key)); at <= bound) {
            taken.emplace_back(at, std::get<2>(key));
        }
    }
    std::stable_sort(taken.begin(), taken.end());
    taken.resize(std::min(taken.size(), w.options.guided));
    size_t guided = taken.size();
    for (const auto& k : keyed) {
        if (taken.size() - guided < w.options.explored &&
            std::none_of(taken.begin(), taken.end(),
                         [&](const auto& t) { return t.second == k.second; })) {
            taken.push_back(k);
        }
    }
    keyed = std::move(taken);
    w.progress(fmt("explore: %zu draws, %zu distinct terms, %zu checked, %zu new kernels (%.2f "
                   "s); refinement: %zu rounds, %zu neighbours checked, %zu new kernels (%.2f s); "
                   "%zu predicted within %.0fx the best candidate, %zu taken (%zu of guided draws)",
                   w.options.exploreDraws, r.exploreDrawn, r.exploreChecked,
                   r.explored.size() - r.refineAccepted, r.exploreSeconds, r.refineRounds,
                   r.refineChecked, r.refineAccepted, r.refineSeconds, within,
                   w.options.exploreRatio, keyed.size(), guided));
    result.refineRounds = r.refineRounds;
    result.refineChecked = r.refineChecked;
    result.refineAccepted = r.refineAccepted;
    result.exploreDrawn = r.exploreDrawn;
    result.exploreChecked = r.exploreChecked;
    result.exploreAccepted = r.explored.size();
    result.exploreTaken = keyed.size();
    for (auto& [p, i] : keyed) {
        const extract::Candidate& c = r.explored[i];
        std::string how;
        if (c.guided && c.guide < guideRule.size()) {
            how = ", guided draw of " + guideRule[c.guide] + ", " + std::to_string(c.guideHits) +
                  " of its e-nodes";
        }
        w.progress(fmt("explore: candidate %zu (predicted %.3f ms, cost %.1f%s): %s",
                       r.candidates.size(), p * 1e3, c.cost, how.c_str(),
                       c.text.substr(0, 300).c_str()));
        r.candidates.push_back(std::move(r.explored[i]));
    }
}

// The e-nodes of each application of a macro rule (rules named `macro-...`, ICFP'15's macro
// rules: one rule for a named sequence of steps), one guide each for exploration's guided draws,
// and the rule of each guide.
struct MacroGuides {
    std::vector<std::unordered_set<egraph::ENodeId>> nodes;
    std::vector<std::string> rule;
};

MacroGuides macroGuides(const egraph::EGraph& g) {
    constexpr size_t kGuidesPerRule = 4;
    MacroGuides guides;
    for (uint32_t r = 0; r < g.ruleNames().size(); ++r) {
        if (!g.ruleNames()[r].starts_with("macro-")) {
            continue;
        }
        // The first applications: the program's own nests (later ones rewrite the forms other
        // rules made of them, and a macro such as macro-map-wrg-lcl applies thousands of times).
        const auto& instances = g.rhsNodes(r);
        for (size_t i = 0; i < std::min(instances.size(), kGuidesPerRule); ++i) {
            guides.nodes.emplace_back(instances[i].begin(), instances[i].end());
            guides.rule.push_back(g.ruleNames()[r]);
        }
    }
    return guides;
}

// Whether to optimise for a GPU: --extract-cost gpu, or auto on a device whose type says GPU.
// It selects extraction's cost views and the GPU-only rules of the lowering phase.
bool targetsGpu(const Work& w) {
    return w.options.extractCost == "gpu" ||
           (w.options.extractCost == "auto" &&
            w.bench->device().type.find("GPU") != std::string::npos);
}

extract::ExtractResult extractStage(const egraph::EGraph& g, const egraph::Inserted& ins, Work& w,
                                    Result& result) {
    extract::ExtractOptions eo;
    eo.k = std::max<size_t>(1, w.options.candidates);
    eo.sizes = w.sizes;
    eo.multipleKernels = true; // reductions need a kernel boundary to run in parallel
    eo.codegen = w.options.codegen;
    eo.explore.draws = w.options.explored || w.options.guided ? w.options.exploreDraws : 0;
    eo.explore.seed = w.options.seed;
    MacroGuides guides = macroGuides(g);
    eo.explore.guides = guides.nodes;
    eo.refineRounds = eo.explore.draws > 0 ? w.options.refineRounds : 0; // part of exploration
    eo.rank = [&w](const extract::Candidate& c) { return w.predictAtDefaults(c); };
    // Tuning variables at plausible values; on a GPU, coalesced (strided) chunks preferred.
    bool gpu = targetsGpu(w);
    extract::StructuralCost cost(g, w.sizes,
                                 gpu ? extract::StructuralCost::Params::gpu()
                                     : extract::StructuralCost::Params{});
    // On a GPU also the occupancy view's best (cost.hpp): neither view ranks every program's
    // fast forms first (mm's 2-D thread maps vs gemv's work-group rows), measurement decides.
    std::optional<extract::StructuralCost> occupancy;
    if (gpu) {
        occupancy.emplace(g, w.sizes, extract::StructuralCost::Params::gpuOccupancy());
        eo.secondCost = &*occupancy;
        eo.secondK = std::max<size_t>(1, eo.k / 2);
    }
    extract::ExtractResult r = extract::extractCandidates(g, ins.root, ins.signature, cost, eo);
    result.extractStats = r.stats;
    result.rejected = r.rejected;
    w.progress(fmt("extract: %zu candidates (%zu rejected by the code generator, %zu repeating a "
                   "better candidate's kernel, %zu over %.0fx the best's cost), %zu states, %.2f s",
                   r.candidates.size(), r.rejected.size(), r.duplicates.size(), r.beyondCostRatio,
                   eo.maxCostRatio, r.stats.states, r.stats.seconds));
    for (size_t c = 0; c < r.candidates.size(); ++c) {
        w.progress(fmt("extract: candidate %zu (cost %.1f): %s", c, r.candidates[c].cost,
                       r.candidates[c].text.substr(0, 300).c_str()));
    }
    if (eo.explore.draws > 0) {
        addExplored(w, r, guides.rule, result);
    }
    return r;
}

// Candidates in order of predicted time at their default values (unpredictable ones last).
std::vector<size_t> predictedOrder(Work& w) {
    std::vector<std::pair<double, size_t>> keyed;
    for (size_t c = 0; c < w.candidates.size(); ++c) {
        std::optional<double> p = w.predictAtDefaults(w.candidates[c]);
        keyed.emplace_back(p.value_or(1e30), c);
    }
    std::stable_sort(keyed.begin(), keyed.end());
    std::vector<size_t> order;
    for (auto& [p, c] : keyed) {
        order.push_back(c);
    }
    return order;
}

TuneResult tuneStage(Work& w, Result& result) {
    std::vector<Space> spaces;
    for (const auto& c : w.candidates) {
        spaces.emplace_back(c.tuning, w.sizes);
    }
    Objective obj;
    obj.predict = [&w](size_t c, const arith::Bindings& v) { return w.predict(c, v); };
    obj.measure = [&w](size_t c, const arith::Bindings& v) { return w.measure(c, v); };
    obj.stop = [&w, &result] {
        if (w.stopped()) {
            return true;
        }
        // Past the budget, only once something ran: a slow saturation must not leave nothing.
        bool anyTimed = std::any_of(w.runs.begin(), w.runs.end(),
                                    [](const auto& r) { return r.second.timing.has_value(); });
        if (anyTimed && w.pastBudget(kTuneShare)) {
            if (!result.overBudget) {
                result.overBudget = true;
                result.notes.push_back(fmt("tuning stopped after %.0f s (%.0f%% of the time budget "
                                           "of %.0f s)",
                                           w.elapsed(), kTuneShare * 100, w.options.timeBudget));
                w.progress(result.notes.back());
            }
            return true;
        }
        return false;
    };
    size_t budget = w.options.tuneBudget ? w.options.tuneBudget : 3 * w.candidates.size();
    result.tuneBudget = budget;
    w.progress(fmt("tune: %s search, budget %zu measured configurations", w.options.tuner.c_str(),
                   budget));
    TuneResult t;
    if (w.options.tuner == "random") {
        t = tuneRandom(spaces, obj, budget, w.options.seed);
    } else {
        GuidedOptions go;
        go.budget = budget;
        t = tuneGuided(spaces, predictedOrder(w), obj, go);
    }
    result.tuneUsed = t.used;
    return t;
}

} // namespace

std::optional<double> Work::predict(size_t c, const arith::Bindings& values) {
    return predict(candidates.at(c), values);
}

std::optional<double> Work::predict(const extract::Candidate& c, const arith::Bindings& values) {
    try {
        auto b = buildAt(c.program, values, sizes, options.codegen, assumed);
        if (!codegen::resourceProblem(b->code, sizes, bench->device()).empty()) {
            return std::nullopt; // the search prefers values that fit (a smaller private chunk)
        }
        return model->predictSeconds(costmodel::computeFeatures(b->code, sizes, profile), profile);
    } catch (const Error&) {
        return std::nullopt;
    }
}

std::optional<double> Work::predictAtDefaults(const extract::Candidate& c) {
    return predict(c, Space(c.tuning, sizes).initial(kDefaultTuningValue));
}

std::optional<double> Work::measure(size_t c, const arith::Bindings& values) {
    Run run;
    std::unique_ptr<Built> b;
    costmodel::Features f;
    try {
        b = buildAt(candidates.at(c).program, values, sizes, options.codegen, assumed);
        f = costmodel::computeFeatures(b->code, sizes, profile);
        run.predicted = model->predictSeconds(f, profile);
        run.arithOps = f.total.arithOps;
        run.launchJson = b->code.launchJson();
        run.timing = bench->time(*b, options.runs, false, 1.0, options.measureSeconds);
    } catch (const runtime::KernelTimeout& e) {
        run.error = std::string("timed out: ") + e.what();
    } catch (const runtime::BuildError& e) {
        run.error = e.what();
        run.buildLog = e.log();
    } catch (const std::exception& e) {
        run.error = e.what();
    }
    progress(fmt("tune: candidate %zu [%s]: %s", c, showValues(values).c_str(),
                 run.timing ? fmt("%.3f ms (predicted %.3f ms)", run.timing->seconds * 1e3,
                                  run.predicted * 1e3)
                                  .c_str()
                            : ("FAILED: " + run.error.substr(0, run.error.find('\n'))).c_str()));
    if (run.timing && !options.recordPath.empty()) {
        costmodel::Record r{profile.name,        sizes,
                            candidates[c].text,  f,
                            run.predicted,       run.timing->seconds,
                            profile.deviceClass, options.file};
        costmodel::appendRecord(options.recordPath, r);
    }
    std::optional<double> s;
    if (run.timing) {
        s = run.timing->seconds;
    }
    runs[{c, values}] = std::move(run);
    return s;
}

Result run(const Options& options) {
    auto start = std::chrono::steady_clock::now();
    Progress progress = [&options](const std::string& line) {
        if (options.progress) {
            options.progress(line);
        }
    };
    Result result;
    result.file = options.file;
    result.costModel = options.costModel;
    result.tuner = options.tuner;
    lift::Program program = lift::parseFile(options.file);
    result.input = program.show(program.root);
    Work w{options, program, resolve(options, program), {}, {}, nullptr, {}, nullptr, progress,
           {},      start};
    result.sizes = w.sizes;
    w.assumed = deriveAssumptions(program, w.sizes, lift::readCompanionSizes(options.file),
                                  options.assumeDivisorCap);
    checkAssumptions(w.assumed, w.sizes);
    result.assumptions = w.assumed;
    // Everything that can fail for bad input or a missing device fails before saturation.
    w.model = costmodel::loadModel(options.costModel);
    runtime::Device device = runtime::selectDevice(options.device);
    w.profile = w.model->profile(device);
    result.device = device.describe();
    w.bench = std::make_unique<Bench>(device, program, w.sizes, options.seed);
    progress("load: " + options.file + " (" + lift::showBindings(program, w.sizes) + ") on " +
             result.device);

    egraph::EGraph g;
    g.explanations = options.explain;
    egraph::Inserted ins = egraph::insertProgram(g, program);
    assumeAll(g, w.assumed);
    if (!w.assumed.empty()) {
        std::string shown;
        for (const auto& a : w.assumed) {
            shown += (shown.empty() ? "" : ", ") + showAssumption(a);
        }
        progress("assume: " + shown + " (from the sizes to instantiate)");
    }
    saturatePhases(g, options, targetsGpu(w), result, progress);
    result.nodes = g.numNodes();
    result.classes = g.numClasses();
    if (!w.stopped()) {
        w.candidates = extractStage(g, ins, w, result).candidates;
    }
    if (!w.candidates.empty() && !w.stopped()) {
        TuneResult tuned = tuneStage(w, result);
        confirm(w, tuned, result);
    } else {
        for (size_t c = 0; c < w.candidates.size(); ++c) {
            result.candidates.push_back({});
            result.candidates.back().index = c;
            result.candidates.back().text = w.candidates[c].text;
            result.candidates.back().reason = "interrupted before tuning";
        }
    }
    if (result.best && options.explain) {
        result.derivation = derivation(g, ins, w.candidates[*result.best]);
    }
    result.interrupted = w.stopped();
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace egopt::pipeline
