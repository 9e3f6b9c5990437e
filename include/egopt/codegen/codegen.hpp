// The OpenCL code generator (CGO'17 §5): from a typechecked, fully lowered Lift program to
// OpenCL C source plus the launch configuration and buffer layout the host side needs.
//
//     lift::Program p = lift::parseFile("copy_vec4.lift");
//     lift::TypeInfo info = lift::typecheck(p);
//     codegen::GeneratedCode code = codegen::generate(p, info, {{"N", 1024}});
//     // code.source: one .cl text; code.kernel: name, arguments, NDRange sizes
//
// Sizes are substituted by their concrete values before generation, so every array length and
// launch size is a constant; thread and loop indices stay symbolic and index expressions are
// simplified with their ranges (so transposition indices need no `/` or `%`).
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"
#include "egopt/lift/typecheck.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace egopt::codegen {

// One kernel argument, in argument order.
struct KernelArg {
    enum class Kind : uint8_t {
        Input,  // a top-level parameter (array: a __global buffer; scalar: passed by value)
        Output, // the program's result
        Temp,   // an intermediate __global buffer allocated by the host
    };
    Kind kind = Kind::Input;
    std::string name;
    int paramIndex = -1;   // Input: position in the top-level lambda's parameters
    lift::TypeId type = 0; // the (concrete) Lift type of the data
    size_t bytes = 0;      // buffer size (Output, Temp, array Input)
    bool isBuffer = true;  // false for a scalar Input passed by value
};

struct LaunchConfig {
    uint32_t dims = 1;
    std::array<size_t, 3> global{1, 1, 1};
    std::array<size_t, 3> local{1, 1, 1};
    bool driverLocal = true; // no MapWrg/MapLcl: let the driver pick the work-group size
};

struct KernelInfo {
    std::string name;
    std::vector<KernelArg> args;
    LaunchConfig launch;
    size_t localBytes = 0; // __local memory declared by the kernel
    int barriers = 0;      // barrier() calls emitted
};

struct Options {
    // Upper bound for the work-group size chosen from MapLcl extents: larger MapLcl extents run
    // in a loop over the local threads.
    size_t maxLocalSize = 256;
    std::string kernelName = "KERNEL";
};

struct GeneratedCode {
    std::string source; // the whole .cl text (typedefs, user functions, kernel)
    KernelInfo kernel;
    lift::TypeId outputType = 0;
    // The launch configuration and arguments as JSON (written beside the .cl).
    std::string launchJson() const;
};

// Throws egopt::Error (BadInput) naming the node (pattern name and source location) when the
// program is not fully lowered (a Map or Reduce outside sequential context, MapLcl outside
// MapWrg, nested parallel maps of one kind and dimension) or uses something not supported.
GeneratedCode generate(lift::Program& program, const lift::TypeInfo& info,
                       const arith::Bindings& sizes, const Options& options = {});

} // namespace egopt::codegen
