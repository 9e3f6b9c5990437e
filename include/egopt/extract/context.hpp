// The extraction context (docs/extraction.md): where in the thread hierarchy a term would run.
// Extraction works on states (e-class, context) because the e-graph holds high-level and
// lowered nodes side by side and whether a node is acceptable depends on where it runs:
// MapLcl only inside MapWrg, no nesting of one kind and dimension, MapGlb not inside MapWrg,
// toLocal only inside a work-group, no plain Map or Reduce anywhere.
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace egopt::extract {

// Outside a kernel, a value is either the result of the (single) kernel viewed through layout
// patterns (Host), or a view of the inputs that computes nothing (HostInput). The three *Fn
// levels are the roles of a function applied outside a kernel: the map that launches the
// kernel, a layout function, or a lambda whose body is again at host level. Everything else is
// Device: inside the kernel, with the enclosing thread maps in the dimension masks.
// LaneFn: the function of a lane-wise pattern (MapVec, VectorizeUserFun), which the code
// generator can only emit for a user function.
// ViewBody: the body of a lambda that a view maps (Map(fun(x => Slide(3, 1) $ (Map(Pad) $ x)))):
// layout functions applied to the lambda's parameter, a view as a whole.
enum class Level : uint8_t {
    Host,
    HostInput,
    KernelFn,
    LayoutFn,
    LambdaFn,
    Device,
    LaneFn,
    ViewBody
};

// The fields of a device context, as bits (Context::projected, deviceContextReads).
enum ContextField : uint8_t {
    kGlbField = 1,
    kWrgField = 2,
    kLclField = 4,
    kSeqField = 8,
    kTopField = 16,
    kSharedField = 32,
    // Which dimensions a thread mask holds, beyond whether it is empty (Context::projected).
    kMaskBitsField = 64,
    kAllContextFields = 127
};

struct Context {
    Level level = Level::Host;
    uint8_t glb = 0; // bit d: inside the body of a MapGlb(d)
    uint8_t wrg = 0; // bit d: inside the body of a MapWrg(d)
    uint8_t lcl = 0; // bit d: inside the body of a MapLcl(d)
    // Inside the body of a MapSeq, ReduceSeq or Iterate (or a one-thread kernel at the top).
    // At work-group level (in MapWrg, not in MapLcl) such a loop runs uniformly in every thread
    // of the group and may contain MapLcl; at thread level it may contain no thread map.
    // At Host level: a one-thread kernel reads the value (through layout patterns only), so a
    // one-thread kernel computing it runs in that kernel (the code generator keeps sequential
    // chains in one kernel) and launches none of its own.
    bool seq = false;
    // The value flows, through layout patterns only, into the result of the innermost thread
    // map (it is at the top of that map's body). Only here may a thread map of the same kind
    // start (MapGlb in MapGlb, MapWrg in MapWrg, MapLcl in MapLcl): nothing synchronises the
    // threads of a nested map with a consumer of its result in the enclosing thread.
    // At LayoutFn level: the function is applied to several views in a view's lambda (a Zip).
    bool top = false;
    // At work-group level: the array a two-argument application there folds (a ReduceSeq's data,
    // which every work-item of the group runs over whole). A MapLcl's private result, divided
    // among the work-items, cannot be it (an accumulator, its first argument, can).
    bool shared = false;

    static Context host() { return {}; }
    static Context singleThread() { return {Level::Device, 0, 0, 0, true, false}; }
    static Context at(Level l) { return {l, 0, 0, 0, false, false}; }

    bool device() const { return level == Level::Device; }
    // Inside a kernel at the level of one thread (no thread map may start here).
    bool threadLevel() const { return glb != 0 || lcl != 0 || (seq && wrg == 0); }
    bool workGroupLevel() const { return wrg != 0 && lcl == 0; }
    // In a device context, the fields outside `fields` (ContextField bits) at their defaults,
    // and without kMaskBitsField, each mask's dimensions where only whether it is empty matters
    // (where no thread map of its kind can start any more) as dimension 0; other levels
    // unchanged. Two contexts with the same projection for the fields a term reads
    // (deviceContextReads over the term and its subterms) accept the same terms at the same costs.
    Context projected(uint8_t fields) const;
    uint32_t key() const;
    std::string show() const; // "host", "glb{0}", "wrg{0}.lcl{0}.seq", ...
    friend auto operator<=>(const Context&, const Context&) = default;
};

// The contexts of a node's children, one per child; a node can have several alternatives
// (an application outside a kernel can launch the kernel, be a layout view, or run in one
// thread) and none when it is not acceptable in the context.
// With `multipleKernels`, a value outside a kernel may also be computed by an earlier kernel
// (the code generator splits the program at such boundaries); else the program is one kernel
// whose inputs are views of the parameters.
using ChildContexts = std::vector<Context>;
std::vector<ChildContexts> childContexts(const egraph::ENode& node, Context ctx,
                                         bool multipleKernels = false);

// The device context's fields (ContextField bits) that childContexts reads for `node` in a
// device context: to accept it, and to derive its children's contexts beyond passing fields on
// unchanged. A child's context is this context with some fields set and others passed on, so a
// field a child's term reads is one its parent's term reads too.
uint8_t deviceContextReads(const egraph::ENode& node);

// The argument types of a function node's function-valued children, derived from the types
// the node is applied to (Map(f) on [T]n applies f to T; ReduceSeq(f) on (A, [T]n) applies f
// to (A, T)). Empty where unknown. `types` may be empty (unknown).
std::vector<lift::TypeId> childArgTypes(const egraph::EGraph& g, const egraph::ENode& node,
                                        std::span<const lift::TypeId> types);

} // namespace egopt::extract
