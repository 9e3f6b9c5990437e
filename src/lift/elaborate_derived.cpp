// Lift patterns that are defined by others and need no meaning of their own: Head, Tail,
// MapSeqSlide, UnsafeArrayAccess and CheckedArrayAccess are expanded into the views and maps they
// stand for; of the debugging patterns, AssertType is a typed identity and PrintType the identity
// (Lift prints the type while compiling; the value passes through). Scala's limits of the scalar
// types (Float.MaxValue, ...) are literals.
#include "elaborate.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace egopt::lift::detail {

namespace {

struct ScalarLimit {
    ScalarKind scalar;
    const char* name;
    const char* text; // as OpenCL C writes the value (its named constants, which the
                      // interpreter's literals know too)
};

constexpr std::array kLimits = {
    ScalarLimit{ScalarKind::Float, "MaxValue", "FLT_MAX"},
    ScalarLimit{ScalarKind::Float, "MinValue", "-FLT_MAX"},
    ScalarLimit{ScalarKind::Float, "MinPositiveValue", "1.40129846e-45f"},
    ScalarLimit{ScalarKind::Float, "PositiveInfinity", "INFINITY"},
    ScalarLimit{ScalarKind::Float, "NegativeInfinity", "-INFINITY"},
    ScalarLimit{ScalarKind::Double, "MaxValue", "DBL_MAX"},
    ScalarLimit{ScalarKind::Double, "MinValue", "-DBL_MAX"},
    ScalarLimit{ScalarKind::Int, "MaxValue", "INT_MAX"},
    ScalarLimit{ScalarKind::Int, "MinValue", "INT_MIN"},
};

} // namespace

std::optional<Val> Elaborator::scalarLimit(TypeId type, const std::string& name, SourceLoc loc) {
    if (program_.types.kind(type) != TypeKind::Scalar) {
        return std::nullopt;
    }
    ScalarKind k = program_.types.at(type).scalar;
    for (const ScalarLimit& l : kLimits) {
        if (l.scalar == k && name == l.name) {
            return exprVal(program_.addLiteral(type, l.text, loc), loc);
        }
    }
    return std::nullopt;
}

// UnsafeArrayAccess(i): At(i) at a constant index. An index computed from data reads through
// Filter, Lift's data-dependent gather, with the one index i:
// fun(a => At(0) $ Filter(a, Map(fun(u => i)) $ Head(a))).
Val Elaborator::arrayAccess(const Val& index, SourceLoc loc) {
    if (index.kind == Val::Kind::Size) {
        return funVal(node(Op::At, 0, {}, {asSize(index, index.loc, "as the index")}, loc), loc);
    }
    NodeId i = asExpr(index, index.loc, "as the index of UnsafeArrayAccess");
    auto fresh = [&](const char* stem) {
        return program_.addParam(stem + std::to_string(program_.params.size()), kNoType, loc);
    };
    auto apply1 = [&](NodeId f, NodeId x) { return program_.apply(f, std::vector{x}, loc); };
    NodeId a = fresh("a");
    NodeId u = fresh("u");
    NodeId head = apply1(node(Op::At, 0, {}, {arith::Size(0)}, loc),
                         apply1(node(Op::Split, 0, {}, {arith::Size(1)}, loc), a));
    NodeId ids = apply1(node(Op::Map, 0, {program_.lambda(std::vector{u}, i, loc)}, {}, loc), head);
    NodeId picked = program_.apply(node(Op::Filter, 0, {}, {}, loc), std::vector{a, ids}, loc);
    NodeId body = apply1(node(Op::At, 0, {}, {arith::Size(0)}, loc), picked);
    return funVal(program_.lambda(std::vector{a}, body, loc), loc);
}

