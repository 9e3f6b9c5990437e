// The kernel body generator: expressions, lambdas, user-function calls and data-layout views.
#include "generator.hpp"

#include "egopt/lift/patterns.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

namespace {

constexpr ViewId kUnbound = UINT32_MAX;

SizeMap toSizeMap(const arith::Bindings& b) {
    SizeMap m;
    for (const auto& [name, v] : b) {
        m.emplace(name, Size(v));
    }
    return m;
}

} // namespace

Generator::Generator(lift::Program& program, const arith::Bindings& sizes, ThreadPlan plan,
                     std::shared_ptr<arith::SimplifyMemo> memo)
    : program_(program), infer_(program, toSizeMap(sizes)), plan_(std::move(plan)),
      views_(program.types, buffers_) {
    env_.useMemo(std::move(memo));
    if (plan_.known) {
        views_.setLog(&code_.log()); // the first pass only chooses the launch: no facts needed
    }
    // Unbound sizes stay symbolic: kernel arguments, at least 1 (index simplification).
    for (const std::string& v : program.sizeVars) {
        if (!sizes.contains(v)) {
            env_.declareSize(v);
            sizeVars_.insert(v);
        }
    }
}

BufferId Generator::addBuffer(Buffer b) {
    buffers_.push_back(std::move(b));
    return static_cast<BufferId>(buffers_.size() - 1);
}

void Generator::bindParam(NodeId param, ViewId view) {
    bindParamIndex(static_cast<size_t>(program_.node(param).ival), view);
}

void Generator::bindParamIndex(size_t idx, ViewId view) {
    paramViews_.at(idx) = view;
    paramTypes_.at(idx) = view == kUnbound ? lift::kNoType : typeOf(view);
}

std::vector<TypeId> Generator::tupleTypes() const {
    // Every tuple type reachable from buffers, views and user functions, fields before tuples.
    // A tuple with an array component is never stored: it is a view (a zip of arrays, whose
    // fields resolve to the arrays themselves), so it gets no struct (C has no array fields).
    std::vector<TypeId> out;
    const auto& types = program_.types;
    auto hasArray = [&](auto&& self, TypeId t) -> bool {
        const lift::TypeNode& n = types.at(t);
        return n.kind == lift::TypeKind::Array ||
               std::any_of(n.elems.begin(), n.elems.end(), [&](TypeId e) { return self(self, e); });
    };
    auto visit = [&](auto&& self, TypeId t) -> void {
        const lift::TypeNode& n = types.at(t);
        for (TypeId e : n.elems) {
            self(self, e);
        }
        if (n.kind == lift::TypeKind::Tuple && !hasArray(hasArray, t) &&
            std::find(out.begin(), out.end(), t) == out.end()) {
            out.push_back(t);
        }
    };
    for (const Buffer& b : buffers_) {
        visit(visit, b.elemType);
    }
    for (TypeId t : usedTypes_) {
        visit(visit, t);
    }
    return out;
}

void Generator::run(const KernelSpec& spec) {
    paramViews_.assign(program_.params.size(), kUnbound);
    paramTypes_.assign(program_.params.size(), lift::kNoType);
    for (int index : spec.params) {
        auto idx = static_cast<size_t>(index);
        const lift::ParamInfo& info = program_.params.at(idx);
        TypeId t = infer_.concrete(info.declaredType);
        Buffer b;
        b.name = info.name;
        b.readOnly = true;
        if (program_.types.isArray(t)) {
            b.elemType = program_.types.scalarBase(t);
            bindParamIndex(idx, views_.mem(addBuffer(std::move(b)), t));
        } else {
            b.elemType = t;
            b.scalarVar = true;
            bindParamIndex(idx, views_.expr(info.name, t));
            addBuffer(std::move(b));
        }
        paramBuffers_.push_back(static_cast<BufferId>(buffers_.size() - 1));
        paramIndex_.push_back(index);
    }
    for (const Materialized& m : spec.inputs) {
        Buffer b{m.name, AddrSpace::Global, program_.types.scalarBase(m.type), 0, false, true};
        BufferId id = addBuffer(std::move(b));
        inputs_.emplace_back(id, m.index);
        materialized_.emplace_back(m.node, views_.mem(id, m.type));
        infer_.setKnown(m.node, m.type);
    }
    // Let parameters are views of inputs and earlier results (stages.hpp): no code.
    for (const auto& [param, arg] : spec.lets) {
        bindParam(param, produce(arg, Ctx{}, nullptr));
    }
    outputType_ = infer_.expr(spec.root, paramTypes_);
    if (!program_.types.isArray(outputType_)) {
        failAt(program_, spec.root, "the program's result must be an array");
    }
    Buffer out{spec.outputName,
               AddrSpace::Global,
               program_.types.scalarBase(outputType_),
               0,
               false,
               false};
    output_ = addBuffer(std::move(out));
    Dest dest{views_.mem(output_, outputType_), true};
    produce(spec.root, Ctx{}, &dest);
}

