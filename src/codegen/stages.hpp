// Internal to codegen: splitting a program into kernels (docs/design.md §8, "kernels split at
// work-group boundaries"). OpenCL has no global barrier inside a kernel, so where a top-level
// parallel pattern (MapGlb, MapWrg) consumes the result of another top-level computation, or a
// top-level sequential computation consumes a parallel one, the producer ends a kernel: its
// result is materialised in an intermediate buffer that the host allocates, and the consumer
// reads it in a later kernel. Chains of sequential top-level computations stay in one
// (single work-item) kernel, and data-layout patterns between kernels remain views.
#pragma once

#include "egopt/lift/ir.hpp"

#include <utility>
#include <vector>

namespace egopt::codegen::detail {

struct StagePlan {
    // Top-level computations whose results are materialised, producers before consumers; one
    // kernel each, then a last kernel for the program's result.
    std::vector<lift::NodeId> stages;
    // Top-level lambda applications (`fun(p => body) $ arg`, a let), outer before inner. Their
    // array-valued arguments are always materialised, so a parameter is a view of buffers.
    std::vector<lift::NodeId> lets;
};

StagePlan planStages(const lift::Program& program);

// Data-layout functions (layouts.cpp). Invertible: a producer may write through them (Split,
// Join, Transpose, Gather, Scatter, asVector, ... and Maps of them). Read: a Map may apply them
// as a read-only view; also the stencil layouts (Slide, Pad), tuple and element access, and
// lambdas whose body only rearranges their parameters (Zip2D's t => Zip(t._0, t._1)).
bool isInvertibleLayout(const lift::Program& p, lift::NodeId fun);
bool isReadLayout(const lift::Program& p, lift::NodeId fun);
// An expression built from parameters by read layouts only: generating it emits no code.
bool isLayoutExpr(const lift::Program& p, lift::NodeId expr);

// What the kernel computing `root` reads, when stages [0, done) are materialised.
struct KernelUses {
    std::vector<int> params;    // top-level parameters (indices into Program::params), in order
    std::vector<size_t> stages; // materialised stages read, ascending
    // Let parameters it uses and their argument expressions, outer lets first.
    std::vector<std::pair<lift::NodeId, lift::NodeId>> lets;
};

KernelUses usesOf(const lift::Program& program, lift::NodeId root, const StagePlan& plan,
                  size_t done);

} // namespace egopt::codegen::detail
