// Running generated code (docs/design.md §9): build the kernels, run them on random inputs and
// time them; runAndValidate also compares the output with the reference interpreter, runTimed
// does not (for timing at sizes too large for the interpreter).
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/runtime/session.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace egopt::codegen {

// The private memory a kernel may declare per work-item (KernelInfo::privateBytes). OpenCL has
// no query for it: private arrays live on the stack (CPU drivers) or spill to slow memory (GPUs).
inline constexpr size_t kPrivateBytesCap = 16 * 1024;
// The private memory of a whole work-group (private bytes x work-group size). PoCL runs a
// work-group on one thread and keeps every work-item's private arrays on that thread's 8 MiB
// stack: at 8 MiB and above it crashes the process (segfault; measured with 16-256 KiB per
// work-item), below it runs. A kernel whose driver-chosen work-group could exceed this gets an
// explicit, smaller one (boundedLocal); one whose explicit work-group exceeds it is rejected.
inline constexpr size_t kPrivateGroupBytesCap = 2 * 1024 * 1024;

// The launch `c` with a work-group size that keeps privateBytes x work-group size within
// groupCap: unchanged when it has explicit local sizes or when even maxWorkGroupSize work-items
// fit; otherwise the largest divisor of the global size in dimension 0 that fits (at least 1),
// 1 in the other dimensions.
LaunchConfig boundedLocal(const LaunchConfig& c, size_t privateBytes, size_t maxWorkGroupSize,
                          size_t groupCap = kPrivateGroupBytesCap);

// Why `code` cannot run on `device` at `sizes`, checked from the plan before anything is built
// or allocated (empty when it fits): private bytes per work-item above `privateCap` (or per
// explicit work-group above kPrivateGroupBytesCap), local bytes
// per work-group above CL_DEVICE_LOCAL_MEM_SIZE, a buffer (input, output, temporary,
// intermediate) above CL_DEVICE_MAX_MEM_ALLOC_SIZE, or all buffers together above
// CL_DEVICE_GLOBAL_MEM_SIZE. Such kernels crash some drivers or fail to allocate.
std::string resourceProblem(const GeneratedCode& code, const arith::Bindings& sizes,
                            const runtime::Device& device, size_t privateCap = kPrivateBytesCap);

// Thrown (before building) by runAndValidate and runTimed for code that does not fit the device.
class ResourceError : public Error {
public:
    explicit ResourceError(const std::string& why);
};

inline constexpr int kMaxWarmupRuns = 64;

struct RunOptions {
    uint64_t seed = 1; // of the random inputs, where the entry point makes them
    int warmup = 1;
    // After those, untimed runs go on until the warm-up has kept the device busy this long (at
    // most kMaxWarmupRuns runs): a GPU raises its clocks only under load, and a kernel of a few
    // milliseconds timed right after an idle pause (the tuner generates and builds code between
    // measurements) runs slower than it does in steady use.
    uint64_t warmupNs = 20'000'000;
    int runs = 5;
    // An element matches when |got - want| <= tolerance * max(1, |want|) (float reassociation).
    double tolerance = 1e-3;
    std::chrono::milliseconds timeout = runtime::kDefaultTimeout;
    // After a KernelTimeout, how long to wait for the abandoned kernel to end before rethrowing:
    // while it runs it slows every later launch on the device (runtime::Session::drain).
    std::chrono::milliseconds drain = runtime::kDefaultTimeout;
    // A sequence run (warm-up included) longer than this is kept and ends the timing: a
    // configuration that slow is not worth repeating. 0: never.
    uint64_t slowRunNs = 0;
    // Timed runs stop once their kernel times add up to this (at least one timed run). 0: never.
    uint64_t budgetNs = 0;
    bool keepOutput = false; // fill TimedResult::output
    // With keepOutput, an output made only of floats fills TimedResult::floats instead, copied
    // from the device's bytes (a 128M-float output is not widened to 1 GB of doubles).
    bool floatOutput = false;
    std::string buildOptions;
    size_t privateCap = kPrivateBytesCap; // see resourceProblem
};

struct TimedResult {
    uint64_t medianNs = 0; // the whole kernel sequence: median over runs of the summed times
    // Per kernel in launch order: name and median time (one entry for single-kernel programs).
    std::vector<std::pair<std::string, uint64_t>> kernelMedianNs;
    size_t bytes = 0; // inputs + output moved by one run (intermediates excluded)
    double gbPerSec = 0.0;
    int warmupRuns = 0; // untimed runs before the timed ones (RunOptions::warmupNs)
    // The output's scalars in memory order, when RunOptions::keepOutput.
    std::vector<double> output;
    std::vector<float> floats; // the output, with RunOptions::floatOutput
};

struct RunResult : TimedResult {
    bool ok = false;
    size_t elements = 0; // output scalars compared, in flattened order
    size_t mismatches = 0;
    double maxError = 0.0; // the largest relative error
    size_t worstIndex = 0; // where it occurred
    double worstGot = 0.0, worstWant = 0.0;
    std::string summary() const; // "OK max error 1.2e-07 ..." / "FAIL ..."
};

// A program's inputs on the host, by parameter: a value (scalars, and arrays at the sizes the
// interpreter runs), or an array's device bytes, laid out as the kernels read it.
struct HostInputs {
    std::vector<interp::Value> values; // an array parameter given as bytes holds a default Value
    std::vector<std::vector<std::byte>> bytes; // empty: the parameter is in `values`
};
// Random inputs at real sizes, each array parameter generated straight into its device bytes: a
// Value tree takes 32 bytes per float and seconds to build and flatten at 128M floats, where the
// bytes take 4. Scalars, ints and tuples as interp::randomInputs draws them (one engine, in
// order); arrays of floats uniform in [-1, 1) from a counter-based hash of (seed, parameter,
// index), filled in parallel. These are not the interpreter's numbers: nothing at real sizes is
// compared with the interpreter (candidates are compared with each other on these inputs).
HostInputs randomHostInputs(lift::Program& program, const arith::Bindings& sizes, uint64_t seed);

// Inputs of one program at fixed sizes and their device copies on one session, uploaded on
// first use: timing many candidates of a program uploads each input once. The buffers belong
// to `session`; after a KernelTimeout make new DeviceInputs on a fresh session.
class DeviceInputs {
public:
    DeviceInputs(runtime::Session& session,
                 std::shared_ptr<const std::vector<interp::Value>> values);
    DeviceInputs(runtime::Session& session, std::shared_ptr<const HostInputs> inputs);
    runtime::Session& session() const { return session_; }
    // A scalar parameter's value (or an array's, when the inputs hold it as a value).
    const interp::Value& value(size_t param) const;
    // Parameter `param` laid out as `type`, its concrete (size-substituted) type in `types`.
    runtime::Buffer buffer(size_t param, const lift::TypeArena& types, lift::TypeId type);
    // Uploads now, and moves to the device, every parameter whose bytes the host inputs already
    // hold (randomHostInputs lays arrays out ahead), so that the first timed run does not wait
    // for them (asum's 512 MiB at N = 128M).
    void uploadPrepared();

private:
    runtime::Session& session_;
    std::shared_ptr<const HostInputs> inputs_;
    std::vector<std::optional<runtime::Buffer>> buffers_; // by parameter index
};

// What a program must compute at fixed sizes: its random inputs (interp::randomInputs with
// `seed`) and the reference interpreter's output on them, flattened to scalars in memory order.
struct Reference {
    std::shared_ptr<const std::vector<interp::Value>> inputs;
    std::vector<double> expected;
};
Reference interpretReference(lift::Program& program, const lift::TypeInfo& info,
                             const arith::Bindings& sizes, uint64_t seed);

// Runs the kernel sequence of `code` at `sizes` (which must bind every size variable; a symbolic
// kernel gets them as arguments): uploads inputs, allocates intermediates and the output, runs
// warm-up sequences, then timed ones, and compares the output with the interpreter.
// Throws ResourceError before building when the code does not fit the device
// (resourceProblem), runtime::BuildError with the build log when the source does not compile and
// egopt::Error for launch failures; a wrong result is a RunResult with ok == false. A
// runtime::KernelTimeout is rethrown after waiting up to options.drain for the kernel, with a
// message saying whether it ended.
RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options = {});

// As runAndValidate, against a reference computed beforehand: the program's own, or that of
// another program with the same parameters and meaning (the source program a candidate was
// derived from, interpreted once for all candidates validated at these sizes).
RunResult runAndCompare(runtime::Session& session, lift::Program& program,
                        const arith::Bindings& sizes, const GeneratedCode& code,
                        const Reference& reference, const RunOptions& options = {});

// As runAndValidate without the interpreter: times the sequence on `inputs` (which must be values
// of `program`'s parameters at `sizes`) and returns the times and, when asked, the output.
TimedResult runTimed(DeviceInputs& inputs, lift::Program& program, const arith::Bindings& sizes,
                     const GeneratedCode& code, const RunOptions& options = {});
// The same on random inputs from options.seed.
TimedResult runTimed(runtime::Session& session, lift::Program& program,
                     const arith::Bindings& sizes, const GeneratedCode& code,
                     const RunOptions& options = {});

} // namespace egopt::codegen