// CheckedArrayAccess(i, d): element i, or d where i is outside the array. The array gets d
// appended (PadConstant(0, 1, d)), and an index out of range becomes that element's, n:
// fun(a => At(0) $ Filter(PadConstant(0, 1, d) $ a,
//     Map(fun(n => checkedArrayIndex(i, n))) $ Reduce(fun((k, x) => checkedArrayCount(k)), 0) $ a))
// Lift has no length of an array as a value, so it is counted (the one-element result of the
// Reduce is the Filter's array of indices): a loop adding ones, which OpenCL compilers fold.
Val Elaborator::checkedAccess(const Val& index, SyntaxId defaultArg, const EnvPtr& env,
                              SourceLoc loc) {
    NodeId i = asExpr(index, index.loc, "as the index of CheckedArrayAccess");
    Padding fill = paddingArg(defaultArg, true, env);
    auto fresh = [&](const char* stem) {
        return program_.addParam(stem + std::to_string(program_.params.size()), kNoType, loc);
    };
    auto apply1 = [&](NodeId f, NodeId x) { return program_.apply(f, std::vector{x}, loc); };
    auto library = [&](const char* name) {
        Val f = *libraryName(name, loc);
        return asFunction(f, loc, "as a library function");
    };
    NodeId a = fresh("a");
    NodeId k = fresh("k");
    NodeId x = fresh("x");
    NodeId n = fresh("n");
    NodeId step = program_.lambda(std::vector{k, x}, apply1(library("checkedArrayCount"), k), loc);
    NodeId zero = program_.addLiteral(program_.types.scalar(ScalarKind::Int), "0", loc);
    NodeId count = program_.apply(node(Op::Reduce, 0, {step}, {}, loc), std::vector{zero, a}, loc);
    NodeId checked = program_.apply(library("checkedArrayIndex"), std::vector{i, n}, loc);
    NodeId ids =
        apply1(node(Op::Map, 0, {program_.lambda(std::vector{n}, checked, loc)}, {}, loc), count);
    NodeId padded = apply1(padNode(fill, arith::Size(0), arith::Size(1), loc), a);
    NodeId picked = program_.apply(node(Op::Filter, 0, {}, {}, loc), std::vector{padded, ids}, loc);
    NodeId body = apply1(node(Op::At, 0, {}, {arith::Size(0)}, loc), picked);
    return funVal(program_.lambda(std::vector{a}, body, loc), loc);
}

// LSearch(f, init) and BSearch(f, init) on an array sorted as the comparison f expects (f(x) is
// 0 for the element sought, and greater than 0 before it): [T]1, the element x with f(x) == 0,
// or init where there is none. Lift's searches stop at the first such element, linearly or by
// bisection; on such an array that is the first x with f(x) == 0 (where several give 0, Lift's
// BSearch may stop at another), which a left fold finds:
// fun(a => Map(fun(p => p._0)) $
//     Reduce(fun((acc, x) => searchStep_T(acc, x, f(x))), {init, 0}) $ a)
// where the flag of the accumulator says whether the element was found.
Val Elaborator::search(const std::string& name, SyntaxId site, const Args& args,
                       const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    expectArgs(site, args, 2, 2, name + "(f, init)");
    Val f = eval(args[0], env);
    asFunction(f, f.loc, ("as the comparison of " + name).c_str());
    Val init = eval(args[1], env);
    NodeId initNode = asExpr(init, init.loc, ("as the initial value of " + name).c_str());
    TypeId t = program_.op(initNode) == Op::Literal
                   ? program_.literals[static_cast<size_t>(program_.node(initNode).ival)].type
                   : kNoType;
    if (t == kNoType || program_.types.kind(t) != TypeKind::Scalar) {
        failAt(args[1], "expected a scalar literal as the initial value of " + name);
    }
    auto fresh = [&](const char* stem) {
        return program_.addParam(stem + std::to_string(program_.params.size()), kNoType, loc);
    };
    NodeId a = fresh("a");
    NodeId acc = fresh("acc");
    NodeId x = fresh("x");
    NodeId p = fresh("p");
    NodeId cmp = applyCallable(f.fun, {x}, loc);
    NodeId step =
        program_.lambda(std::vector{acc, x},
                        program_.apply(searchStep(t, loc), std::vector{acc, x, cmp}, loc), loc);
    const std::string& initText =
        program_.literals[static_cast<size_t>(program_.node(initNode).ival)].text;
    TypeId pair = program_.types.tuple(std::vector{t, program_.types.scalar(ScalarKind::Int)});
    NodeId start = program_.addLiteral(pair, "{" + initText + ", 0}", loc);
    NodeId folded =
        program_.apply(node(Op::Reduce, 0, {step}, {}, loc), std::vector{start, a}, loc);
    NodeId first = program_.apply(node(Op::Get, 0, {}, {}, loc), std::vector{p}, loc);
    NodeId result =
        program_.apply(node(Op::Map, 0, {program_.lambda(std::vector{p}, first, loc)}, {}, loc),
                       std::vector{folded}, loc);
    return funVal(program_.lambda(std::vector{a}, result, loc), loc);
}

