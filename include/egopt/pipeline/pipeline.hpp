// The whole compiler (docs/design.md §2, §9, §10; docs/pipeline.md): `egopt program.lift` as a
// library call. Stages: load the program and its sizes → insert it into an e-graph → saturate in
// rule phases (algorithmic, then OpenCL lowering) under limits → extract the K best candidates →
// predict each one's time with a cost model → tune the open numeric parameters by measured
// execution within a budget → confirm (generate, build, run, validate against the interpreter,
// time) → choose the fastest valid candidate. Progress is reported through a callback; a
// StopToken (set from a SIGINT handler by the CLI) ends the work early, keeping the best so far.
//
//     pipeline::Options o;
//     o.file = "examples/asum.lift";
//     o.sizes = {{"N", 1 << 20}};
//     pipeline::Result r = pipeline::run(o);
//     pipeline::writeOutputs(r, o);      // program.cl and program.report.json (report.hpp)
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/pipeline/budget.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::pipeline {

class Remote; // remote.hpp: device work in other processes (MPI ranks)

// A request to stop early, safe to set from a signal handler: a lock-free atomic flag and
// nothing else (setting it is async-signal-safe; the pipeline polls it between steps).
class StopToken {
public:
    constexpr StopToken() = default;
    void request() noexcept { flag_.store(true, std::memory_order_relaxed); }
    bool requested() const noexcept { return flag_.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> flag_{false};
    static_assert(std::atomic<bool>::is_always_lock_free);
};

// One saturation phase: rule files and the limits it runs under.
struct Phase {
    std::string name;
    std::vector<std::string> ruleFiles;
    egraph::Limits limits;
};

// The default phases: core + algorithmic rules, then the OpenCL lowering rules (docs/design.md §6:
// all at once blows up on mm), found beside rules::defaultRulesPath(); only core.rules when the
// catalogue is missing. For a GPU target the lowering phase also loads gpu.rules (work-group
// trees in local memory, which only pay on a GPU and crowd a CPU's candidates).
std::vector<Phase> defaultPhases(bool gpu = false);

// A fact saturation may assume (docs/pipeline.md, "Size assumptions"): `divisor` divides the
// size variable `var` at every size the pipeline instantiates the candidates at.
struct SizeAssumption {
    std::string var;
    int64_t divisor = 1;
    friend bool operator==(const SizeAssumption&, const SizeAssumption&) = default;
};

// The end of a stage, for a progress display: one line a person can read.
struct StageEvent {
    std::string stage;   // load, saturate, extract, explore, tune, confirm
    double seconds = 0;  // the stage's wall seconds
    double elapsed = 0;  // since the run started
    double left = -1;    // seconds to the deadline (< 0: past it; no budget: -1 and !limited)
    bool limited = true; // false: no time budget
    std::string summary;
};

struct Options {
    std::string file;
    arith::Bindings sizes; // explicit values (--size); the companion .json gives the rest
    std::string device;    // runtime::selectDevice spec ("" = PoCL)
    // Several devices (docs/pipeline.md, "Several devices"): "all" or specs separated by commas
    // (runtime::chooseDevices); "" = only `device`. Measurements and validations are spread over
    // them, one host thread and command queue each; they must be of one model (runtime::
    // sameModel). `device`, when given, must be among them and is the reference device (the
    // first of the list otherwise): it confirms the early candidates and cross-checks the best.
    std::string devices;
    // Worker processes (docs/distributed.md): device jobs are handed out to them as well as to
    // the devices above; nullptr: this process only.
    Remote* remote = nullptr;
    // Saturation phases; empty: defaultPhases(). nodeLimit/timeLimit, when set, override every
    // phase's node limit and split the time over the phases.
    std::vector<Phase> phases;
    size_t nodeLimit = 0;
    double timeLimit = 0;
    size_t threads = 1;
    // Size assumptions: for each size variable, the largest power of two up to this cap that
    // divides its real value and every companion combination's value; < 2: none.
    int64_t assumeDivisorCap = 128;
    std::string costModel = "analytic"; // costmodel::loadModel name or file
    // Extraction's StructuralCost parameters: "gpu" (coalescing and global stores count),
    // "cpu", or "auto" (gpu when the device's type says GPU).
    std::string extractCost = "auto";
    size_t candidates = 16; // K
    // Exploration (docs/extraction.md): random terms drawn from the extraction's states, and how
    // many of the accepted ones the cost model predicts fastest join the K candidates (only
    // those predicted at most `exploreRatio` times the best candidate's time).
    size_t exploreDraws = 2000;
    size_t explored = 4;
    double exploreRatio = 4;
    // Before those, guided draws (a macro rule's schedule, ExploreOptions::guides): each macro
    // rule's best replay, the `guided` fastest of them as predicted at the model's best tuning
    // values near the defaults (modelDescent), within `exploreRatio` by that prediction.
    size_t guided = 2;
    // Refinement rounds (docs/extraction.md): the model's best-ranked terms' neighbours (one
    // lowering choice changed) are checked and ranked too; 0: none. With exploration only.
    size_t refineRounds = 3;
    size_t tuneBudget = 0;        // measured configurations in all; 0: 3 * K
    std::string tuner = "guided"; // "guided" or "random" (docs/tuning.md)
    int runs = 5;                 // timed runs per measurement (after one warm-up)
    // Kernel seconds of timed runs per measurement: runs stop early once they add up to this
    // (at least one timed run), so slow kernels (nbody, 0.7 s a run) cost 2-3 runs, not 6.
    double measureSeconds = 1.0;
    // Seconds for the whole run, device runs included (0: unlimited): a deadline shared out
    // among the stages (Budget::shareEnd). Device work that cannot end before its stage's share
    // does is not started, a kernel that overruns it is abandoned (a kernel time-out), and the
    // most promising candidate is validated as soon as it is measured, so that the best
    // confirmed candidate so far is what the run ends with (docs/pipeline.md, "Time budget").
    double timeBudget = 540;
    // A measurement stops timing after its first run when that run exceeds this many times the
    // fastest measurement so far: such a configuration will not win.
    double slowFactor = 4;
    uint64_t seed = 1;
    bool explain = true;      // record the derivation of the chosen candidate
    std::string recordPath;   // append one costmodel::Record per measured configuration
    codegen::Options codegen; // passed to the code generator
    const StopToken* stop = nullptr;
    // One line per step (no newline); with several devices, a device run's line comes from
    // that device's thread (one call at a time).
    std::function<void(std::string_view)> progress;
    std::function<void(const StageEvent&)> stageDone; // one event per stage, at its end
};

// One measured configuration of a candidate.
struct Measurement {
    arith::Bindings values; // tuning variables
    bool ok = false;        // built and ran
    std::string error;      // why not
    double seconds = 0;     // median of the timed runs
    double predicted = 0;   // model's seconds (0 if it could not predict)
    size_t device = 0;      // the OpenCL index (runtime::Device::index) of the device it ran on
    int rank = 0;           // the MPI rank whose device it was (0: this process)
};

// A device the run used: its OpenCL index and runtime::Device::describe().
struct UsedDevice {
    size_t index = 0;
    std::string description;
    int rank = 0; // the MPI rank (process) that used it
};

// An MPI rank of a distributed run (docs/distributed.md): its host, its devices (OpenCL indices
// on that host), the device jobs it completed, and why it was given up on, if it was.
struct RankResult {
    int rank = 0;
    std::string host;
    std::vector<size_t> devices;
    size_t jobs = 0;
    std::string lost; // empty: it worked to the end
};

struct CandidateResult {
    size_t index = 0;        // position in extraction order
    std::string text;        // low-level expression, tuning variables symbolic
    double extractCost = 0;  // the extraction cost function's value
    bool explored = false;   // found by exploration (ranked by the cost model), not the K best
    bool secondView = false; // among the K/2 best of the GPU occupancy view (extract/cost.hpp)
    bool guided = false;     // explored by a guided draw (a macro rule's schedule)
    std::vector<extract::TuningVar> tuning;
    arith::Bindings values;            // chosen tuning values
    std::string lowered;               // the expression with the chosen values
    double predicted = 0;              // model's seconds at the chosen values (0: none)
    std::vector<Measurement> measured; // every configuration the tuner ran
    enum class Status {
        Unmeasured,
        Failed,
        Invalid,
        Valid,
        Unconfirmed
    } status = Status::Unmeasured;
    std::string reason; // for Failed / Invalid / Unmeasured
    // The OpenCL compiler's log of the first configuration that failed to build (its first
    // lines: buildLogExcerpt); the measurement's error holds all of it.
    std::string buildLog;
    double seconds = 0;         // median time at the chosen values
    double gbPerSec = 0;        // input + output bytes / time
    double gflops = 0;          // the model's arithmetic operations / time
    double validationError = 0; // largest relative error against the interpreter
    arith::Bindings validationSizes;
    std::string launchJson; // codegen's plan at the real sizes
    std::string source;     // the OpenCL source at the chosen values
};
std::string_view statusName(CandidateResult::Status s);

// The first lines of a compiler log, enough to show the first errors: at most `maxLines` lines
// and about `maxBytes` bytes, then a line saying how much was left out.
std::string buildLogExcerpt(const std::string& log, size_t maxLines = 30, size_t maxBytes = 4000);

struct PhaseResult {
    std::string name;
    std::vector<std::string> ruleFiles;
    egraph::RunReport run;
    size_t nodes = 0, classes = 0;
    double seconds = 0;
};

struct Result {
    std::string file;
    arith::Bindings sizes;
    std::string device;              // the reference device, described
    std::vector<UsedDevice> devices; // every device used, the reference first
    std::vector<RankResult> ranks;   // with Options::remote: every MPI rank, the coordinator first
    std::string costModel;
    std::string tuner;
    size_t tuneBudget = 0, tuneUsed = 0;
    std::string input;                       // the program as parsed
    std::vector<SizeAssumption> assumptions; // given to saturation, checked at every size bound
    std::vector<PhaseResult> phases;
    size_t nodes = 0, classes = 0;
    extract::ExtractStats extractStats;
    // Exploration: distinct terms drawn, checked by the code generator filter, accepted with new
    // kernels, and taken as candidates.
    size_t exploreDrawn = 0, exploreChecked = 0, exploreAccepted = 0, exploreTaken = 0;
    // Refinement: rounds, neighbours checked, accepted (counted in exploreAccepted too).
    size_t refineRounds = 0, refineChecked = 0, refineAccepted = 0;
    std::vector<extract::Rejection> rejected;
    std::vector<CandidateResult> candidates;
    std::optional<size_t> best;          // index into candidates
    std::vector<std::string> derivation; // "rule: term" steps from the input to the best
    std::string crossCheck;              // the real-size check of the best (docs/pipeline.md)
    double tauCandidates = 0;            // Kendall's tau over the valid candidates
    double tauMeasurements = 0;          // over every successful measurement
    // Over the distinct kernels of the valid candidates (same source and launch: one point, its
    // fastest time); tau is 0 when fewer than 2 differ.
    double tauDistinct = 0;
    size_t distinctKernels = 0;
    bool interrupted = false;
    bool overBudget = false; // some work was cut short or not started for Options::timeBudget
    double timeBudget = 0;   // as given (0: unlimited)
    // Wall seconds per stage (Stage order: load, saturate, extract, explore, tune, validate,
    // time, output); they add up to `seconds`.
    std::array<double, kStageCount> stageSeconds{};
    double seconds = 0;
    std::vector<std::string> notes;
};

// Size assumptions (assumptions.cpp): for each size variable, the largest power of two up to
// `cap` that divides its real value and its value in every companion combination (none below
// 2); stated in the e-graph before saturation; checked wherever the pipeline binds sizes
// (BadInput naming the violated assumption).
std::vector<SizeAssumption> deriveAssumptions(const lift::Program& program,
                                              const arith::Bindings& real,
                                              const std::vector<std::vector<int64_t>>& companion,
                                              int64_t cap);
void assumeAll(egraph::EGraph& g, const std::vector<SizeAssumption>& assumed);
void checkAssumptions(const std::vector<SizeAssumption>& assumed, const arith::Bindings& sizes);
std::string showAssumption(const SizeAssumption& a); // "16 | N"
// The largest assumed divisor of `var` (1: none).
int64_t assumedDivisor(const std::vector<SizeAssumption>& assumed, const std::string& var);

// Runs the pipeline. Throws egopt::Error for bad input (program, sizes, rules, options) and for
// device failures; candidate failures are recorded, not thrown.
Result run(const Options& options);

} // namespace egopt::pipeline
