// Confirmation of generated code on a device (SPEC §9): build the kernel, run it on random
// inputs, compare the output with the reference interpreter and time it.
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/runtime/session.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace egopt::codegen {

struct RunOptions {
    uint64_t seed = 1;
    int warmup = 1;
    int runs = 5;
    // An element matches when |got - want| <= tolerance * max(1, |want|) (float reassociation).
    double tolerance = 1e-3;
    std::chrono::milliseconds timeout = runtime::kDefaultTimeout;
    std::string buildOptions;
};

struct RunResult {
    bool ok = false;
    size_t elements = 0; // output scalars compared, in flattened order
    size_t mismatches = 0;
    double maxError = 0.0; // the largest relative error
    size_t worstIndex = 0; // where it occurred
    double worstGot = 0.0, worstWant = 0.0;
    uint64_t medianNs = 0; // the whole kernel sequence: median over runs of the summed times
    // Per kernel in launch order: name and median time (one entry for single-kernel programs).
    std::vector<std::pair<std::string, uint64_t>> kernelMedianNs;
    size_t bytes = 0; // inputs + output moved by one run (intermediates excluded)
    double gbPerSec = 0.0;
    std::string summary() const; // "OK max error 1.2e-07 ..." / "FAIL ..."
};

// Runs the kernel sequence of `code` at `sizes` (which must bind every size variable; a symbolic
// kernel gets them as arguments): uploads inputs, allocates intermediates and the output, runs
// warm-up sequences, then timed ones, and compares the output with the interpreter.
// Throws runtime::BuildError with the build log when the source does not compile and
// egopt::Error for launch failures; a wrong result is a RunResult with ok == false.
RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options = {});

} // namespace egopt::codegen
