// Pluggable cost functions for extraction (docs/extraction.md). The analytic and learned models
// of costmodel/ implement CostFunction; StructuralCost is the default.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/extract/context.hpp"

#include <span>

namespace egopt::extract {

// A child of the node being costed, as chosen in the candidate term being built.
struct ChildChoice {
    egraph::EClassId eclass = egraph::kNoClass;
    Context context;
    egraph::ENodeId node = 0; // the root e-node of the child's term
    double cost = 0;
};

struct CostInput {
    const egraph::EGraph& graph;
    egraph::EClassId eclass; // canonical class of the node
    const egraph::ENode& node;
    Context context;
    // For function-valued classes: the types the function is applied to here (empty when
    // unknown); the e-class analysis gives the type of data classes (graph.data(c).type).
    std::span<const lift::TypeId> argTypes;
    std::span<const ChildChoice> children;
    const arith::Bindings& sizes; // concrete sizes when known (may be empty)
};

// The cost of a node given its children's costs. Requirements (the K-best search relies on
// them): deterministic; non-decreasing in each child's cost when the other children are fixed
// (the children's costs may be combined in any monotone way: sums, products with non-negative
// factors, maxima); and greater than every child's cost, so that a term costs more than its
// subterms. It should not depend on a child's structure beyond what `children` gives, or the
// K-best lists may miss combinations.
class CostFunction {
public:
    virtual ~CostFunction() = default;
    virtual double cost(const CostInput& in) const = 0;
};

// The default: an estimate of the work of the longest-running thread. Every node costs 1 plus
// its children; a sequential map or reduction multiplies its function's cost by the length it
// runs over, a thread map by the iterations left to each thread (length / threads per level:
// MapGlb 4096, MapWrg 64, MapLcl 128), Iterate by its count. So parallel maps are preferred at
// the outer levels and sequential work is penalised. Lengths are evaluated with the concrete
// sizes; unknown variables (tuning variables) count as `unknownSize`.
class StructuralCost : public CostFunction {
public:
    struct Params {
        double glbThreads = 4096;
        double wrgGroups = 64;
        double lclThreads = 128;
        double unknownSize = 32;
    };
    StructuralCost() = default;
    explicit StructuralCost(Params p) : p_(p) {}
    double cost(const CostInput& in) const override;

private:
    Params p_;
};

// The value of a size under `sizes`, unknown variables counting as `fallback`; at least 1.
double estimateSize(const arith::Size& s, const arith::Bindings& sizes, double fallback);

} // namespace egopt::extract