ViewId Generator::produce(NodeId expr, const Ctx& ctx, const Dest* dest) {
    bool wrote = false;
    ViewId v = gen(expr, ctx, dest, wrote);
    if (dest && !wrote) {
        copyValue(dest->view, v, typeOf(v));
        return dest->view;
    }
    return v;
}

// A literal's C text; vector literals get their type's cast ((float4)(0.0f)), and a tuple's
// fields' texts, braced or not, become a compound literal ((Tuple2_float_int){0.0f, 0}), an
// expression that assignments and calls accept (also for arrays of tuples, which broadcast it).
std::string Generator::literalText(NodeId literal) {
    const lift::LiteralDecl& lit =
        program_.literals.at(static_cast<size_t>(program_.node(literal).ival));
    TypeId t = infer_.concrete(lit.type);
    while (program_.types.isArray(t)) {
        t = program_.types.elemOf(t);
    }
    if (program_.types.kind(t) == lift::TypeKind::Vector && !lit.text.starts_with("(")) {
        return "(" + ctype(t) + ")(" + lit.text + ")";
    }
    if (program_.types.kind(t) == lift::TypeKind::Tuple && !lit.text.starts_with("(")) {
        // Lift writes a tuple's value as its fields' texts, Value("0.0f, 0", TupleType(...)),
        // or braced; both are the compound literal's initialiser.
        usedTypes_.push_back(t);
        return "(" + ctype(t) + ")" + (lit.text.starts_with("{") ? lit.text : "{" + lit.text + "}");
    }
    return lit.text;
}

// The kernel source defines user function `userFun` (its `width`-lane vector form when not 0).
void Generator::useUserFun(int userFun, int width) {
    std::pair<int, int> key{userFun, width};
    if (std::find(userFuns_.begin(), userFuns_.end(), key) == userFuns_.end()) {
        userFuns_.push_back(key);
    }
}

// An array generator is computed where it is read: a view calling its user function.
ViewId Generator::generatorView(NodeId e) {
    int userFun = program_.node(program_.child(e, 0)).ival;
    useUserFun(userFun, 0);
    std::vector<TypeId> env;
    View v;
    v.kind = ViewKind::Generate;
    v.type = infer_.expr(e, env);
    v.text = program_.userFuns.at(static_cast<size_t>(userFun)).name;
    for (size_t d = 0; d < program_.sizes(e).size(); ++d) {
        v.dims.push_back(infer_.size(e, d));
    }
    usedTypes_.push_back(
        infer_.concrete(program_.userFuns.at(static_cast<size_t>(userFun)).returnType));
    return views_.add(std::move(v));
}

ViewId Generator::gen(NodeId e, const Ctx& ctx, const Dest* dest, bool& wrote) {
    wrote = false;
    const lift::Node& n = program_.node(e);
    switch (n.op) {
    case Op::Param: {
        ViewId v = paramViews_.at(static_cast<size_t>(n.ival));
        if (v == kUnbound) {
            failAt(program_, e, "parameter used outside its function");
        }
        return v;
    }
    case Op::Literal: {
        TypeId t = infer_.concrete(program_.literals.at(static_cast<size_t>(n.ival)).type);
        return views_.expr(literalText(e), t);
    }
    case Op::Generate:
        return generatorView(e);
    case Op::Apply: {
        for (const auto& [node, view] : materialized_) {
            if (node == e) {
                return view; // computed by an earlier kernel
            }
        }
        try {
            return genApply(e, ctx, dest, wrote);
        } catch (const Error& err) {
            // A view that cannot be read or written (views.cpp knows no nodes): at the innermost
            // application whose code reaches it.
            if (err.kind() != ErrorKind::BadInput || err.loc().known()) {
                throw;
            }
            failAt(program_, program_.child(e, 0), err.message());
        }
    }
    default:
        failAt(program_, e, "a function used as data");
    }
}

