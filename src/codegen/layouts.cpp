// Which functions are data layouts (views, no code): shared by the kernel planner and the
// generator, so a Map of a layout is a view in both.
#include "stages.hpp"

#include <algorithm>

namespace egopt::codegen::detail {

using lift::NodeId;
using lift::Op;

bool isInvertibleLayout(const lift::Program& p, NodeId fun) {
    switch (p.op(fun)) {
    case Op::Join:
    case Op::Split:
    case Op::Transpose:
    case Op::TransposeW:
    case Op::Scatter:
    case Op::Gather:
    case Op::AsScalar:
    case Op::AsVector:
    case Op::Id:
    case Op::Reorder:
        return true;
    case Op::Map:
        return isInvertibleLayout(p, p.child(fun, 0));
    default:
        return false;
    }
}

bool isReadLayout(const lift::Program& p, NodeId fun) {
    switch (p.op(fun)) {
    case Op::Slide:
    case Op::Pad:
    case Op::Zip:
    case Op::Unzip:
    case Op::Tuple:
    case Op::Get:
    case Op::At:
        return true;
    case Op::Map:
        return isReadLayout(p, p.child(fun, 0));
    case Op::Lambda:
        return isLayoutExpr(p, p.lambdaBody(fun));
    default:
        return isInvertibleLayout(p, fun);
    }
}

bool isLayoutExpr(const lift::Program& p, NodeId expr) {
    switch (p.op(expr)) {
    case Op::Param:
        return true;
    case Op::Apply: {
        auto kids = p.children(expr);
        return isReadLayout(p, kids[0]) && std::all_of(kids.begin() + 1, kids.end(), [&](NodeId k) {
                   return isLayoutExpr(p, k);
               });
    }
    default:
        return false;
    }
}

} // namespace egopt::codegen::detail
