// The pipeline (pipeline.hpp, docs/pipeline.md): load → insert → saturate → extract → predict →
// tune → confirm → choose.
#include "egopt/interp/userfun.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <sys/resource.h>
#include <thread>

namespace egopt::pipeline {

// A kernel writes one array: a program whose result is a tuple (Unzip's arrays) or a scalar is
// refused at load, not after saturation as a reason on every extracted candidate.
static double peakRssMb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

static void checkKernelResult(const lift::Program& program, lift::TypeId result) {
    if (!program.types.isArray(result)) {
        lift::NodeId body = program.lambdaBody(program.root);
        badInput("the program's result has type " + program.types.show(result) +
                     ": a kernel writes one array (return an array of tuples, not a tuple of "
                     "arrays)",
                 program.fileName, program.node(body).loc);
    }
}

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

// The default tuning budget: measured configurations per candidate (--tune.budget 0).
constexpr size_t kBudgetPerCandidate = 3;

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

// How many compile workers to start (Options::compileWorkers).
size_t compileWorkerCount(const Work& w) {
    const Options& o = w.options;
    if (o.workerExecutable.empty() || o.remote || w.benches.size() > 1) {
        return 0;
    }
    if (o.compileWorkers) {
        return *o.compileWorkers;
    }
    size_t cores = std::thread::hardware_concurrency();
    bool gpu = w.bench().device().type.find("GPU") != std::string::npos;
    return gpu && cores >= 4 ? std::min<size_t>(8, cores / 2) : 0;
}

// The compile workers start now: they open the device while this process saturates and
// extracts (1.5-3 s each on an H100 host). Without them the builds stay in this process.
void startCompileWorkers(Work& w, Result& result) {
    size_t n = compileWorkerCount(w);
    if (n == 0) {
        return;
    }
    try {
        auto pool = std::make_shared<runtime::CompilerPool>(w.options.workerExecutable,
                                                            w.bench().device(), n);
        result.compileWorkers = pool->workers();
        w.bench().useCompilerPool(std::move(pool));
    } catch (const Error& e) {
        result.notes.push_back(std::string("no compile workers: ") + e.what());
        w.progress(result.notes.back());
    }
}

TuneResult tuneStage(Work& w, Result& result) {
    auto inTune = w.clock.enter(Stage::Tune);
    double started = w.elapsed();
    std::vector<Space> spaces;
    for (const auto& c : w.candidates) {
        spaces.emplace_back(c.tuning, w.sizes);
    }
    Objective obj;
    obj.predict = [&w](size_t c, const arith::Bindings& v) { return w.predict(c, v); };
    obj.doesNotFit = [&w](size_t c, const arith::Bindings& v) { return w.doesNotFit(c, v); };
    // The most promising candidate is confirmed as soon as it is measured: the run then has a
    // valid kernel whatever the budget leaves for confirmation. Measurements made together are
    // validated in the order given (the search's order), not in the order they ended.
    obj.measureMany = [&w](const std::vector<Objective::Config>& configs) {
        std::vector<std::optional<double>> times = w.measure(configs);
        for (size_t i = 0; i < times.size() && !w.anyValid() && !w.stopped(); ++i) {
            if (times[i]) {
                const auto& [c, v] = configs[i];
                const Validation& val = w.validate(c, v);
                w.progress(fmt("confirm early: candidate %zu [%s]: %s", c, showValues(v).c_str(),
                               val.why.empty() ? "valid" : val.why.substr(0, 200).c_str()));
            }
        }
        return times;
    };
    obj.parallel = w.benches.size() + w.remoteDevices;
    obj.stop = [&w, &result] {
        if (w.stopped()) {
            return true;
        }
        // Tuning's share of the budget ends it once a candidate is valid (Work::window).
        if (w.budget.limited() && w.window(Stage::Tune) <= 0) {
            if (!result.overBudget) {
                result.overBudget = true;
                result.notes.push_back(fmt("tuning stopped after %.1f s (its share of the time "
                                           "budget of %.0f s)",
                                           w.elapsed(), w.options.timeBudget));
                w.progress(result.notes.back());
            }
            return true;
        }
        return false;
    };
    size_t budget =
        w.options.tune.budget ? w.options.tune.budget : kBudgetPerCandidate * w.candidates.size();
    result.tuneBudget = budget;
    w.progress(fmt("tune: %s search, budget %zu measured configurations",
                   std::string(tunerName(w.options.tune.tuner)).c_str(), budget));
    TuneResult t;
    if (w.options.tune.tuner == TunerKind::Random) {
        t = tuneRandom(spaces, obj, budget, w.options.seed);
    } else {
        GuidedOptions go;
        go.budget = budget;
        go.farRatio = w.options.tune.farRatio;
        go.budgetPerLeftOut = w.options.tune.budget ? 0 : kBudgetPerCandidate;
        go.stepWidth = std::max<size_t>(1, result.compileWorkers); // a round builds in parallel
        t = tuneGuided(spaces, predictedOrder(w), obj, go);
    }
    result.tuneUsed = t.used;
    result.programsFromWorkers = w.bench().loadedFromWorkers();
    size_t ok = 0;
    for (const Trial& trial : t.trials) {
        ok += trial.seconds.has_value();
    }
    w.stageDone("tune", w.elapsed() - started,
                fmt("%zu configurations measured, %zu ran, fastest %.3f ms", t.used, ok,
                    w.bestSeconds() * 1e3));
    return t;
}

} // namespace

