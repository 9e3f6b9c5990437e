// Type inference on concrete sizes for the code generator (the typing rules of ICFP'15 Fig. 4,
// without the checks: the program has already been type-checked).
#include "infer.hpp"

#include "egopt/support/diagnostic.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

void failAt(const lift::Program& p, NodeId node, const std::string& msg) {
    std::string name(lift::opName(p.op(node)));
    if (p.op(node) == Op::UserFun) {
        name = "user function " + p.userFuns.at(static_cast<size_t>(p.node(node).ival)).name;
    } else if (p.op(node) == Op::MapGlb || p.op(node) == Op::MapWrg || p.op(node) == Op::MapLcl) {
        name += "(" + std::to_string(p.node(node).ival) + ")";
    }
    badInput(name + ": " + msg, p.fileName, p.node(node).loc);
}

TypeInference::TypeInference(lift::Program& program, SizeMap sizes)
    : program_(program), sizes_(std::move(sizes)) {}

Size TypeInference::size(NodeId fun, size_t i) const {
    auto s = program_.sizes(fun);
    if (i >= s.size()) {
        failAt(program_, fun, "missing numeric argument");
    }
    return s[i].substitute(sizes_);
}

TypeId TypeInference::vectorize(TypeId lane, uint32_t width) {
    auto& types = program_.types;
    const lift::TypeNode& n = types.at(lane);
    if (n.kind == lift::TypeKind::Scalar) {
        return types.vector(n.scalar, width);
    }
    if (n.kind == lift::TypeKind::Tuple) {
        std::vector<TypeId> fields;
        for (TypeId f : std::vector<TypeId>(n.elems)) {
            fields.push_back(vectorize(f, width));
        }
        return types.tuple(fields);
    }
    return lane;
}

TypeId TypeInference::expr(NodeId e, std::vector<TypeId>& env) {
    for (const auto& [node, type] : known_) {
        if (node == e) {
            return type;
        }
    }
    const lift::Node& n = program_.node(e);
    switch (n.op) {
    case Op::Param:
        return env.at(static_cast<size_t>(n.ival));
    case Op::Literal:
        return concrete(program_.literals.at(static_cast<size_t>(n.ival)).type);
    case Op::Generate: {
        const lift::UserFunDecl& f =
            program_.userFuns.at(static_cast<size_t>(program_.node(program_.child(e, 0)).ival));
        TypeId t = concrete(f.returnType);
        for (size_t d = program_.sizes(e).size(); d-- > 0;) {
            t = program_.types.array(t, size(e, d));
        }
        return t;
    }
    case Op::Apply: {
        auto c = program_.children(e);
        std::vector<TypeId> args;
        for (size_t i = 1; i < c.size(); ++i) {
            args.push_back(expr(c[i], env));
        }
        return apply(c[0], args, env);
    }
    default:
        failAt(program_, e, "a function used as data");
    }
}

TypeId TypeInference::mapLike(NodeId fun, TypeId arg, std::vector<TypeId>& env) {
    auto& types = program_.types;
    TypeId elem = types.elemOf(arg);
    Size n = types.lengthOf(arg);
    std::array<TypeId, 1> a{elem};
    TypeId r = apply(program_.child(fun, 0), a, env);
    return types.array(r, n);
}

TypeId TypeInference::apply(NodeId fun, std::span<const TypeId> args, std::vector<TypeId>& env) {
    auto& types = program_.types;
    const lift::Node& n = program_.node(fun);
    switch (n.op) {
    case Op::Lambda: {
        auto params = program_.lambdaParams(fun);
        std::vector<TypeId> saved;
        for (size_t i = 0; i < params.size(); ++i) {
            TypeId& slot = env.at(static_cast<size_t>(program_.node(params[i]).ival));
            saved.push_back(slot);
            slot = args[i];
        }
        TypeId r = expr(program_.lambdaBody(fun), env);
        for (size_t i = 0; i < params.size(); ++i) {
            env.at(static_cast<size_t>(program_.node(params[i]).ival)) = saved[i];
        }
        return r;
    }
    case Op::UserFun:
        return concrete(program_.userFuns.at(static_cast<size_t>(n.ival)).returnType);
    case Op::Map:
    case Op::MapSeq:
    case Op::MapGlb:
    case Op::MapWrg:
    case Op::MapLcl:
        return mapLike(fun, args[0], env);
    case Op::MapVec:
    case Op::VectorizeUserFun: {
        uint32_t w = 0;
        std::vector<TypeId> lanes;
        for (TypeId a : args) {
            const lift::TypeNode& t = types.at(a);
            w = t.kind == lift::TypeKind::Vector ? t.width : w;
            lanes.push_back(
                types.at(a).kind == lift::TypeKind::Vector ? types.scalar(types.at(a).scalar) : a);
        }
        return vectorize(apply(program_.child(fun, 0), lanes, env), w);
    }
    case Op::Reduce:
    case Op::ReduceSeq:
        return types.array(args[0], 1);
    case Op::PartRed:
        return types.array(args[0], size(fun, 0));
    case Op::Iterate: {
        auto k = size(fun, 0).constant();
        TypeId cur = args[0];
        for (int64_t i = 0; k && i < *k; ++i) {
            std::array<TypeId, 1> a{cur};
            TypeId next = apply(program_.child(fun, 0), a, env);
            if (next == cur) {
                break; // a fixed point: every later iteration has this type
            }
            cur = next;
        }
        return cur;
    }
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return apply(program_.child(fun, 0), args, env);
    default:
        return layout(fun, args);
    }
}

