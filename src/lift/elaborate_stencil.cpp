// Pad and PadConstant, and Slide2D/3D, Pad2D/3D, PadConstant2D/3D and Zip2D/3D: the Lift
// compiler's multi-dimensional stencil helpers, expanded into the 1D patterns they are defined
// by (so the rest of the compiler never sees them).
#include "elaborate.hpp"

namespace egopt::lift::detail {

Callable composeOf(const std::vector<NodeId>& outermostFirst) {
    Callable c;
    c.kind = Callable::Kind::Compose;
    for (NodeId n : outermostFirst) {
        Callable part;
        part.node = n;
        c.parts.push_back(part);
    }
    return c;
}

std::vector<arith::Size> Elaborator::sizeArgs(const Args& args, size_t count, const char* what,
                                              const EnvPtr& env) {
    std::vector<arith::Size> s;
    for (size_t i = 0; i < count; ++i) {
        Val v = eval(args[i], env);
        s.push_back(asSize(v, v.loc, what));
    }
    return s;
}

// Slide3D(size, step) =
//   Map(Map(Transpose()) o Transpose()) o Slide(size, step) o
//   Map(Map(Transpose()) o Slide(size, step) o Map(Slide(size, step)))
// and Slide3D(sizeO, stepO, sizeM, stepM, sizeI, stepI) with a pair per dimension, outermost
// first (as Slide2D's pairs): windows [z][y][x] of an [[[T]x]y]z array.
Val Elaborator::slide3D(SyntaxId site, const Args& args, const EnvPtr& env) {
    if (args.size() != 2 && args.size() != 6) {
        failAt(site, "expected 2 or 6 arguments for Slide3D(size, step) or "
                     "Slide3D(sizeOuter, stepOuter, sizeMiddle, stepMiddle, sizeInner, "
                     "stepInner), found " +
                         std::to_string(args.size()));
    }
    std::vector<arith::Size> s = sizeArgs(args, args.size(), "as a Slide3D argument", env);
    while (s.size() < 6) {
        s.push_back(s[s.size() - 2]);
    }
    SourceLoc loc = locOf(site);
    auto transpose = [&] { return node(Op::Transpose, 0, {}, {}, loc); };
    auto map = [&](NodeId f) { return node(Op::Map, 0, {f}, {}, loc); };
    auto slide = [&](size_t pair) {
        return node(Op::Slide, 0, {}, {s[2 * pair], s[2 * pair + 1]}, loc);
    };
    NodeId plane = materialize(composeOf({map(transpose()), slide(1), map(slide(2))}), loc);
    NodeId reorder = materialize(composeOf({map(transpose()), transpose()}), loc);
    Val v = funVal(kNoNode, loc);
    v.fun = composeOf({map(reorder), slide(0), map(plane)});
    return v;
}

// The last argument of a padding form: Pad.Boundary.X, or PadConstant's value (a literal or a
// Value(...) of a scalar or vector type).
Elaborator::Padding Elaborator::paddingArg(SyntaxId arg, bool constant, const EnvPtr& env) {
    Val b = eval(arg, env);
    Padding p;
    if (constant) {
        NodeId value = asExpr(b, b.loc, "as the padding value");
        if (program_.op(value) != Op::Literal) {
            failAt(arg, "expected a constant padding value (a literal or Value(...))");
        }
        p.boundary = static_cast<int32_t>(PadBoundary::Constant);
        p.value = value;
        return p;
    }
    if (b.kind != Val::Kind::Boundary) {
        failAt(arg, "expected Pad.Boundary.Clamp, Pad.Boundary.Mirror or Pad.Boundary.Wrap");
    }
    p.boundary = b.ival;
    return p;
}

// A Pad node; each constant pad holds its own copy of the value's literal (a node has one
// parent).
NodeId Elaborator::padNode(const Padding& p, const arith::Size& left, const arith::Size& right,
                           SourceLoc loc) {
    std::vector<NodeId> kids;
    if (p.value != kNoNode) {
        const LiteralDecl& lit =
            program_.literals.at(static_cast<size_t>(program_.node(p.value).ival));
        kids.push_back(program_.addLiteral(lit.type, lit.text, loc));
    }
    return node(Op::Pad, p.boundary, kids, {left, right}, loc);
}

// Pad(left, right, boundary) and PadConstant(left, right, value).
Val Elaborator::pad1D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant) {
    std::string name = constant ? "PadConstant" : "Pad";
    expectArgs(site, args, 3, 3,
               name + (constant ? "(left, right, value)" : "(left, right, Pad.Boundary.Clamp)"));
    std::vector<arith::Size> s = sizeArgs(args, 2, ("as " + name + "'s padding").c_str(), env);
    return funVal(padNode(paddingArg(args[2], constant, env), s[0], s[1], locOf(site)),
                  locOf(site));
}

