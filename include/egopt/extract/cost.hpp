// Pluggable cost functions for extraction (docs/extraction.md). The analytic and learned models
// of costmodel/ implement CostFunction; StructuralCost is the default.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/egraph/rewrite_context.hpp"
#include "egopt/extract/context.hpp"

#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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
    // The fields of a device context (ContextField bits) the cost of `node` reads there, of
    // its own context or its children's. The search gives a term in a device context only the
    // fields that it, its subterms and their costs read (Context::projected), so that terms
    // which do not depend on where they run are ranked once. Default: every field.
    virtual uint8_t deviceContextReads(const egraph::ENode& node) const {
        (void)node;
        return kAllContextFields;
    }
};

// The default: an estimate of the work of the longest-running thread. Every node costs 1 plus
// its children; a sequential map or reduction multiplies its function's cost by the length it
// runs over, a thread map by the iterations left to each thread (length / threads per level:
// MapGlb 4096, MapWrg 32, MapLcl 128; 1 for a map nested in one of its kind; a MapLcl at
// work-group level adds a barrier; MapSeq and MapLcl add `store` per element), Iterate by its
// count, a lane-wise function (VectorizeUserFun, MapVec) costs its scalar function, and each
// kernel launch adds `launch` (and `globalStore` per scalar of its result over the threads),
// except a one-thread kernel that another one reads (they are one
// kernel), so a chain of kernels that each shrink the data a little is not preferred to one
// partial reduction and a short final one. Lengths are evaluated
// with the concrete sizes and, for tuning variables, the plausible values of `plausibleTuning`
// (when constructed with an e-graph and its tuning space); other unknown variables count as
// `unknownSize`. A fixed guess for every tuning variable would make each further split look cheaper
// (the length it leaves shrinks by the guess again); a value tied to the length it divides does
// not.
class StructuralCost : public CostFunction {
public:
    // A thread map's nesting in its own kind (threadMap); on the host, a kernel launch.
    uint8_t deviceContextReads(const egraph::ENode& node) const override;
    struct Params {
        // wrgGroups * lclThreads == glbThreads: work-groups of local threads are not more
        // parallel than global threads.
        double glbThreads = 4096;
        double wrgGroups = 32;
        double lclThreads = 128;
        double barrier = 64; // a MapLcl at work-group level: the barrier after it
        double store =
            8; // per element a MapSeq/MapLcl stores (what fusion into its consumer saves)
        double unknownSize = 32;
        double launch = 4096;
        // Factor on the per-thread work of a global or local thread map applied to
        // contiguous chunks (`Split(c) $ y`, c > 1, y not `Gather(ReorderWithStride(n / c))`):
        // adjacent threads read elements c apart, so on a GPU a warp's load touches one cache
        // line per thread instead of one in all. 1 (no preference) suits a CPU, where each
        // thread walking its own chunk is what the caches want; gpu() sets 4.
        double uncoalesced = 1;
        // Per scalar (vector lanes count one each) of a kernel's result, which it writes to
        // global memory for its consumer to read back, shared by glbThreads threads: on a GPU
        // the traffic, not the arithmetic, decides, and a vectorised map in its own kernel (abs
        // over float16, by a MapGlb or by a MapWrg's MapLcls) would otherwise look cheaper than
        // fusing it into the reduction that reads it. 0 on a CPU, where the caches absorb much
        // of it; gpu() sets 4.
        double globalStore = 0;
        // The most bytes of a vector one access moves; 0: any width. On a GPU a work-item's
        // access of more than 16 bytes is split into pieces that its neighbours' pieces
        // interleave (scal over float16 ran 5.9x slower than over float4 on an H200): a loop
        // over wider vectors counts their 16-byte pieces, and a lane-wise function over them
        // costs `uncoalesced` times its scalar function, so float4 ranks above float8 and
        // float16. gpu() sets 16.
        double vectorBytes = 0;
        static Params gpu() {
            Params p;
            p.uncoalesced = 4;
            p.globalStore = 16;
            p.vectorBytes = 16;
            return p;
        }
        // The same GPU at full occupancy: an H100/H200 keeps 132 x 2048 threads in flight and
        // needs them to hide memory latency. With 4096, a level of a reduction looks 16 times
        // longer than it is, so a one-thread fold of thousands of partial results costs no more
        // than the level that feeds it, and work-group-per-row forms (gemv) look serial. This
        // view ranks multi-level reductions and work-group maps first; gpu()'s ranks the 2-D
        // thread maps of mm first. The pipeline extracts with both (ExtractOptions::secondCost).
        static Params gpuOccupancy() {
            Params p = gpu();
            p.glbThreads = 65536;
            p.wrgGroups = 512;
            return p;
        }
    };
    StructuralCost() = default;
    explicit StructuralCost(Params p) : p_(p) {}
    // The tuning variables that saturating `g` drew from `tuning`, at their plausible values
    // under `sizes`.
    StructuralCost(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                   const arith::Bindings& sizes);
    StructuralCost(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                   const arith::Bindings& sizes, Params p);
    double cost(const CostInput& in) const override;

private:
    double kernelStoreCost(const CostInput& in, const arith::Bindings& sizes) const;
    double wideVectorFactor(const CostInput& in) const;
    double piecesPerElement(const CostInput& in) const;
    double threadMap(const CostInput& in, double n, double body) const;
    bool contiguousChunks(const CostInput& in, const arith::Bindings& sizes) const;
    Params p_;
    arith::Bindings tuning_; // plausible values of the tuning variables (may be empty)
    // With an e-graph and uncoalesced != 1: the factor of the Split in each function class and
    // the strides of the Gather(ReorderWithStride(s)) applications in each data class, so that
    // the access check is a lookup (classes hold dozens of lowerings; cost() runs millions of
    // times).
    bool indexed_ = false;
    std::unordered_map<egraph::EClassId, std::pair<arith::Size, double>> splits_; // and estimate
    // Per data class: the chunk lengths n / s of its strided gathers (a Split by one of them
    // gives interleaved chunks).
    std::unordered_map<egraph::EClassId, std::vector<arith::Size>> strided_;
    std::unordered_set<egraph::EClassId> contiguous_; // classes of contiguous chunks
    // With tuning values (fixed sizes): the estimated outer length of each argument type of the
    // e-graph (a symbolic substitution on every call was a tenth of the search's time), by type
    // id + 1 (0: no type), NaN until computed. Not safe for concurrent cost() calls: one search
    // uses a cost function at a time.
    mutable std::vector<double> lengths_;
    mutable const egraph::EGraph* lengthsOf_ = nullptr;
};

// A plausible value of each variable of the tuning space: the largest divisor of the length(s) it
// divides (evaluated under `sizes` and the earlier variables) that is at most the square root
// of that length and at most the length over `threads` (enough chunks for every thread): a
// balanced split, where the tuner usually ends up within a few powers of two (chunks per thread
// vs threads, tile sizes). Variables whose lengths cannot be evaluated are
// left out.
arith::Bindings plausibleTuning(const egraph::TuningSpace& tuning, const arith::Bindings& sizes,
                                double threads = 4096);

// The value of a size under `sizes`, unknown variables counting as `fallback`; at least 1.
double estimateSize(const arith::Size& s, const arith::Bindings& sizes, double fallback);

} // namespace egopt::extract
