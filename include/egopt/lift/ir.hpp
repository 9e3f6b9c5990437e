// The Lift IR (CGO'17 §3): expressions and functions as immutable, id-based terms in an arena.
//
// Every node is either an expression (Param, Literal, Apply) or a function declaration (Lambda,
// UserFun, or a pattern such as Map(f) or Split(n)). A pattern's nested functions are its
// children; its numeric arguments (split factor, stride, vector width, ...) are sizes. A pattern
// is applied to data with Apply(fun, args...). Each pattern's arguments, type, meaning and
// lowering are in the table of patterns (patterns.hpp).
//
// Slide2D and Pad2D are expanded by the front end into Map/Slide/Pad/Transpose compositions.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/type.hpp"
#include "egopt/support/diagnostic.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::lift {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

enum class Op : uint8_t {
    // expressions
    Param,
    Literal,
    Apply,
    // Lift's ArrayFromUserFunGenerator and its 2D/3D forms: an array of `ival` dimensions whose
    // lengths are the sizes (outermost first) and whose element at (i, j, ...) is the child
    // UserFun applied to the indices, then the lengths: f(i, j, n_i, n_j).
    Generate,
    // functions
    Lambda,
    UserFun,
    // patterns with nested functions
    Map,
    MapSeq,
    MapGlb,
    MapWrg,
    MapLcl,
    MapVec,
    Reduce,
    ReduceSeq,
    PartRed,
    Iterate,
    ToGlobal,
    ToLocal,
    ToPrivate,
    Gather,
    Scatter,
    VectorizeUserFun,
    // index functions for Gather/Scatter
    ReorderStride,
    Reverse,
    Shift,
    // data-layout and tuple patterns
    Split,
    Join,
    Transpose,
    TransposeW,
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
    Id,
    Reorder,
    // Lift's sequential patterns with data-dependent control flow (after the others, so that
    // the ops above keep their values)
    ScanSeq,
    ReduceWhileSeq,
    InsertionSortSeq,
};

std::string_view opName(Op op); // "MapGlb", "Split", ...
bool isExpression(Op op);       // Param, Literal, Apply, Generate
bool isMapLike(Op op);          // Map, MapSeq, MapGlb, MapWrg, MapLcl, MapVec
bool isLowLevel(Op op);         // the OpenCL-specific patterns (MapGlb, ReduceSeq, ToLocal, ...)

// Constant (PadConstant): the Pad node has one child, the Literal padding value, repeated over
// the element's arrays when the padded elements are arrays.
// MapSeq's and ReduceSeq's ival for Lift's MapSeqUnroll and ReduceSeqUnroll: the same meaning,
// and the generated loop is unrolled. Rules match ivals exactly, so they leave these loops as
// the program wrote them.
constexpr int32_t kUnrolled = 1;

enum class PadBoundary : int32_t { Clamp, Mirror, Wrap, Constant };

struct Node {
    Op op = Op::Id;
    int32_t ival = 0; // dimension, arity, field, param/literal/userfun index, pad boundary
    uint32_t firstChild = 0;
    uint32_t numChildren = 0;
    uint32_t firstSize = 0;
    uint32_t numSizes = 0;
    SourceLoc loc;
};

// A C user function (docs/design.md §3). Builtins such as add and mult are UserFunDecls too.
struct UserFunDecl {
    std::string name;
    std::vector<std::string> paramNames;
    std::vector<TypeId> paramTypes;
    TypeId returnType = kNoType;
    std::string body; // the C body including its outer braces
    SourceLoc loc;    // where the body string starts in the .lift file (for error lines)
    bool builtin = false;
};

// A constant such as 0.0f or Value("0.0f", Float4); `text` is the C spelling.
struct LiteralDecl {
    TypeId type = kNoType;
    std::string text;
};

struct ParamInfo {
    std::string name;
    TypeId declaredType = kNoType; // known for the top-level lambda's parameters
};

class Program {
public:
    // --- building (append-only: nodes never change once added)
    NodeId add(Op op, int32_t ival, std::span<const NodeId> children,
               std::span<const arith::Size> sizes = {}, SourceLoc loc = {});
    NodeId addParam(std::string name, TypeId declaredType = kNoType, SourceLoc loc = {});
    NodeId addLiteral(TypeId type, std::string text, SourceLoc loc = {});
    NodeId addUserFun(UserFunDecl decl, SourceLoc loc = {}); // declares and returns a reference
    NodeId refUserFun(uint32_t index, SourceLoc loc = {});   // another reference to a declared one
    NodeId apply(NodeId fun, std::span<const NodeId> args, SourceLoc loc = {});
    NodeId lambda(std::span<const NodeId> params, NodeId body, SourceLoc loc = {});

    // --- reading
    const Node& node(NodeId id) const { return nodes_.at(id); }
    Op op(NodeId id) const { return node(id).op; }
    std::span<const NodeId> children(NodeId id) const;
    NodeId child(NodeId id, size_t i) const { return children(id)[i]; }
    std::span<const arith::Size> sizes(NodeId id) const;
    size_t numNodes() const { return nodes_.size(); }
    // Lambda accessors
    std::span<const NodeId> lambdaParams(NodeId lambda) const;
    NodeId lambdaBody(NodeId lambda) const;

    TypeArena types;
    std::vector<UserFunDecl> userFuns;
    std::vector<LiteralDecl> literals;
    std::vector<ParamInfo> params;
    std::vector<std::string> sizeVars; // size variables in order of first appearance
    NodeId root = kNoNode;             // the top-level Lambda
    std::string fileName;
    std::string source; // the program text, for diagnostics

    // Lift-style text of a node (FunCall-free, e.g. "Map(fun(x => add(x, 1.0f))) $ xs").
    std::string show(NodeId id) const;

private:
    std::vector<Node> nodes_;
    std::vector<NodeId> childIds_;
    std::vector<arith::Size> sizeArgs_;
};

} // namespace egopt::lift