// searchStep_T((T, int) acc, T x, int cmp): x, found, at the first x with cmp == 0.
NodeId Elaborator::searchStep(TypeId element, SourceLoc loc) {
    std::string c = program_.types.show(element);
    std::transform(c.begin(), c.end(), c.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    std::string name = "searchStep_" + c;
    for (size_t i = 0; i < program_.userFuns.size(); ++i) {
        if (program_.userFuns[i].name == name) {
            return program_.refUserFun(static_cast<uint32_t>(i), loc);
        }
    }
    TypeId intType = program_.types.scalar(ScalarKind::Int);
    TypeId pair = program_.types.tuple(std::vector{element, intType});
    UserFunDecl decl;
    decl.name = name;
    decl.paramNames = {"acc", "x", "cmp"};
    decl.paramTypes = {pair, element, intType};
    decl.returnType = pair;
    decl.body = "{ if (acc._1 == 0 && cmp == 0) { Tuple r = {x, 1}; return r; } return acc; }";
    decl.loc = loc;
    decl.builtin = true;
    return program_.addUserFun(std::move(decl), loc);
}

std::optional<Val> Elaborator::derivedForm(const std::string& name, SyntaxId site, const Args& args,
                                           const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    auto composed = [&](const std::vector<NodeId>& parts) {
        Val v = funVal(kNoNode, loc);
        v.fun = composeOf(parts);
        return v;
    };
    if (name == "Head") {
        // [T]n -> [T]1 (Lift's type): the first element as a one-element array,
        // At(0) o Split(1).
        expectArgs(site, args, 0, 0, "Head()");
        return composed({node(Op::At, 0, {}, {arith::Size(0)}, loc),
                         node(Op::Split, 0, {}, {arith::Size(1)}, loc)});
    }
    if (name == "Tail") {
        // [T]n -> [T](n-1): element 1 of each window of two, Map(At(1)) o Slide(2, 1), so no
        // length has to be known here.
        expectArgs(site, args, 0, 0, "Tail()");
        NodeId second = node(Op::At, 0, {}, {arith::Size(1)}, loc);
        return composed({node(Op::Map, 0, {second}, {}, loc),
                         node(Op::Slide, 0, {}, {arith::Size(2), arith::Size(1)}, loc)});
    }
    if (name == "MapSeqSlide") {
        // MapSeqSlide(f, size, step) = MapSeq(f) o Slide(size, step); Lift's version keeps the
        // window in registers, a choice of the code generator that the meaning leaves open.
        expectArgs(site, args, 3, 3, "MapSeqSlide(f, size, step)");
        Val f = eval(args[0], env);
        NodeId fn = asFunction(f, f.loc, "as the function of MapSeqSlide");
        std::vector<arith::Size> s =
            sizeArgs(Args(args.begin() + 1, args.end()), 2, "as a MapSeqSlide argument", env);
        return composed({node(Op::MapSeq, 0, {fn}, {}, loc), node(Op::Slide, 0, {}, s, loc)});
    }
    if (name == "UnsafeArrayAccess") {
        expectArgs(site, args, 1, 1, "UnsafeArrayAccess(index)");
        return arrayAccess(eval(args[0], env), loc);
    }
    if (name == "LSearch" || name == "BSearch") {
        return search(name, site, args, env);
    }
    if (name == "CheckedArrayAccess") {
        expectArgs(site, args, 2, 2, "CheckedArrayAccess(index, default)");
        return checkedAccess(eval(args[0], env), args[1], env, loc);
    }
    if (name == "AssertType") {
        // AssertType(T) or AssertType(T, "message"): the identity on a value of type T, and a
        // type error elsewhere: a lambda whose parameter is declared of type T.
        expectArgs(site, args, 1, 2, "AssertType(type) or AssertType(type, \"message\")");
        Val t = eval(args[0], env);
        TypeId type = asType(t, t.loc, "as the type of AssertType");
        NodeId x = program_.addParam("x" + std::to_string(program_.params.size()), type, loc);
        return funVal(program_.lambda(std::vector{x}, x, loc), loc);
    }
    if (name == "PrintType") {
        // PrintType() or PrintType("message"): Lift prints the argument's type while compiling
        // (`egopt check` prints the program's); the value passes through.
        expectArgs(site, args, 0, 1, "PrintType() or PrintType(\"message\")");
        return funVal(node(Op::Id, 0, {}, {}, loc), loc);
    }
    return std::nullopt;
}

} // namespace egopt::lift::detail