TypeId TypeInference::layout(NodeId fun, std::span<const TypeId> args) {
    auto& types = program_.types;
    const lift::Node& n = program_.node(fun);
    auto arrayArg = [&]() {
        if (args.empty() || !types.isArray(args[0])) {
            failAt(program_, fun, "expected an array argument");
        }
        return args[0];
    };
    switch (n.op) {
    case Op::Split: {
        TypeId a = arrayArg();
        Size k = size(fun, 0);
        return types.array(types.array(types.elemOf(a), k), exactDiv(types.lengthOf(a), k));
    }
    case Op::Join: {
        TypeId a = arrayArg();
        TypeId inner = types.elemOf(a);
        return types.array(types.elemOf(inner), types.lengthOf(inner) * types.lengthOf(a));
    }
    case Op::Transpose:
    case Op::TransposeW: {
        TypeId a = arrayArg();
        TypeId inner = types.elemOf(a);
        return types.array(types.array(types.elemOf(inner), types.lengthOf(a)),
                           types.lengthOf(inner));
    }
    case Op::Zip: {
        std::vector<TypeId> fields;
        for (TypeId a : args) {
            fields.push_back(types.elemOf(a));
        }
        return types.array(types.tuple(fields), types.lengthOf(arrayArg()));
    }
    case Op::Unzip: {
        TypeId a = arrayArg();
        std::vector<TypeId> fields;
        for (TypeId f : std::vector<TypeId>(types.at(types.elemOf(a)).elems)) {
            fields.push_back(types.array(f, types.lengthOf(a)));
        }
        return types.tuple(fields);
    }
    case Op::Tuple:
        return types.tuple(std::vector<TypeId>(args.begin(), args.end()));
    case Op::Get: {
        const lift::TypeNode& t = types.at(args[0]);
        if (t.kind == lift::TypeKind::Vector) {
            return types.scalarBase(args[0]);
        }
        return t.elems.at(static_cast<size_t>(n.ival));
    }
    case Op::AsVector: {
        TypeId a = arrayArg();
        Size w = size(fun, 0);
        auto wc = w.constant();
        TypeId e = types.elemOf(a);
        return types.array(types.vector(types.at(e).scalar, static_cast<uint32_t>(wc.value_or(4))),
                           exactDiv(types.lengthOf(a), w));
    }
    case Op::AsScalar: {
        TypeId a = arrayArg();
        const lift::TypeNode& e = types.at(types.elemOf(a));
        return types.array(types.scalar(e.scalar), types.lengthOf(a) * Size(e.width));
    }
    case Op::Slide: {
        TypeId a = arrayArg();
        Size sz = size(fun, 0), step = size(fun, 1);
        return types.array(types.array(types.elemOf(a), sz),
                           floorDiv(types.lengthOf(a) - sz + step, step));
    }
    case Op::Pad: {
        TypeId a = arrayArg();
        return types.array(types.elemOf(a), size(fun, 0) + types.lengthOf(a) + size(fun, 1));
    }
    case Op::At:
        return types.elemOf(arrayArg());
    case Op::Filter:
        return types.array(types.elemOf(arrayArg()), types.lengthOf(args[1]));
    case Op::Gather:
    case Op::Scatter:
    case Op::Id:
    case Op::Reorder:
        return args[0];
    default:
        failAt(program_, fun, "cannot be applied to data in generated code");
    }
}

} // namespace egopt::codegen::detail
