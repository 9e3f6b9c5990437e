// The programs of bench/codegen: which hand-lowered .lift file, the anchor it is compared with,
// how the problem size binds its size variables, and a host reference for its output.
#pragma once

#include "egopt/arith/size.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace egopt::bench {

// The anchor row timed next to a program: the CLBlast routine of the same operation and size.
enum class Anchor { Copy, Scal, Axpy, Asum, Dot, Gemv, Transpose, Gemm };

// Which size list of the run a program is measured at. Every size variable of the program is
// bound to that one size, so matrices are square and products cubic, as in the anchors.
enum class Shape { Vector, MatVec, Transpose, Cube };

// Value of every scalar (non-array) input, e.g. alpha.
inline constexpr float kScalarInput = 1.5f;

// Inputs are patternValue(i, 1 + k) for the k-th array parameter (counting array parameters
// only, in parameter order), the same data as the anchors' x (seed 1) and y (seed 2).
float inputValue(unsigned arrayParam, size_t i);

struct ProgramSpec {
    std::string name;    // the row's kernel name
    std::string program; // EmbeddedProgram::name
    Shape shape;
    Anchor anchor;
    arith::Bindings checkSizes; // small sizes for the check against the interpreter
    bool computeBound;          // report GFLOP/s, 2 * (product of the sizes) flops
    std::string timed;          // what the timed kernel computes, for the notes under the table
    // Output element i (flattened, row-major) at `sizes`, computed in double from inputValue.
    double (*reference)(const arith::Bindings& sizes, size_t i);
};

std::span<const ProgramSpec> programSpecs();

// "asum", "sgemm": the anchor row's kernel name.
std::string anchorName(Anchor anchor);

} // namespace egopt::bench