// Layout patterns of one argument pass an inverted destination to it, so that the producer of
// the argument writes where the pattern's result must go.
ViewId Generator::genApply(NodeId apply, const Ctx& ctx, const Dest* dest, bool& wrote) {
    auto c = program_.children(apply);
    NodeId fun = c[0];
    auto space = c.size() == 2 ? exprAnnotation(c[1]) : std::nullopt;
    if (!dest && space && writeLayout(fun)) {
        // A layout on the write side (TransposeW, Scatter) of a producer with an address space
        // and no destination: the result gets memory in that space, which the producer writes
        // through the inverse view (e.g. a tile stored transposed in local memory).
        std::array<TypeId, 1> argType{infer_.expr(c[1], paramTypes_)};
        Dest own = allocate(fun, infer_.apply(fun, argType, paramTypes_), *space, ctx);
        if (auto inv = inverseDest(fun, argType[0], own.view)) {
            Dest into{*inv, false};
            bool argWrote = false;
            ViewId arg = gen(c[1], ctx, &into, argWrote);
            if (!argWrote) {
                copyValue(into.view, arg, argType[0]);
            }
            return own.view;
        }
    }
    if (c.size() == 2 && isLayout1(fun) && dest) {
        TypeId argType = infer_.expr(c[1], paramTypes_);
        if (auto inv = inverseDest(fun, argType, dest->view)) {
            Dest d{*inv, dest->final};
            ViewId arg = gen(c[1], ctx, &d, wrote);
            if (wrote) {
                return dest->view;
            }
            return layoutView(fun, {arg});
        }
    }
    std::vector<ViewId> args;
    std::optional<AddrSpace> merged;
    for (size_t i = 1; i < c.size(); ++i) {
        args.push_back(produce(c[i], ctx, nullptr));
        // Barrier elimination (CGO'17 §5.4): the arguments are independent, so the barrier that
        // ends one (after its MapLcl wrote a tile, say) need not separate it from the next
        // argument's code; one barrier after the last argument serves them all.
        if (i + 1 < c.size()) {
            if (auto space = dropTrailingBarrier()) {
                merged = merged == AddrSpace::Global ? *merged : *space;
            }
        }
    }
    if (merged) {
        auto last = dropTrailingBarrier();
        emitBarrier(last == AddrSpace::Global ? *last : *merged);
    }
    return applyTo(fun, std::move(args), ctx, dest, wrote);
}

ViewId Generator::applyTo(NodeId fun, std::vector<ViewId> args, const Ctx& ctx, const Dest* dest,
                          bool& wrote) {
    wrote = false;
    const lift::Node& n = program_.node(fun);
    checkLowered(fun, ctx);
    if (lift::isLoweredMap(n.op)) { // MapSeq, MapGlb, MapWrg, MapLcl: a loop (gen_patterns.cpp)
        wrote = true;
        return genMap(fun, args.at(0), ctx, dest);
    }
    switch (n.op) {
    case Op::Lambda:
        return applyLambda(fun, std::move(args), ctx, dest, wrote);
    case Op::UserFun:
        return callUserFun(fun, n.ival, 0, std::move(args), dest, wrote);
    case Op::VectorizeUserFun:
    case Op::MapVec: {
        NodeId f = program_.child(fun, 0);
        if (program_.op(f) != Op::UserFun) {
            failAt(program_, fun, "only a user function can be vectorised in generated code");
        }
        int w = 0;
        auto& types = program_.types;
        for (ViewId a : args) {
            const lift::TypeNode& t = types.at(typeOf(a));
            // A tuple of vectors (zipped vector arrays) is spread over the parameters.
            TypeId lane =
                t.kind == lift::TypeKind::Tuple && !t.elems.empty() ? t.elems[0] : typeOf(a);
            const lift::TypeNode& l = types.at(lane);
            w = l.kind == lift::TypeKind::Vector ? static_cast<int>(l.width) : w;
        }
        return callUserFun(fun, program_.node(f).ival, w, std::move(args), dest, wrote);
    }
    case Op::ReduceSeq:
    case Op::ReduceWhileSeq:
        wrote = true;
        return genReduce(fun, args.at(0), args.at(1), ctx, dest);
    case Op::ScanSeq:
        wrote = true;
        return genScan(fun, args.at(0), args.at(1), ctx, dest);
    case Op::InsertionSortSeq:
        wrote = true;
        return genSort(fun, args.at(0), ctx, dest);
    case Op::Iterate:
        wrote = dest != nullptr;
        return genIterate(fun, args.at(0), ctx, dest);
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate: {
        Ctx inner = ctx;
        inner.space = n.op == Op::ToGlobal  ? AddrSpace::Global
                      : n.op == Op::ToLocal ? AddrSpace::Local
                                            : AddrSpace::Private;
        return applyTo(program_.child(fun, 0), std::move(args), inner, dest, wrote);
    }
    default:
        return layoutView(fun, args);
    }
}