namespace {

// Candidates that never reached tuning (interrupted, or extraction ended the budget).
void untuned(const Work& w, Result& result) {
    for (size_t c = 0; c < w.candidates.size(); ++c) {
        CandidateResult cr;
        cr.index = c;
        cr.text = w.candidates[c].text;
        cr.reason = w.stopped() ? "interrupted before tuning" : "time budget spent before tuning";
        result.candidates.push_back(std::move(cr));
    }
}

std::string confirmSummary(const Result& r) {
    size_t valid = 0;
    for (const auto& c : r.candidates) {
        valid += c.status == CandidateResult::Status::Valid;
    }
    if (!r.best) {
        return fmt("%zu valid of %zu candidates, none chosen", valid, r.candidates.size());
    }
    return fmt("%zu valid of %zu candidates, chosen %zu at %.4f ms", valid, r.candidates.size(),
               *r.best, r.candidates[*r.best].seconds * 1e3);
}

} // namespace

egraph::ENodeId saturateStage(egraph::EGraph& g, egraph::RewriteContext& ctx,
                              const Options& options, bool gpu, double secondsLeft, Result& result,
                              const Progress& progress, egraph::Applications& applications,
                              const egraph::Focus* focus, bool flatteningSteps, bool growGoal) {
    SaturationHooks hooks;
    hooks.flatteningSteps = flatteningSteps;
    hooks.iteration = [&](const Phase& phase, const egraph::IterationReport& it) {
        progress(fmt("saturate %s: iteration %zu: %zu e-nodes, %zu e-classes, %zu applied, %.2f s",
                     phase.name.c_str(), it.iteration, it.nodes, it.classes, it.applied,
                     it.seconds));
    };
    hooks.stop = options.stop;
    hooks.secondsLeft = secondsLeft;
    hooks.applications = &applications;
    hooks.focus = focus;
    for (PhaseResult& pr : saturate(g, ctx, options.saturation, gpu, hooks)) {
        if (focus) {
            pr.name = fmt("stage %zu %s", result.searchStages + 1, pr.name.c_str());
        }
        progress(fmt("saturate %s: stop (%s), %zu e-nodes, %zu e-classes, %.2f s", pr.name.c_str(),
                     std::string(egraph::stopReasonName(pr.run.stop)).c_str(), pr.nodes, pr.classes,
                     pr.seconds));
        result.phases.push_back(std::move(pr));
    }
    egraph::ENodeId vectorBlocksFrom = std::numeric_limits<egraph::ENodeId>::max();
    if (options.saturation.noMacros && flatteningSteps && growGoal) {
        vectorBlocksFrom = growGoalStage(g, ctx, options, gpu, result, progress);
    }
    if (options.stop && options.stop->requested()) {
        result.notes.push_back("interrupted during saturation");
    }
    return vectorBlocksFrom;
}

