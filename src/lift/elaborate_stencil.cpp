// Slide2D and Pad2D: the Lift compiler's two-dimensional stencil helpers, expanded into the 1D
// patterns they are defined by (so the rest of the compiler never sees them).
#include "elaborate.hpp"

namespace egopt::lift::detail {

namespace {

Callable compose(std::vector<NodeId> outermostFirst) {
    Callable c;
    c.kind = Callable::Kind::Compose;
    for (NodeId n : outermostFirst) {
        Callable part;
        part.node = n;
        c.parts.push_back(part);
    }
    return c;
}

} // namespace

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
    v.fun = compose({transposeInner, slideRows, slideCols});
    return v;
}

// Pad2D(n, boundary) pads every side by n; Pad2D(top, bottom, left, right, boundary) is
// Map(Pad(left, right, b)) o Pad(top, bottom, b).
Val Elaborator::pad2D(SyntaxId site, const Args& args, const EnvPtr& env) {
    if (args.size() != 2 && args.size() != 3 && args.size() != 5) {
        failAt(site, "expected Pad2D(n, boundary), Pad2D(l, r, boundary) or "
                     "Pad2D(top, bottom, left, right, boundary), found " +
                         std::to_string(args.size()) + " arguments");
    }
    std::vector<arith::Size> s;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
        Val v = eval(args[i], env);
        s.push_back(asSize(v, v.loc, "as a Pad2D amount"));
    }
    Val b = eval(args.back(), env);
    if (b.kind != Val::Kind::Boundary) {
        failAt(args.back(),
               "expected Pad.Boundary.Clamp, Pad.Boundary.Mirror or Pad.Boundary.Wrap");
    }
    while (s.size() < 4) {
        s.push_back(s[s.size() - (s.size() == 1 ? 1 : 2)]);
    }
    SourceLoc loc = locOf(site);
    NodeId padCols = node(Op::Map, 0, {node(Op::Pad, b.ival, {}, {s[2], s[3]}, loc)}, {}, loc);
    NodeId padRows = node(Op::Pad, b.ival, {}, {s[0], s[1]}, loc);
    Val v = funVal(kNoNode, loc);
    v.fun = compose({padCols, padRows});
    return v;
}

} // namespace egopt::lift::detail
