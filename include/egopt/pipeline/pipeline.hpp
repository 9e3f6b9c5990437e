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
#include "egopt/pipeline/options.hpp"
#include "egopt/pipeline/saturation.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::pipeline {

// A fact saturation may assume (docs/pipeline.md, "Size assumptions"): `divisor` divides the
// size variable `var` at every size the pipeline instantiates the candidates at.
struct SizeAssumption {
    std::string var;
    int64_t divisor = 1;
    friend bool operator==(const SizeAssumption&, const SizeAssumption&) = default;
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

struct Result {
    std::string file;
    arith::Bindings sizes;
    std::string device;              // the reference device, described
    std::vector<UsedDevice> devices; // every device used, the reference first
    std::vector<RankResult> ranks;   // with Options::remote: every MPI rank, the coordinator first
    std::string costModel;
    TunerKind tuner = TunerKind::Guided;
    size_t tuneBudget = 0, tuneUsed = 0;
    // Compile worker processes started (Options::compileWorkers), and the tuner's programs
    // loaded from their binaries.
    size_t compileWorkers = 0, programsFromWorkers = 0;
    std::string input;                       // the program as parsed
    std::vector<SizeAssumption> assumptions; // given to saturation, checked at every size bound
    std::vector<PhaseResult> phases;
    size_t nodes = 0, classes = 0;
    size_t egraphBytes = 0;  // EGraph::memoryBytes after the last stage (the e-graph only grows)
    double peakRssMb = 0;    // the process's peak resident set when the run ends (getrusage)
    size_t searchStages = 0; // saturation and extraction rounds run (SearchOptions::stages)
    extract::ExtractStats extractStats;
    // Exploration: distinct terms drawn, checked by the code generator filter, accepted with new
    // kernels, and taken as candidates.
    size_t exploreDrawn = 0, exploreChecked = 0, exploreAccepted = 0, exploreTaken = 0;
    // Refinement: rounds, neighbours checked, accepted (counted in exploreAccepted too).
    size_t refineRounds = 0, refineChecked = 0, refineAccepted = 0;
    std::vector<extract::Rejection> rejected;
    // The last stage's guided draws that the code generator refused: how many, and the first
    // few with their reasons (extract::ExtractResult::guidedRejected).
    size_t guidedRejectedCount = 0;
    std::vector<extract::Rejection> guidedRejected;
    std::vector<CandidateResult> candidates;
    std::optional<size_t> best;          // index into candidates
    std::vector<std::string> derivation; // "rule: term" steps from the input to the best
    std::string crossCheck;              // the real-size check of the best (docs/pipeline.md)
    // Validation: configurations validated, and the distinct sizes at which the source program
    // was interpreted for them (its reference outputs are shared by every candidate).
    size_t validations = 0, referencesInterpreted = 0;
    double tauCandidates = 0;   // Kendall's tau over the candidates with a time
    double tauMeasurements = 0; // over every successful measurement
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
// 2); stated as size facts before saturation (assumeAll, for conditions such as `divides`);
// checked wherever the pipeline binds sizes (BadInput naming the violated assumption).
std::vector<SizeAssumption> deriveAssumptions(const lift::Program& program,
                                              const arith::Bindings& real,
                                              const std::vector<std::vector<int64_t>>& companion,
                                              int64_t cap);
void assumeAll(egraph::SizeFacts& facts, const std::vector<SizeAssumption>& assumed);
void checkAssumptions(const std::vector<SizeAssumption>& assumed, const arith::Bindings& sizes);
std::string showAssumption(const SizeAssumption& a); // "16 | N"
// The largest assumed divisor of `var` (1: none).
int64_t assumedDivisor(const std::vector<SizeAssumption>& assumed, const std::string& var);

// Runs the pipeline. Throws egopt::Error for bad input (program, sizes, rules, options) and for
// device failures; candidate failures are recorded, not thrown.
Result run(const Options& options);

} // namespace egopt::pipeline
