// Data-layout patterns as views (no copies), the inverted views through which a layout
// pattern's argument writes into the pattern's destination, and the address-space annotations
// (toGlobal/toLocal/toPrivate) that decide where unannotated producers allocate.
#include "egopt/lift/patterns.hpp"
#include "generator.hpp"

#include <algorithm>

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

ViewId Generator::layoutView(NodeId fun, const std::vector<ViewId>& args) {
    if (program_.op(fun) == Op::Map) {
        return mapOfView(fun, args.at(0));
    }
    std::vector<TypeId> argTypes;
    for (ViewId a : args) {
        argTypes.push_back(typeOf(a));
    }
    View v;
    v.type = infer_.layout(fun, argTypes);
    v.kids = args;
    const lift::Node& n = program_.node(fun);
    auto& types = program_.types;
    switch (n.op) {
    case Op::Id:
    case Op::Reorder:
        return args.at(0);
    case Op::Split:
        v.kind = ViewKind::Split;
        v.a = infer_.size(fun, 0);
        break;
    case Op::Join:
        v.kind = ViewKind::Join;
        v.a = types.lengthOf(types.elemOf(argTypes[0]));
        break;
    case Op::Transpose:
    case Op::TransposeW:
        v.kind = ViewKind::Transpose;
        break;
    case Op::Zip:
        v.kind = ViewKind::Zip;
        usedTypes_.push_back(types.elemOf(v.type));
        break;
    case Op::Unzip:
        v.kind = ViewKind::Unzip;
        break;
    case Op::Tuple:
        v.kind = ViewKind::TupleOf;
        usedTypes_.push_back(v.type);
        break;
    case Op::Get:
        v.kind = ViewKind::Get;
        v.ival = n.ival;
        break;
    case Op::At:
        return views_.access(args.at(0), infer_.size(fun, 0));
    case Op::Gather:
    case Op::Scatter: {
        NodeId f = program_.child(fun, 0);
        v.kind = ViewKind::Gather;
        v.fn = program_.op(f);
        v.a = program_.sizes(f).empty() ? Size(0) : infer_.size(f, 0);
        v.b = types.lengthOf(argTypes[0]);
        v.ival = n.op == Op::Scatter ? 1 : 0; // reading a scatter's result: the inverse
        break;
    }
    case Op::Slide:
        v.kind = ViewKind::Slide;
        v.a = infer_.size(fun, 0);
        v.b = infer_.size(fun, 1);
        break;
    case Op::Pad:
        v.kind = ViewKind::Pad;
        v.a = infer_.size(fun, 0);
        v.b = infer_.size(fun, 1);
        v.ival = n.ival;
        if (n.ival == static_cast<int32_t>(lift::PadBoundary::Constant)) {
            v.text = literalText(program_.child(fun, 0));
        }
        padHelpers_ = true;
        break;
    case Op::AsVector:
        v.kind = ViewKind::AsVector;
        v.ival = static_cast<int32_t>(infer_.size(fun, 0).constant().value_or(4));
        break;
    case Op::AsScalar:
        v.kind = ViewKind::AsScalar;
        v.ival = static_cast<int32_t>(types.at(types.elemOf(argTypes[0])).width);
        break;
    case Op::Filter:
        v.kind = ViewKind::Filter;
        break;
    default:
        failAt(program_, fun, "not supported by the code generator");
    }
    return views_.add(std::move(v));
}

std::optional<ViewId> Generator::inverseDest(NodeId fun, TypeId argType, ViewId dest) {
    auto& types = program_.types;
    if (!types.isArray(argType)) {
        return std::nullopt;
    }
    View v;
    v.type = argType;
    v.kids = {dest};
    switch (program_.op(fun)) {
    case Op::Id:
    case Op::Reorder:
        return dest;
    case Op::Join: // [[T]k]m written into a [T]k*m destination
        v.kind = ViewKind::Split;
        v.a = types.lengthOf(types.elemOf(argType));
        break;
    case Op::Split:
        v.kind = ViewKind::Join;
        v.a = infer_.size(fun, 0);
        break;
    case Op::Transpose:
    case Op::TransposeW:
        v.kind = ViewKind::Transpose;
        break;
    case Op::Scatter:
    case Op::Gather: {
        NodeId f = program_.child(fun, 0);
        v.kind = ViewKind::Gather;
        v.fn = program_.op(f);
        v.a = program_.sizes(f).empty() ? Size(0) : infer_.size(f, 0);
        v.b = types.lengthOf(argType);
        v.ival = program_.op(fun) == Op::Scatter ? 0 : 1;
        break;
    }
    case Op::AsScalar:
        v.kind = ViewKind::AsVector;
        v.ival = static_cast<int32_t>(types.at(types.elemOf(argType)).width);
        break;
    case Op::AsVector:
        v.kind = ViewKind::AsScalar;
        v.ival = static_cast<int32_t>(infer_.size(fun, 0).constant().value_or(4));
        break;
    case Op::Map:
        return isLayout1(fun) ? mapOfInverse(fun, argType, dest) : std::nullopt;
    default:
        return std::nullopt;
    }
    return views_.add(std::move(v));
}

