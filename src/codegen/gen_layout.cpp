// Data-layout patterns as views (no copies), the inverted views through which a layout
// pattern's argument writes into the pattern's destination, and the address-space annotations
// (toGlobal/toLocal/toPrivate) that decide where unannotated producers allocate.
#include "generator.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

ViewId Generator::layoutView(NodeId fun, const std::vector<ViewId>& args) {
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
    default:
        return std::nullopt;
    }
    return views_.add(std::move(v));
}

std::optional<AddrSpace> Generator::annotation(NodeId fun) const {
    switch (program_.op(fun)) {
    case Op::ToGlobal:
        return AddrSpace::Global;
    case Op::ToLocal:
        return AddrSpace::Local;
    case Op::ToPrivate:
        return AddrSpace::Private;
    case Op::MapSeq:
    case Op::MapGlb:
    case Op::MapWrg:
    case Op::MapLcl:
    case Op::Iterate:
        return annotation(program_.child(fun, 0));
    case Op::Lambda:
        return exprAnnotation(program_.lambdaBody(fun));
    default:
        return std::nullopt;
    }
}

std::optional<AddrSpace> Generator::exprAnnotation(NodeId e) const {
    if (program_.op(e) != Op::Apply) {
        return std::nullopt;
    }
    auto c = program_.children(e);
    if (auto a = annotation(c[0])) {
        return a;
    }
    Op op = program_.op(c[0]);
    bool passesThrough = op == Op::Join || op == Op::Split || op == Op::Transpose ||
                         op == Op::TransposeW || op == Op::Scatter || op == Op::Gather ||
                         op == Op::AsScalar || op == Op::AsVector || op == Op::Id;
    return passesThrough && c.size() == 2 ? exprAnnotation(c[1]) : std::nullopt;
}

} // namespace egopt::codegen::detail
