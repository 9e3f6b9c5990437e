// Device work of the pipeline (docs/pipeline.md): generating a candidate at concrete sizes,
// timing it at the real sizes without the interpreter (inputs uploaded once and shared by every
// candidate), and validating it against the interpreter at small sizes derived from its
// constraints.
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/codegen/validate.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/pipeline/pipeline.hpp"
#include "egopt/runtime/compiler_pool.hpp"
#include "egopt/runtime/session.hpp"

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace egopt::pipeline {

// A candidate with its tuning values substituted, type-checked and generated at `sizes`.
struct Built {
    lift::Program program;
    lift::TypeInfo info;
    codegen::GeneratedCode code;
    arith::Bindings sizes;
};
// Throws egopt::Error when the configuration does not type-check or generate, or when `sizes`
// violate the size assumptions the candidate was derived under (BadInput).
std::unique_ptr<Built> buildAt(const lift::Program& candidate, const arith::Bindings& tuning,
                               const arith::Bindings& sizes, const codegen::Options& options,
                               const std::vector<SizeAssumption>& assumed);

struct Timing {
    double seconds = 0;        // median of the timed runs
    size_t bytes = 0;          // inputs + output
    std::vector<float> output; // when requested and the output is made of floats
    // A kernel abandoned after an earlier time-out was still running on the device (it cannot be
    // cancelled), so `seconds` may be too long.
    bool disturbed = false;
};

// Times generated code at the real sizes on one device, on random inputs uploaded once per
// session and shared by every candidate. A kernel time-out makes the session unusable (OpenCL
// cannot cancel a kernel); codegen waits a bounded time for the kernel to end before rethrowing,
// and the next call opens a fresh session, so the Bench stays usable.
class Bench {
public:
    Bench(const runtime::Device& device, lift::Program& original, const arith::Bindings& sizes,
          uint64_t seed);
    // Another device's bench on the same inputs (`other`'s), so that every device times the
    // candidates on the same data. Each Bench is used by one thread at a time.
    Bench(const runtime::Device& device, const Bench& other);
    ~Bench();
    const runtime::Device& device() const { return device_; }
    // The session for device work, a fresh one when the last one was abandoned.
    runtime::Session& session();
    // Opens the first session (the OpenCL context, 1.5-2 s on NVIDIA where it initialises CUDA,
    // and the inputs' upload) on another thread, while the caller saturates and extracts; the
    // first session() takes it, or rethrows what failed.
    void openAhead();
    // Builds, runs one warm-up and `runs` timed runs (fewer when one run exceeds `slowSeconds`:
    // a configuration that slow is not worth repeating, or when the timed runs add up to
    // `budgetSeconds`). A run longer than `timeoutSeconds` is abandoned (runtime::KernelTimeout,
    // after waiting as long again at most for the kernel to end). Throws on build or launch
    // failures, and codegen::ResourceError before building when the code does not fit the
    // device.
    Timing time(Built& b, int runs, bool keepOutput, double slowSeconds = 1.0,
                double budgetSeconds = 0, double timeoutSeconds = 10.0);
    // Starts building `b`'s program on another thread (runtime::Session::prebuild), for a time()
    // of it soon.
    void prebuild(const Built& b);
    // Prebuilds compile in `pool`'s worker processes, in this session and every later one.
    void useCompilerPool(std::shared_ptr<runtime::CompilerPool> pool);
    bool hasCompilerPool() const { return pool_ != nullptr; }
    // Programs loaded from the workers' binaries over all of this bench's sessions.
    size_t loadedFromWorkers() const;
    // True while a kernel abandoned after a time-out on this Bench is still running.
    bool disturbed();

private:
    struct Live {
        std::unique_ptr<runtime::Session> session;
        std::unique_ptr<codegen::DeviceInputs> inputs; // on `session`, so declared after it
    };
    runtime::Device device_;
    std::shared_ptr<const codegen::HostInputs> inputs_; // at the real sizes, as device bytes
    std::unique_ptr<Live> open() const;

    std::unique_ptr<Live> live_;
    std::future<std::unique_ptr<Live>> opening_; // openAhead's session, until session() takes it
    std::shared_ptr<runtime::CompilerPool> pool_;
    size_t loadedBefore_ = 0; // by the sessions before live_
    // Abandoned sessions whose kernel was still running when last asked; kept to report it.
    std::vector<std::unique_ptr<Live>> hung_;
};

// The reference interpreter's outputs for the source program at validation sizes, each computed
// once and shared by every candidate validated at those sizes: the candidates of one run are
// validated at few distinct sizes (mm's at 128^3 and 256 x 128^3 under 128 | M, N, K), and the
// interpreter dominates a validation there (seconds, against a build and a run in tenths). The
// source program is also the stronger reference: a candidate is compared with what the program
// means, not with the interpreter's reading of its own rewritten term. Safe to use from the
// devices' threads; one interpretation runs at a time.
class References {
public:
    References(const lift::Program& original, uint64_t seed);
    // Whether `candidate` takes the source program's parameters (names and declared types), so
    // that the source's inputs and reference are its own (else validate it on its own).
    bool applyTo(const lift::Program& candidate) const;
    // The reference at `sizes` (every size variable bound); rethrows the interpreter's error.
    std::shared_ptr<const codegen::Reference> at(const arith::Bindings& sizes);
    size_t interpreted() const; // distinct sizes interpreted so far
    // Seconds the interpreter would take at `sizes`: 0 once interpreted, else the slowest rate
    // seen so far (seconds per product of the sizes) times their product (0 before any).
    double secondsToInterpret(const arith::Bindings& sizes) const;

private:
    using Entry = std::shared_future<std::shared_ptr<const codegen::Reference>>;
    lift::Program program_;
    lift::TypeInfo info_;
    uint64_t seed_;
    mutable std::mutex mutex_; // guards entries_
    std::mutex interpreting_;  // the program's type arena grows while it is interpreted
    std::map<arith::Bindings, Entry> entries_;
    double secondsPerWork_ = 0; // guarded by mutex_
};

// The interpreter's work for generated code: user-function calls, as the cost model counts
// them (nbody's N² interactions, where the product of the sizes says N).
using WorkEstimate = std::function<double(const Built&)>;

// The interpreter's work in calls for `calls` user-function calls that execute `ops` C
// operations: the calls, or an eighth of calls and operations together where that is less.
// Its time goes with calls plus operations (about 0.15 us each on one core: asum's 8M calls of
// one operation take 1.2 s, nbody's 1M calls of 30 operations 4.7 s), so a bound of 2^22 lets
// cheap bodies run 2^25 calls and operations (asum at N = 2^22, whose splits of 2^27 need it)
// and keeps nbody's 2^22 calls.
double interpreterWork(double calls, double ops);

// Small sizes for validating against the interpreter: for t = 16, 32, 64, ... every size
// variable takes its smallest divisor >= min(t, real value) that is a multiple of its assumed
// divisor; at the first t at which the tuning values satisfy their constraints and the
// candidate generates, each variable is shrunk again on its own (16, 32, ... while that still
// holds). nullopt if no t works, when both the result's product of sizes and its inputs' and
// output's 4-byte words exceed maxWork, or when its work by `estimate` exceeds maxCalls (the
// interpreter would take too long).
std::optional<arith::Bindings>
validationSizes(const lift::Program& candidate, const std::vector<extract::TuningVar>& vars,
                const arith::Bindings& tuning, const arith::Bindings& real,
                const codegen::Options& options, const std::vector<SizeAssumption>& assumed,
                double maxWork = double(1 << 22), const WorkEstimate& estimate = {},
                double maxCalls = double(1 << 22));

// The largest relative difference |a-b| / max(1, |b|) (infinity when lengths differ).
double maxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b);

} // namespace egopt::pipeline
