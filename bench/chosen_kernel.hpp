// The kernel that `egopt PROGRAM.lift --output-dir DIR` chose, loaded back from its two outputs
// (PROGRAM.cl and PROGRAM.report.json) so that bench/egopt_bench can time it with the anchors'
// Timer. The report's chosen candidate carries the code generator's launch plan: the kernels in
// launch order, their global and local sizes, and every argument with its kind and byte size.
//
//     ChosenKernel chosen = loadChosen(dir + "/gemv.report.json", dir + "/gemv.cl");
//     BoundPlan plan(session, chosen, inputs);    // inputs by top-level parameter
//     Samples s = timer.measure([&](cl_command_queue q) { return plan.enqueue(q); });
#pragma once

#include "harness.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace egopt::bench {

struct PlanArg {
    enum class Kind : uint8_t { Input, Output, Temp, Intermediate, Size };
    Kind kind = Kind::Input;
    std::string name;
    size_t bytes = 0;      // buffers and scalar inputs
    int param = -1;        // Input: position among the program's parameters
    bool buffer = true;    // false for scalar inputs and sizes
    int intermediate = -1; // Intermediate: index into ChosenKernel::intermediateBytes
};

struct PlanKernel {
    std::string name;
    runtime::NDRange global;
    runtime::NDRange local; // 0 dimensions: the driver chooses
    std::vector<PlanArg> args;
};

struct ChosenKernel {
    std::string source;                    // the whole .cl file (its header is a comment)
    std::map<std::string, int64_t> sizes;  // the report's input sizes
    std::string expression;                // the chosen low-level expression
    double pipelineSeconds = 0;            // the pipeline's own median for it
    std::vector<PlanKernel> kernels;       // launch order
    std::vector<size_t> intermediateBytes; // buffers passed between kernels
    std::vector<size_t> paramBytes;        // by parameter; a scalar's size for scalars
    std::vector<bool> paramIsBuffer;
    size_t outputBytes = 0;
};

// Throws Error (BadInput) when a file is missing, the report has no chosen candidate, or the
// plan has a size that is not a number (the pipeline binds every size, so it should not).
ChosenKernel loadChosen(const std::string& reportPath, const std::string& clPath);

// Inputs once and the output once: the compulsory traffic of one run (temporaries and
// intermediates, which a fused kernel would not need, are not counted).
double compulsoryBytes(const ChosenKernel& chosen);

// A top-level parameter's value: a device buffer or a float scalar.
struct ParamValue {
    runtime::Buffer buffer;
    float scalar = 0;
};

// The chosen kernels built, with their arguments set: the caller's inputs, a fresh output
// buffer, and fresh temporaries and intermediates. enqueue() runs the whole sequence, so
// multi-kernel plans are timed as one run.
class BoundPlan {
public:
    BoundPlan(runtime::Session& session, const ChosenKernel& chosen,
              const std::vector<ParamValue>& params);

    // Enqueues every kernel in order and returns the last one's event.
    runtime::Handle<cl_event> enqueue(cl_command_queue queue) const;
    const runtime::Buffer& output() const { return output_; }

private:
    void setArgs(runtime::Kernel& kernel, const PlanKernel& plan,
                 const std::vector<ParamValue>& params, const ChosenKernel& chosen);

    runtime::Session& session_;
    std::vector<runtime::Kernel> kernels_;
    std::vector<PlanKernel> plans_;
    std::vector<runtime::Buffer> intermediates_;
    std::vector<runtime::Buffer> temps_; // kept alive while the kernels use them
    runtime::Buffer output_;
};

} // namespace egopt::bench
