// Running generated code on a device (SPEC §9): build the kernels, run them on random inputs and
// time them; runAndValidate also compares the output with the reference interpreter, runTimed
// does not (for timing at sizes too large for the interpreter).
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/runtime/session.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace egopt::codegen {

struct RunOptions {
    uint64_t seed = 1; // of the random inputs, where the entry point makes them
    int warmup = 1;
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
    bool keepOutput = false; // fill TimedResult::output
    std::string buildOptions;
};

struct TimedResult {
    uint64_t medianNs = 0; // the whole kernel sequence: median over runs of the summed times
    // Per kernel in launch order: name and median time (one entry for single-kernel programs).
    std::vector<std::pair<std::string, uint64_t>> kernelMedianNs;
    size_t bytes = 0; // inputs + output moved by one run (intermediates excluded)
    double gbPerSec = 0.0;
    // The output's scalars in memory order, when RunOptions::keepOutput.
    std::vector<double> output;
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

// Random inputs of one program at fixed sizes and their device copies on one session, uploaded
// on first use: timing many candidates of a program uploads each input once. The buffers belong
// to `session`; after a KernelTimeout make new DeviceInputs on a fresh session.
class DeviceInputs {
public:
    DeviceInputs(runtime::Session& session,
                 std::shared_ptr<const std::vector<interp::Value>> values);
    runtime::Session& session() const { return session_; }
    const interp::Value& value(size_t param) const;
    // Parameter `param` laid out as `type`, its concrete (size-substituted) type in `types`.
    runtime::Buffer buffer(size_t param, const lift::TypeArena& types, lift::TypeId type);

private:
    runtime::Session& session_;
    std::shared_ptr<const std::vector<interp::Value>> values_;
    std::vector<std::optional<runtime::Buffer>> buffers_; // by parameter index
};

// Runs the kernel sequence of `code` at `sizes` (which must bind every size variable; a symbolic
// kernel gets them as arguments): uploads inputs, allocates intermediates and the output, runs
// warm-up sequences, then timed ones, and compares the output with the interpreter.
// Throws runtime::BuildError with the build log when the source does not compile and
// egopt::Error for launch failures; a wrong result is a RunResult with ok == false. A
// runtime::KernelTimeout is rethrown after waiting up to options.drain for the kernel, with a
// message saying whether it ended.
RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options = {});

// As runAndValidate without the interpreter: times the sequence on `inputs` (which must be values
// of `program`'s parameters at `sizes`) and returns the times and, when asked, the output.
TimedResult runTimed(DeviceInputs& inputs, lift::Program& program, const arith::Bindings& sizes,
                     const GeneratedCode& code, const RunOptions& options = {});
// The same on random inputs from options.seed.
TimedResult runTimed(runtime::Session& session, lift::Program& program,
                     const arith::Bindings& sizes, const GeneratedCode& code,
                     const RunOptions& options = {});

} // namespace egopt::codegen
