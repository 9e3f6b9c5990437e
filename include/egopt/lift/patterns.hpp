// The table of patterns: everything the compiler knows about a pattern that is not its OpenCL
// loop or view, in one row per Op (src/lift/patterns.cpp). Each module asks the table instead of
// listing ops: the type rule and the interpreter dispatch on a pattern's Semantics, extraction
// and the cost model on its Loop and Memory, the printer on its PrintForm. docs/architecture.md
// ("Adding a pattern") walks through a new row.
//
// Each pattern's arguments and type (the rule in pattern_typing.cpp implements these):
//
// clang-format off
//   Map/MapSeq/MapGlb/MapWrg/MapLcl(f)  xs: [T]n -> [U]n            ival: dimension 0..2 (Glb/Wrg/Lcl)
//   MapVec(f)                           v: S<w> -> S'<w>            f applied lane-wise
//   Reduce/ReduceSeq(f)                 (init: A, xs: [T]n) -> [A]1 f: (A, T) -> A
//   PartRed(f), sizes {m}               (init: A, xs: [A]n) -> [A]m reduces n/m consecutive elems each
//   Iterate(f), sizes {k}               x -> f(...f(x)) k times
//   ScanSeq(f)                          (init: A, xs: [T]n) -> [A]n f: (A, T) -> A; element i
//                                       is the fold of init and xs[0..i] (inclusive prefixes)
//   ReduceWhileSeq(f, p)                (init: A, xs: [T]n) -> [A]1 f, p: (A, T) -> A, Int|Bool;
//                                       the fold stops before the first x with p(acc, x) false
//   InsertionSortSeq(c)                 xs: [T]n -> [T]n  c: (T, T) -> Int|Bool, c(a, b) true
//                                       when a goes before b (a stable insertion sort)
//   ToGlobal/ToLocal/ToPrivate(f)       as f (memory placement of f's output)
//   Gather(r)/Scatter(r)                xs: [T]n -> [T]n  r an index function (below)
//   ReorderStride sizes {s}, Reverse, Shift sizes {k}  index functions, only inside Gather/Scatter
//   Split, sizes {k}                    [T]n -> [[T]k]n/^k
//   Join                                [[T]k]n -> [T]k*n
//   Transpose, TransposeW               [[T]n]m -> [[T]m]n
//   Zip, ival = arity k                 ([T1]n, ..., [Tk]n) -> [(T1,...,Tk)]n
//   Unzip                               [(T1,...,Tk)]n -> ([T1]n, ..., [Tk]n)
//   Tuple, ival = arity k               (T1, ..., Tk) -> (T1, ..., Tk)
//   Get, ival = field                   (T0, ..., Tk) -> Tfield
//   AsVector, sizes {w}                 [S]n -> [S<w>]n/^w
//   AsScalar                            [S<w>]n -> [S]n*w
//   Slide, sizes {size, step}           [T]n -> [[T]size]((n-size+step)/^step)
//   Pad, sizes {l, r}, ival = boundary  [T]n -> [T]l+n+r
//   At, sizes {i}                       [T]n -> T (x.at(i) in stencils)
//   Filter                              (xs: [T]n, ids: [Int]m) -> [T]m
//   Id, Reorder                         x -> x (Reorder: high-level "any order"; identity here)
//   VectorizeUserFun(f), sizes {w}      f applied lane-wise to w-wide vectors
//   UserFun, ival = index in userFuns   (T1, ..., Tk) -> R
//   Lambda: children {params..., body}; Param: ival = index in params; Literal: ival = index in
//   literals.
//
// clang-format on
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace egopt::lift {

// What a node is: data (expressions), a function of the program, or a pattern that computes,
// rearranges (a view: no arithmetic, the code generator indexes through it) or indexes.
enum class PatternKind : uint8_t {
    Expression,    // Param, Literal, Apply, Generate
    Function,      // Lambda, UserFun
    Computation,   // Map, Reduce, Iterate, toLocal, ... (applies a nested function)
    Layout,        // Split, Join, Zip, Gather, Pad, ... (a view of its arguments)
    IndexFunction, // ReorderStride, Reverse, Shift (only inside Gather/Scatter)
};

// The meaning of a pattern: patterns of the same Semantics have the same type rule
// (pattern_typing.hpp) and the same interpreter meaning; they differ only in how they are
// lowered (Loop, Memory). MapGlb has the Semantics of Map.
enum class Semantics : uint8_t {
    None, // expressions and functions: typed and evaluated by their own code
    Map,
    MapLanes,      // MapVec: f on each lane of one vector
    VectorizeFun,  // VectorizeUserFun(w, f): f lane-wise, scalars broadcast
    Reduce,        // (init, [T]n) -> [A]1
    PartialReduce, // PartRed: (init, [T]n) -> [A]m
    Iterate,
    Place,   // toGlobal/toLocal/toPrivate: as the nested function
    Gather,  // [T]n -> [T]n through an index function
    Scatter, // [T]n -> [T]n through an index function
    Reorder, // any order of an array: the identity here
    Identity,
    IndexFunction,
    Split,
    Join,
    Transpose,
    Zip,
    Unzip,
    Tuple,
    Get,
    AsVector,
    AsScalar,
    Slide,
    Pad,
    At,
    Filter,
    Scan,        // ScanSeq: (init, [T]n) -> [A]n, every prefix's fold
    ReduceWhile, // ReduceWhileSeq: Reduce that stops where its predicate fails
    Sort,        // InsertionSortSeq: [T]n -> [T]n by a comparison function
};

// How a computation is lowered to OpenCL: which loop runs its nested function.
enum class Loop : uint8_t {
    None,       // not lowered (high-level) or not a computation
    Sequential, // MapSeq, ReduceSeq, Iterate, ScanSeq, ...: a loop in one thread
    Global,     // MapGlb: work-items
    WorkGroup,  // MapWrg: work-groups
    Local,      // MapLcl: work-items of a work-group
    Lanes,      // MapVec, VectorizeUserFun: vector lanes
};

// Where a memory-placement pattern puts its nested function's output.
enum class Memory : uint8_t { None, Global, Local, Private };

// What the node's ival means.
enum class IvalMeaning : uint8_t {
    None,
    Index,      // Param/Literal/UserFun: index into the program's tables
    Dimensions, // Generate
    Dimension,  // MapGlb/MapWrg/MapLcl: 0..2
    Unrolled,   // MapSeq/ReduceSeq: kUnrolled for the Unroll variants
    Arity,      // Zip, Tuple
    Field,      // Get
    Boundary,   // Pad: a PadBoundary
};

// How Program::show prints a pattern (after its name).
enum class PrintForm : uint8_t {
    Special,               // expressions, lambdas, user functions, Pad: printed by their own code
    Arguments,             // Name(children..., sizes...)
    DimensionThenFunction, // MapGlb(0)(f)
    SizesThenFunction,     // Iterate(k)(f)
    SizesCommaFunction,    // VectorizeUserFun(w, f)
    IvalOnly,              // Zip(2), Get(1)
    NameOnly,              // reverse
    UnrollSuffix,          // MapSeq(f) or MapSeqUnroll(f)
};

inline constexpr int8_t kAnyArity = -1; // Zip/Tuple (their ival), lane-wise functions, lambdas

struct PatternInfo {
    Op op;
    std::string_view name; // Lift's spelling
    PatternKind kind;
    Semantics semantics;
    int8_t arity;     // data arguments it is applied to, or kAnyArity
    uint8_t children; // nested functions (PadConstant's value child is optional: 0 here)
    uint8_t sizes;    // numeric arguments
    IvalMeaning ival;
    Loop loop;
    Memory memory;
    bool lowLevel; // OpenCL-specific: a lowering that the lowering rules introduce
    PrintForm print;
};

// The row of `op` (every Op has one).
const PatternInfo& patternInfo(Op op);
std::span<const PatternInfo> patternTable();

inline PatternKind patternKind(Op op) {
    return patternInfo(op).kind;
}
inline Semantics semantics(Op op) {
    return patternInfo(op).semantics;
}
inline Loop loopOf(Op op) {
    return patternInfo(op).loop;
}
inline Memory memoryOf(Op op) {
    return patternInfo(op).memory;
}
inline bool isLayoutPattern(Op op) {
    return patternKind(op) == PatternKind::Layout;
}
inline bool isIndexFunctionOp(Op op) {
    return patternKind(op) == PatternKind::IndexFunction;
}
// MapGlb, MapWrg, MapLcl: a map whose iterations are OpenCL work-items or work-groups.
inline bool isThreadMap(Op op) {
    Loop l = loopOf(op);
    return l == Loop::Global || l == Loop::WorkGroup || l == Loop::Local;
}
// MapSeq and the thread maps: a map lowered to a loop over its array.
inline bool isLoweredMap(Op op) {
    return semantics(op) == Semantics::Map && loopOf(op) != Loop::None;
}

// "Split(3)", "MapGlb(0)", "Get(1)", "Map": a pattern as messages name it (the ival is shown
// when it selects a dimension or field).
std::string describePattern(Op op, int32_t ival, std::span<const arith::Size> sizes);

} // namespace egopt::lift