namespace {

// The search stages to run (--search.stages; 0: kNoMacroStages without macros, else 1).
size_t searchStages(const Options& options) {
    if (options.search.stages != 0) {
        return options.search.stages;
    }
    return options.saturation.noMacros ? kNoMacroStages : 1;
}

// One more search stage (docs/search.md): the rule phases again, rewriting only around the
// beam's terms (their e-classes, and the classes the rewrites create), then extraction again
// on the grown e-graph. The beam is the best predicted of this stage's candidates and the last
// beam, so it never loses its best term to an extraction that ranks it lower. Saturation gets
// half of what is left of extraction's share of the budget.
std::vector<extract::Candidate>
nextSearchStage(egraph::EGraph& g, egraph::RewriteContext& rewriting, const egraph::Inserted& ins,
                egraph::Applications& applications, Work& w, Result& result,
                const std::vector<extract::Candidate>& found, std::vector<extract::Candidate>& beam,
                bool last) {
    beam = selectBeam(w, withCarried(found, beam));
    egraph::Focus focus = focusOf(g, beam, w.progress);
    if (w.shapeGoal) {
        addGoalRegion(g, focus, w.progress);
    }
    {
        auto inSaturate = w.clock.enter(Stage::Saturate);
        double started = w.elapsed();
        w.vectorBlocksFrom = saturateStage(g, rewriting, w.options, targetsGpu(w),
                                           w.budget.leftUntil(Stage::Extract) / 2, result,
                                           w.progress, applications, &focus, w.shapeGoal, last);
        ++result.searchStages;
        result.nodes = g.numNodes();
        result.classes = g.numClasses();
        result.egraphBytes = g.memoryBytes();
        w.stageDone("saturate", w.elapsed() - started,
                    fmt("stage %zu: %zu focused e-classes, %zu e-nodes, %zu e-classes",
                        result.searchStages, focus.classes.size(), result.nodes, result.classes));
    }
    return extractStage(g, rewriting.tuning, ins, applications, w, result);
}

} // namespace