ViewId Generator::applyLambda(NodeId fun, std::vector<ViewId> args, const Ctx& ctx,
                              const Dest* dest, bool& wrote) {
    auto params = program_.lambdaParams(fun);
    if (params.size() != args.size()) {
        failAt(program_, fun,
               "applied to " + std::to_string(args.size()) + " arguments, expects " +
                   std::to_string(params.size()));
    }
    std::vector<ViewId> saved;
    for (size_t i = 0; i < params.size(); ++i) {
        saved.push_back(paramViews_.at(static_cast<size_t>(program_.node(params[i]).ival)));
        bindParam(params[i], args[i]);
    }
    ViewId r = gen(program_.lambdaBody(fun), ctx, dest, wrote);
    for (size_t i = 0; i < params.size(); ++i) {
        bindParam(params[i], saved[i]);
    }
    return r;
}

ViewId Generator::callUserFun(NodeId fun, int userFun, int width, std::vector<ViewId> args,
                              const Dest* dest, bool& wrote) {
    const lift::UserFunDecl& decl = program_.userFuns.at(static_cast<size_t>(userFun));
    std::vector<std::string> argText;
    // A multi-parameter user function applied to one tuple takes its fields (as in Lift).
    bool spread = args.size() == 1 && decl.paramTypes.size() > 1 &&
                  program_.types.kind(typeOf(args[0])) == lift::TypeKind::Tuple;
    if (spread) {
        for (size_t f = 0; f < decl.paramTypes.size(); ++f) {
            argText.push_back(read(args[0], Path{Step{true, 0, static_cast<int>(f)}}));
        }
    } else {
        if (args.size() != decl.paramTypes.size()) {
            failAt(program_, fun, "applied to " + std::to_string(args.size()) + " arguments");
        }
        for (ViewId a : args) {
            argText.push_back(read(a));
            TypeId t = typeOf(a);
            if (width && program_.types.kind(t) == lift::TypeKind::Scalar) {
                // A scalar a vectorised call broadcasts to every lane (VectorizeUserFun).
                TypeId v = infer_.vectorize(t, static_cast<uint32_t>(width));
                argText.back() = "(" + ctype(v) + ")(" + argText.back() + ")";
            }
        }
    }
    useUserFun(userFun, width);
    std::string name = decl.name + (width ? "_v" + std::to_string(width) : "");
    code_.log().calls.push_back(name);
    std::string call = name + "(";
    for (size_t i = 0; i < argText.size(); ++i) {
        call += (i ? ", " : "") + argText[i];
    }
    call += ")";
    TypeId result = infer_.concrete(decl.returnType);
    if (width) {
        result = infer_.vectorize(result, static_cast<uint32_t>(width));
    }
    usedTypes_.push_back(result);
    if (dest) {
        code_.line(views_.write(dest->view, {}, call, env_));
        wrote = true;
        return dest->view;
    }
    // No destination: the result lives in a private variable (registers).
    Buffer b{fresh("v"), AddrSpace::Private, result, 1, true, false};
    code_.line(ctype(result) + " " + b.name + " = " + call + ";");
    return views_.mem(addBuffer(std::move(b)), result);
}

// A sequential element-wise copy, for values that reach a destination without being produced
// there (a layout pattern of an input returned as the result, an iterate's last buffer).
void Generator::copyValue(ViewId dst, ViewId src, TypeId type) {
    auto& types = program_.types;
    if (!types.isArray(type)) {
        code_.line(views_.write(dst, {}, read(src), env_));
        return;
    }
    Size n = types.lengthOf(type);
    std::string i = fresh("c");
    env_.setRange(i, 0, n - 1);
    code_.openFor(i, 0, n, 1);
    copyValue(views_.access(dst, Size::var(i)), views_.access(src, Size::var(i)),
              types.elemOf(type));
    code_.close();
}

} // namespace egopt::codegen::detail
