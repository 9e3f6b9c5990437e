// What `egopt PROGRAM` is asked to do (pipeline::run's input), grouped as the command line
// groups it (docs/pipeline.md, "Options"): saturation (the same options as `egopt saturate` and
// `egopt prove`), the search for candidates (extraction, exploration, refinement) and tuning.
// Modes are enums; their names on the command line come from the *Name/parse* functions here.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/pipeline/saturation.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

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

// Which device the extraction's StructuralCost optimises for: a GPU (coalescing and global
// stores count), a CPU, or Auto (GPU when the device's type says GPU).
enum class ExtractTarget : uint8_t { Auto, Gpu, Cpu };
// How the tuner picks configurations (docs/tuning.md): model-guided, or uniformly at random (the
// baseline it is measured against).
enum class TunerKind : uint8_t { Guided, Random };

std::string_view extractTargetName(ExtractTarget t); // "auto", "gpu", "cpu"
std::string_view tunerName(TunerKind t);             // "guided", "random"
std::optional<ExtractTarget> parseExtractTarget(std::string_view name);
std::optional<TunerKind> parseTuner(std::string_view name);

// The search for candidates (docs/extraction.md).
inline constexpr size_t kNoMacroStages = 5;

struct SearchOptions {
    size_t candidates = 16; // K, the extraction's best terms
    ExtractTarget target = ExtractTarget::Auto;
    // Exploration: random terms drawn from the extraction's states; of those accepted, `keep`
    // the cost model predicts fastest join the K candidates (only those predicted at most
    // `ratio` times the best candidate's time).
    size_t draws = 2000;
    size_t keep = 4;
    double ratio = 4;
    // Before those, guided draws (a composite rule's schedule, ExploreOptions::guides): the
    // `keepGuided` best replays, predicted at the model's best tuning values near the defaults
    // (modelDescent), within `ratio` by that prediction.
    size_t keepGuided = 2;
    // Refinement rounds: the model's best-ranked terms' neighbours (one lowering choice
    // changed) are checked and ranked too; 0: none. With exploration only.
    size_t refineRounds = 3;
    // Search stages (docs/search.md): after the first saturation and extraction, each further
    // stage runs the rule phases again around the `beam` candidates the model predicts fastest
    // (only their e-classes and what rewriting them creates), then extracts again, so that
    // rewrites compose deeper than one saturation reaches without growing the whole e-graph.
    // 0: automatic, 1 with the composite rules and kNoMacroStages without them (`--no-macros`:
    // the primitive rules need the depth; docs/search.md has the measurements).
    size_t stages = 0;
    size_t beam = 8;
    // Extraction's lists keep one term per shape (extract::SearchOptions::distinctShapes;
    // docs/search.md, "Shapes": off by default, its fixed point is slow at large sizes).
    bool distinctShapes = false;
};

// Tuning and timing (docs/tuning.md).
struct TuneOptions {
    size_t budget = 0; // measured configurations in all; 0: 3 * K
    TunerKind tuner = TunerKind::Guided;
    int runs = 5; // timed runs per measurement (after one warm-up)
    // Kernel seconds of timed runs per measurement: runs stop early once they add up to this
    // (at least one timed run), so slow kernels (nbody, 0.7 s a run) cost 2-3 runs, not 6.
    double measureSeconds = 1.0;
    // A measurement stops timing after its first run when that run exceeds this many times the
    // fastest measurement so far: such a configuration will not win.
    double slowFactor = 4;
    // The guided search leaves out candidates predicted over this many times slower than the
    // best-predicted one while the others measure (GuidedOptions::farRatio; 0: none left out).
    double farRatio = 16;
    // Confirmation validates candidates fastest first until this many are valid: the chosen one
    // and those its real-size output is cross-checked against (and more when the cross-check
    // rejects one); the slower ones stay `unconfirmed`. 0: every measured candidate (what a
    // cost-model study of valid candidates needs).
    size_t validate = 3;
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
    // Processes that compile the tuner's OpenCL programs in parallel (runtime::CompilerPool; a
    // GPU driver compiles one program at a time per process): the egopt executable to start as
    // `egopt compile-worker`, and how many. nullopt: on one GPU, half the host's cores up to 8
    // (none below 4 cores); 0: none; N: N on any device. Without an executable, none.
    std::string workerExecutable;
    std::optional<size_t> compileWorkers;
    SaturationOptions saturation;
    // Size assumptions: for each size variable, the largest power of two up to this cap that
    // divides its real value and every companion combination's value; < 2: none.
    int64_t assumeDivisorCap = 128;
    std::string costModel = "analytic"; // costmodel::loadModel name or file
    SearchOptions search;
    TuneOptions tune;
    // Seconds for the whole run, device runs included (0: unlimited): a deadline shared out
    // among the stages (Budget::shareEnd). Device work that cannot end before its stage's share
    // does is not started, a kernel that overruns it is abandoned (a kernel time-out), and the
    // most promising candidate is validated as soon as it is measured, so that the best
    // confirmed candidate so far is what the run ends with (docs/pipeline.md, "Time budget").
    double timeBudget = 540;
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

} // namespace egopt::pipeline