Result run(const Options& options) {
    auto start = Budget::Clock::now();
    Progress progress = [&options](const std::string& line) {
        if (options.progress) {
            options.progress(line);
        }
    };
    Result result;
    result.file = options.file;
    result.costModel = options.costModel;
    result.tuner = options.tune.tuner;
    result.timeBudget = options.timeBudget;
    lift::Program program = lift::parseFile(options.file);
    interp::checkUserFuns(program);
    const lift::TypeId resultType = lift::typecheck(program).resultType;
    checkKernelResult(program, resultType);
    result.input = program.show(program.root);
    Work w{.options = options,
           .original = program,
           .sizes = resolve(options, program),
           .progress = progress,
           .budget = Budget(options.timeBudget, start),
           .clock = StageClock(Stage::Load, start)};
    w.codegen = options.codegen;
    if (!w.codegen.simplifyMemo) {
        w.codegen.simplifyMemo = std::make_shared<arith::SimplifyMemo>();
    }
    w.references = std::make_unique<References>(program, options.seed);
    result.sizes = w.sizes;
    w.assumed = deriveAssumptions(program, w.sizes, lift::readCompanionSizes(options.file),
                                  options.assumeDivisorCap);
    checkAssumptions(w.assumed, w.sizes);
    result.assumptions = w.assumed;
    // Everything that can fail for bad input or a missing device fails before saturation.
    w.model = costmodel::loadModel(options.costModel);
    std::vector<runtime::Device> devices = selectDevices(options);
    const runtime::Device& device = devices.front();
    checkDataFits(program, resultType, w.sizes, device);
    w.profile = w.model->profile(device);
    result.device = device.describe();
    w.benches.push_back(std::make_unique<Bench>(device, program, w.sizes, options.seed));
    for (const runtime::Device& d : devices) {
        result.devices.push_back({d.index, d.describe()});
        if (&d != &device) {
            w.benches.push_back(std::make_unique<Bench>(d, w.bench()));
        }
    }
    if (options.remote) {
        startWorkers(w, result); // the workers make their inputs while this rank saturates
    }
    startCompileWorkers(w, result);
    for (auto& bench : w.benches) {
        bench->openAhead(); // the device's context and inputs while this thread saturates
    }
    if (devices.size() > 1) {
        result.notes.push_back(fmt("%zu devices of one model (timings compare across them); "
                                   "reference device %s",
                                   devices.size(), result.device.c_str()));
    }
    progress("load: " + options.file + " (" + lift::showBindings(program, w.sizes) + ") on " +
             result.device + (devices.size() > 1 ? fmt(" and %zu more", devices.size() - 1) : ""));

    egraph::EGraph g;
    g.explanations = options.explain;
    egraph::Inserted ins = egraph::insertProgram(g, program);
    egraph::RewriteContext rewriting;  // tuning variables, size facts, rule names
    egraph::Applications applications; // the macro rules' right-hand sides, for guided draws
    assumeAll(rewriting.facts, w.assumed);
    if (!w.assumed.empty()) {
        std::string shown;
        for (const auto& a : w.assumed) {
            shown += (shown.empty() ? "" : ", ") + showAssumption(a);
        }
        progress("assume: " + shown + " (from the sizes to instantiate)");
    }
    w.stageDone("load", w.elapsed(), lift::showBindings(program, w.sizes) + " on " + device.name);
    {
        auto inSaturate = w.clock.enter(Stage::Saturate);
        double started = w.elapsed();
        // The shape goal, for a program written with a map of reductions sharing an operand.
        w.shapeGoal = options.saturation.noMacros && hasSharingMap(g);
        w.vectorBlocksFrom = saturateStage(
            g, rewriting, options, targetsGpu(w), w.budget.leftUntil(Stage::Saturate), result,
            progress, applications, nullptr, w.shapeGoal, searchStages(options) == 1);
        result.nodes = g.numNodes();
        result.classes = g.numClasses();
        result.egraphBytes = g.memoryBytes();
        w.stageDone("saturate", w.elapsed() - started,
                    fmt("%zu phases, %zu e-nodes, %zu e-classes", result.phases.size(),
                        result.nodes, result.classes));
    }
    if (!w.stopped()) {
        std::vector<extract::Candidate> found =
            extractStage(g, rewriting.tuning, ins, applications, w, result);
        result.searchStages = 1;
        std::vector<extract::Candidate> beam;
        size_t stages = searchStages(options);
        for (size_t s = 1; s < stages && !found.empty() && !w.stopped(); ++s) {
            // A stage started after extraction's share of the budget would take tuning's time:
            // the candidates found so far are then what tuning measures.
            if (w.budget.limited() && w.budget.leftUntil(Stage::Extract) <= 0) {
                result.notes.push_back(fmt("search stopped after stage %zu of %zu: extraction's "
                                           "share of the time budget of %.0f s is spent",
                                           s, stages, options.timeBudget));
                w.progress(result.notes.back());
                break;
            }
            found = nextSearchStage(g, rewriting, ins, applications, w, result, found, beam,
                                    s + 1 == stages);
        }
        // The last beam joins the candidates: the best predicted terms of the earlier stages.
        w.candidates = onePerKernel(w, withCarried(std::move(found), beam), result);
    }
    if (!w.candidates.empty() && !w.stopped()) {
        TuneResult tuned = tuneStage(w, result);
        double started = w.elapsed();
        confirm(w, tuned, result);
        w.stageDone("confirm", w.elapsed() - started, confirmSummary(result));
    } else {
        untuned(w, result);
    }
    auto inOutput = w.clock.enter(Stage::Output);
    if (result.best && options.explain) {
        result.derivation = derivation(g, rewriting.rules, ins, w.candidates[*result.best]);
    }
    if (options.remote) {
        finishWorkers(w, result);
    }
    result.validations = w.validated.size();
    result.referencesInterpreted = w.references->interpreted();
    result.interrupted = w.stopped();
    result.stageSeconds = w.clock.seconds();
    result.seconds = w.elapsed();
    result.peakRssMb = peakRssMb();
    return result;
}

} // namespace egopt::pipeline
