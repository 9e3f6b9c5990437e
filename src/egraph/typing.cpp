// Typing of applications inside the e-graph (the rules of ir.hpp's table, as in
// lift/typecheck_patterns.cpp): the result type of a function node applied to argument types,
// and the argument types that a pattern passes to its nested functions. Errors are TypeErrors:
// inside the e-graph an ill-typed node can only come from a faulty rule.
#include "egopt/egraph/egraph.hpp"

namespace egopt::egraph {

namespace {

using lift::TypeKind;

void need(bool ok, const std::string& what) {
    if (!ok) {
        throw TypeError(what);
    }
}

} // namespace

std::vector<TypeId> EGraph::childArgTypes(Op op, std::span<const TypeId> args) {
    switch (op) {
    case Op::Map:
    case Op::MapSeq:
    case Op::MapGlb:
    case Op::MapWrg:
    case Op::MapLcl:
        need(args.size() == 1 && types.isArray(args[0]),
             std::string(lift::opName(op)) + " expects one array");
        return {types.elemOf(args[0])};
    case Op::Reduce:
    case Op::ReduceSeq:
    case Op::PartRed:
        need(args.size() == 2 && types.isArray(args[1]), "Reduce expects (init, array)");
        return {args[0], types.elemOf(args[1])};
    case Op::MapVec:
    case Op::VectorizeUserFun: {
        // VectorizeUserFun broadcasts scalar arguments to every lane (a captured value).
        std::vector<TypeId> lanes;
        bool vectors = false;
        for (TypeId t : args) {
            const auto& v = types.at(t);
            bool broadcast = op == Op::VectorizeUserFun && v.kind == TypeKind::Scalar;
            need(v.kind == TypeKind::Vector || broadcast, "a vector is expected");
            vectors = vectors || !broadcast;
            lanes.push_back(broadcast ? t : types.scalar(v.scalar));
        }
        need(vectors, "a lane-wise function needs a vector argument");
        return lanes;
    }
    case Op::Iterate:
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return {args.begin(), args.end()};
    default:
        return {};
    }
}

TypeId EGraph::patternResult(const ENode& fn, std::span<const TypeId> args) {
    const Attr& a = attrs_.at(fn.attr);
    auto arg = [&](size_t i) {
        need(i < args.size(), std::string(lift::opName(fn.op)) + " is missing an argument");
        return args[i];
    };
    auto array = [&](size_t i) {
        TypeId t = arg(i);
        need(types.isArray(t), std::string(lift::opName(fn.op)) + " expects an array");
        return t;
    };
    auto size = [&](size_t i) {
        need(i < a.sizes.size(), "missing size argument");
        return a.sizes[i];
    };
    switch (fn.op) {
    case Op::Lambda:
        need(std::equal(args.begin(), args.end(), a.types.begin(), a.types.end()),
             "a lambda applied to arguments of other types");
        return classes_[find(fn.children[0])].data.type;
    case Op::UserFun: {
        const auto& d = userFuns.at(static_cast<size_t>(fn.ival));
        bool tupled = d.paramTypes.size() > 1 && args.size() == 1 &&
                      types.kind(args[0]) == TypeKind::Tuple &&
                      args[0] == types.tuple(d.paramTypes);
        need(tupled ||
                 std::equal(args.begin(), args.end(), d.paramTypes.begin(), d.paramTypes.end()),
             "user function " + d.name + " applied to arguments of other types");
        return d.returnType;
    }
    case Op::Map:
    case Op::MapSeq:
    case Op::MapGlb:
    case Op::MapWrg:
    case Op::MapLcl: {
        TypeId xs = array(0);
        TypeId r = resultOf(fn.children.at(0), childArgTypes(fn.op, args));
        return types.array(r, types.lengthOf(xs));
    }
    case Op::MapVec:
    case Op::VectorizeUserFun: {
        TypeId r = resultOf(fn.children.at(0), childArgTypes(fn.op, args));
        const auto& lane = types.at(r);
        need(lane.kind == TypeKind::Scalar, "a lane-wise function must return a scalar");
        uint32_t width = 0;
        for (TypeId t : args) {
            width = std::max(width, types.at(t).width); // scalars (broadcast) have none
        }
        return types.vector(lane.scalar, width);
    }
    case Op::Reduce:
    case Op::ReduceSeq:
    case Op::PartRed: {
        array(1);
        TypeId r = resultOf(fn.children.at(0), childArgTypes(fn.op, args));
        need(r == args[0], "the function of Reduce must return the initial value's type");
        return types.array(args[0], fn.op == Op::PartRed ? size(0) : arith::Size(1));
    }
    case Op::Iterate: {
        TypeId r = resultOf(fn.children.at(0), args);
        need(r == arg(0), "Iterate in the e-graph needs a type-preserving function");
        return r;
    }
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return resultOf(fn.children.at(0), args);
    case Op::Gather:
    case Op::Scatter:
    case Op::Reorder:
        return array(0);
    case Op::Id:
        return arg(0);
    default:
        return dataPatternResult(fn, args);
    }
}

TypeId EGraph::dataPatternResult(const ENode& fn, std::span<const TypeId> args) {
    const Attr& a = attrs_.at(fn.attr);
    std::string name(lift::opName(fn.op));
    auto array = [&](size_t i) {
        need(i < args.size() && types.isArray(args[i]), name + " expects an array");
        return args[i];
    };
    auto nested = [&](size_t i) {
        TypeId t = array(i);
        need(types.isArray(types.elemOf(t)), name + " expects an array of arrays");
        return t;
    };
    auto size = [&](size_t i) {
        need(i < a.sizes.size(), name + " is missing a size argument");
        return a.sizes[i];
    };
    switch (fn.op) {
    case Op::Split: {
        TypeId xs = array(0);
        const arith::Size& n = types.lengthOf(xs);
        arith::Size k = size(0);
        return types.array(types.array(types.elemOf(xs), k), exactDiv(n, k));
    }
    case Op::Join: {
        TypeId outer = nested(0);
        TypeId inner = types.elemOf(outer);
        return types.array(types.elemOf(inner), types.lengthOf(inner) * types.lengthOf(outer));
    }
    case Op::Transpose:
    case Op::TransposeW: {
        TypeId outer = nested(0);
        TypeId inner = types.elemOf(outer);
        arith::Size m = types.lengthOf(outer);
        arith::Size n = types.lengthOf(inner);
        return types.array(types.array(types.elemOf(inner), m), n);
    }
    case Op::Zip: {
        need(!args.empty() && args.size() == static_cast<size_t>(fn.ival), "Zip arity mismatch");
        std::vector<TypeId> fields;
        arith::Size n = types.lengthOf(array(0));
        for (size_t i = 0; i < args.size(); ++i) {
            need(types.lengthOf(array(i)) == n, "Zip of arrays of different lengths");
            fields.push_back(types.elemOf(args[i]));
        }
        return types.array(types.tuple(fields), n);
    }
    case Op::Unzip: {
        TypeId xs = array(0);
        lift::TypeNode elem = types.at(types.elemOf(xs));
        need(elem.kind == TypeKind::Tuple, "Unzip expects an array of tuples");
        std::vector<TypeId> arrays;
        for (TypeId f : elem.elems) {
            arrays.push_back(types.array(f, types.lengthOf(xs)));
        }
        return types.tuple(arrays);
    }
    case Op::Tuple:
        need(args.size() == static_cast<size_t>(fn.ival), "Tuple arity mismatch");
        return types.tuple(args);
    case Op::Get: {
        need(args.size() == 1 && types.kind(args[0]) == TypeKind::Tuple, "Get expects a tuple");
        const auto& fields = types.at(args[0]).elems;
        need(fn.ival >= 0 && static_cast<size_t>(fn.ival) < fields.size(), "Get out of range");
        return fields[static_cast<size_t>(fn.ival)];
    }
    case Op::AsVector: {
        TypeId xs = array(0);
        const auto& elem = types.at(types.elemOf(xs));
        need(elem.kind == TypeKind::Scalar, "asVector expects scalars");
        auto w = size(0).constant();
        need(w && *w > 0, "asVector needs a constant width");
        lift::ScalarKind k = elem.scalar;
        return types.array(types.vector(k, static_cast<uint32_t>(*w)),
                           exactDiv(types.lengthOf(xs), size(0)));
    }
    case Op::AsScalar: {
        TypeId xs = array(0);
        const auto& elem = types.at(types.elemOf(xs));
        need(elem.kind == TypeKind::Vector, "asScalar expects vectors");
        lift::ScalarKind k = elem.scalar;
        arith::Size n = types.lengthOf(xs) * arith::Size(elem.width);
        return types.array(types.scalar(k), n);
    }
    case Op::Slide: {
        TypeId xs = array(0);
        arith::Size span = types.lengthOf(xs) - size(0) + size(1);
        auto cs = span.constant();
        auto st = size(1).constant();
        arith::Size windows = cs && st ? arith::Size(*cs / *st) : exactDiv(span, size(1));
        return types.array(types.array(types.elemOf(xs), size(0)), windows);
    }
    case Op::Pad: {
        TypeId xs = array(0);
        return types.array(types.elemOf(xs), size(0) + types.lengthOf(xs) + size(1));
    }
    case Op::At:
        return types.elemOf(array(0));
    case Op::Filter: {
        TypeId xs = array(0);
        TypeId ids = array(1);
        return types.array(types.elemOf(xs), types.lengthOf(ids));
    }
    default:
        throw TypeError("cannot type the pattern " + name);
    }
}

} // namespace egopt::egraph