// Pad3D(x, y, z, boundary) = Map(Map(Pad(x, x, b)) o Pad(y, y, b)) o Pad(z, z, b): x on both
// sides of the innermost dimension, z of the outermost. PadConstant3D(x, y, z, value) alike.
Val Elaborator::pad3D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant) {
    std::string name = constant ? "PadConstant3D" : "Pad3D";
    if (args.size() != 4) {
        failAt(site, "expected " + name + "(x, y, z, " + (constant ? "value" : "boundary") +
                         "), found " + std::to_string(args.size()) + " arguments");
    }
    std::vector<arith::Size> s = sizeArgs(args, 3, ("as a " + name + " amount").c_str(), env);
    Padding b = paddingArg(args.back(), constant, env);
    SourceLoc loc = locOf(site);
    auto pad = [&](const arith::Size& n) { return padNode(b, n, n, loc); };
    auto map = [&](NodeId f) { return node(Op::Map, 0, {f}, {}, loc); };
    NodeId plane = materialize(composeOf({map(pad(s[0])), pad(s[1])}), loc);
    Val v = funVal(kNoNode, loc);
    v.fun = composeOf({map(plane), pad(s[2])});
    return v;
}

// Zip2D(a, b, ...) = Map(t => Zip(t._0, t._1, ...)) $ Zip(a, b, ...): zips arrays of arrays
// element-wise; Zip3D one level deeper.
Val Elaborator::zipND(SyntaxId site, const Args& args, const EnvPtr& env, int dims) {
    std::string name = "Zip" + std::to_string(dims) + "D";
    if (args.size() < 2) {
        failAt(site, "expected at least 2 arrays for " + name + "(a, b, ...), found " +
                         std::to_string(args.size()));
    }
    SourceLoc loc = locOf(site);
    auto arity = static_cast<int32_t>(args.size());
    std::vector<NodeId> data;
    for (SyntaxId a : args) {
        Val v = eval(a, env);
        data.push_back(asExpr(v, v.loc, ("as an argument of " + name).c_str()));
    }
    // zipFields(d): the function t => Zip(t._0, ...) at depth d, with a Map of the next depth
    // around it when the arrays are deeper.
    NodeId inner = kNoNode;
    for (int d = dims - 1; d >= 1; --d) {
        NodeId t = program_.addParam("t" + std::to_string(program_.params.size()), kNoType, loc);
        std::vector<NodeId> fields;
        for (int32_t i = 0; i < arity; ++i) {
            fields.push_back(program_.apply(node(Op::Get, i, {}, {}, loc), std::vector{t}, loc));
        }
        NodeId zipped = program_.apply(node(Op::Zip, arity, {}, {}, loc), fields, loc);
        if (inner != kNoNode) {
            zipped = program_.apply(node(Op::Map, 0, {inner}, {}, loc), std::vector{zipped}, loc);
        }
        inner = program_.lambda(std::vector{t}, zipped, loc);
    }
    NodeId outer = program_.apply(node(Op::Zip, arity, {}, {}, loc), data, loc);
    return exprVal(program_.apply(node(Op::Map, 0, {inner}, {}, loc), std::vector{outer}, loc),
                   loc);
}

// Slide2D(size, step) = Map(Transpose()) o Slide(size, step) o Map(Slide(size, step));
// Slide2D(sizeRow, stepRow, sizeCol, stepCol) slides rows and columns separately.
Val Elaborator::slide2D(SyntaxId site, const Args& args, const EnvPtr& env) {
    if (args.size() != 2 && args.size() != 4) {
        failAt(site, "expected 2 or 4 arguments for Slide2D(size, step) or "
                     "Slide2D(sizeRow, stepRow, sizeCol, stepCol), found " +
                         std::to_string(args.size()));
    }
    std::vector<arith::Size> s;
    for (SyntaxId a : args) {
        Val v = eval(a, env);
        s.push_back(asSize(v, v.loc, "as a Slide2D argument"));
    }
    if (s.size() == 2) {
        s.push_back(s[0]);
        s.push_back(s[1]);
    }
    SourceLoc loc = locOf(site);
    NodeId transposeInner = node(Op::Map, 0, {node(Op::Transpose, 0, {}, {}, loc)}, {}, loc);
    NodeId slideRows = node(Op::Slide, 0, {}, {s[0], s[1]}, loc);
    NodeId slideCols = node(Op::Map, 0, {node(Op::Slide, 0, {}, {s[2], s[3]}, loc)}, {}, loc);
    Val v = funVal(kNoNode, loc);
    v.fun = composeOf({transposeInner, slideRows, slideCols});
    return v;
}

// Pad2D(n, boundary) pads every side by n; Pad2D(top, bottom, left, right, boundary) is
// Map(Pad(left, right, b)) o Pad(top, bottom, b). PadConstant2D takes a value instead of b.
Val Elaborator::pad2D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant) {
    std::string name = constant ? "PadConstant2D" : "Pad2D";
    std::string last = constant ? "value" : "boundary";
    if (args.size() != 2 && args.size() != 3 && args.size() != 5) {
        failAt(site, "expected " + name + "(n, " + last + "), " + name + "(l, r, " + last +
                         ") or " + name + "(top, bottom, left, right, " + last + "), found " +
                         std::to_string(args.size()) + " arguments");
    }
    std::vector<arith::Size> s =
        sizeArgs(args, args.size() - 1, ("as a " + name + " amount").c_str(), env);
    Padding b = paddingArg(args.back(), constant, env);
    while (s.size() < 4) {
        s.push_back(s[s.size() - (s.size() == 1 ? 1 : 2)]);
    }
    SourceLoc loc = locOf(site);
    NodeId padCols = node(Op::Map, 0, {padNode(b, s[2], s[3], loc)}, {}, loc);
    NodeId padRows = padNode(b, s[0], s[1], loc);
    Val v = funVal(kNoNode, loc);
    v.fun = composeOf({padCols, padRows});
    return v;
}

} // namespace egopt::lift::detail