bool Generator::isLayout1(NodeId fun) const {
    return isInvertibleLayout(program_, fun);
}

bool Generator::isReadLayout(NodeId fun) const {
    return detail::isReadLayout(program_, fun);
}

bool Generator::writeLayout(NodeId fun) const {
    Op op = program_.op(fun);
    return op == Op::TransposeW || op == Op::Scatter ||
           (op == Op::Map && writeLayout(program_.child(fun, 0)));
}

// Map(f) $ xs for a layout f: element i is f's view of xs[i]. f's view is built once, over a
// Hole that resolution replaces by xs[i].
ViewId Generator::mapOfView(NodeId map, ViewId xs) {
    auto& types = program_.types;
    TypeId arrayType = typeOf(xs);
    if (!types.isArray(arrayType) || !isReadLayout(map)) {
        failAt(program_, map,
               "a plain Map has no OpenCL mapping (use MapGlb, MapWrg/MapLcl or "
               "MapSeq; a Map of a layout function such as Join is a view)");
    }
    View hole;
    hole.kind = ViewKind::Hole;
    hole.type = types.elemOf(arrayType);
    NodeId f = program_.child(map, 0);
    ViewId holeView = views_.add(std::move(hole));
    ViewId element = holeView;
    if (program_.op(f) == Op::Lambda) {
        bool wrote = false; // a layout lambda's body is views only: it writes nothing
        element = applyLambda(f, {holeView}, Ctx{}, nullptr, wrote);
    } else {
        element = layoutView(f, {holeView});
    }
    View v;
    v.kind = ViewKind::MapOf;
    v.type = types.array(typeOf(element), types.lengthOf(arrayType));
    v.kids = {xs, element};
    return views_.add(std::move(v));
}

// The destination through which Map(f)'s argument writes into Map(f)'s destination `dest`:
// element i is the inverse of f over dest[i].
std::optional<ViewId> Generator::mapOfInverse(NodeId map, TypeId argType, ViewId dest) {
    auto& types = program_.types;
    TypeId destType = typeOf(dest);
    if (!types.isArray(argType) || !types.isArray(destType)) {
        return std::nullopt;
    }
    View hole;
    hole.kind = ViewKind::Hole;
    hole.type = types.elemOf(destType);
    auto element =
        inverseDest(program_.child(map, 0), types.elemOf(argType), views_.add(std::move(hole)));
    if (!element) {
        return std::nullopt;
    }
    View v;
    v.kind = ViewKind::MapOf;
    v.type = argType;
    v.kids = {dest, *element};
    return views_.add(std::move(v));
}

std::optional<AddrSpace> Generator::annotation(NodeId fun) const {
    Op op = program_.op(fun);
    switch (lift::memoryOf(op)) {
    case lift::Memory::Global:
        return AddrSpace::Global;
    case lift::Memory::Local:
        return AddrSpace::Local;
    case lift::Memory::Private:
        return AddrSpace::Private;
    case lift::Memory::None:
        break;
    }
    // A loop writes where its function's result goes.
    if (lift::isLoweredMap(op) || lift::semantics(op) == lift::Semantics::Iterate) {
        return annotation(program_.child(fun, 0));
    }
    if (op == Op::Lambda) {
        return exprAnnotation(program_.lambdaBody(fun));
    }
    return std::nullopt;
}

std::optional<AddrSpace> Generator::exprAnnotation(NodeId e) const {
    if (program_.op(e) != Op::Apply) {
        return std::nullopt;
    }
    auto c = program_.children(e);
    if (auto a = annotation(c[0])) {
        return a;
    }
    return isLayout1(c[0]) && c.size() == 2 ? exprAnnotation(c[1]) : std::nullopt;
}

} // namespace egopt::codegen::detail
