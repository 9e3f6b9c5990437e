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
#include "egopt/runtime/session.hpp"

#include <memory>
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
// Throws egopt::Error when the configuration does not type-check or generate.
std::unique_ptr<Built> buildAt(const lift::Program& candidate, const arith::Bindings& tuning,
                               const arith::Bindings& sizes, const codegen::Options& options);

struct Timing {
    double seconds = 0;        // median of the timed runs
    size_t bytes = 0;          // inputs + output
    std::vector<float> output; // when requested and the output is made of floats
};

// Times generated code at the real sizes on one device. A kernel time-out makes the session
// unusable (OpenCL cannot cancel a kernel): the next call opens a fresh one.
class Bench {
public:
    Bench(const runtime::Device& device, lift::Program& original, const arith::Bindings& sizes,
          uint64_t seed);
    ~Bench();
    runtime::Session& session();
    // Builds, runs one warm-up and `runs` timed runs (fewer when one run exceeds `slowSeconds`:
    // a configuration that slow is not worth repeating). Throws on build or launch failures.
    Timing time(const Built& b, int runs, bool keepOutput, double slowSeconds = 1.0);

private:
    struct Inputs;
    struct Prepared;
    runtime::Buffer input(size_t param);
    void setArg(runtime::Kernel& kernel, cl_uint index, const codegen::KernelArg& a, const Built& b,
                Prepared& p);
    runtime::Device device_;
    std::unique_ptr<runtime::Session> session_;
    std::unique_ptr<Inputs> inputs_;
};

// Small sizes for validating against the interpreter: for t = 16, 32, 64, ... every size
// variable takes its smallest divisor >= min(t, real value); the first choice at which the
// tuning values satisfy their constraints and the candidate generates is used. nullopt if none
// does before the product of the sizes (a proxy for the interpreter's work) exceeds maxWork.
std::optional<arith::Bindings>
validationSizes(const lift::Program& candidate, const std::vector<extract::TuningVar>& vars,
                const arith::Bindings& tuning, const arith::Bindings& real,
                const codegen::Options& options, double maxWork = double(1 << 22));

// The largest relative difference |a-b| / max(1, |b|) (infinity when lengths differ).
double maxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b);

} // namespace egopt::pipeline
