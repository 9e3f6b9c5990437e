// Type checker: the typing rules of ir.hpp's pattern table on small programs built with the
// Program API, and the error messages (pattern, argument, expected vs found, location).
#include "egopt/lift/typecheck.hpp"

#include <catch2/catch.hpp>
#include <functional>
#include <vector>

using namespace egopt;
using namespace egopt::lift;
using arith::Size;

namespace {

// Program-building shorthand: patterns, applications, one-parameter lambdas, user functions.
struct Builder {
    Program p;
    TypeId f32 = p.types.floatType();
    TypeId i32 = p.types.intType();

    TypeId arr(TypeId elem, const Size& n) { return p.types.array(elem, n); }
    TypeId tup(std::vector<TypeId> fields) { return p.types.tuple(fields); }
    NodeId pat(Op op, std::vector<NodeId> kids = {}, std::vector<Size> sizes = {}, int ival = 0,
               SourceLoc loc = {}) {
        return p.add(op, ival, kids, sizes, loc);
    }
    NodeId call(NodeId fun, std::vector<NodeId> args, SourceLoc loc = {}) {
        return p.apply(fun, args, loc);
    }
    NodeId fun(std::vector<std::string> names,
               const std::function<NodeId(std::vector<NodeId>)>& body, SourceLoc loc = {}) {
        std::vector<NodeId> params;
        for (auto& n : names) {
            params.push_back(p.addParam(n));
        }
        NodeId b = body(params);
        return p.lambda(params, b, loc);
    }
    NodeId userFun(std::string name, std::vector<TypeId> params, TypeId ret) {
        UserFunDecl d;
        d.name = std::move(name);
        for (size_t i = 0; i < params.size(); ++i) {
            d.paramNames.push_back("p" + std::to_string(i));
        }
        d.paramTypes = std::move(params);
        d.returnType = ret;
        d.body = "{ return 0; }";
        return p.addUserFun(d);
    }
    NodeId add() { return userFun("add", {f32, f32}, f32); }
    NodeId mult() { return userFun("mult", {f32, f32}, f32); }
    NodeId abs() { return userFun("abs", {f32}, f32); }
    NodeId zero() { return p.addLiteral(f32, "0.0f"); }
    // Reduce(add, 0.0f) $ xs
    NodeId sum(NodeId xs) { return call(pat(Op::Reduce, {add()}), {zero(), xs}); }
    // The top-level function: declared parameters, then the body.
    TypeInfo top(std::vector<std::pair<std::string, TypeId>> decls,
                 const std::function<NodeId(std::vector<NodeId>)>& body) {
        std::vector<NodeId> params;
        for (auto& [name, type] : decls) {
            params.push_back(p.addParam(name, type));
        }
        p.root = p.lambda(params, body(params));
        return typecheck(p);
    }
    std::string show(TypeId t) const { return p.types.show(t); }
};

const Size N = Size::var("N");
const Size M = Size::var("M");
const Size K = Size::var("K");

// Runs `build` and returns the BadInput error it must throw.
Error expectError(const std::function<void()>& build) {
    try {
        build();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        return e;
    }
    FAIL("expected a type error");
    return Error(ErrorKind::Internal, "unreachable");
}

} // namespace

TEST_CASE("asum: Reduce(add) o Map(abs)", "[lift]") {
    Builder b;
    NodeId mapped = kNoNode;
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}}, [&](auto ps) {
        mapped = b.call(b.pat(Op::Map, {b.abs()}), {ps[0]});
        return b.sum(mapped);
    });
    CHECK(info.resultType == b.arr(b.f32, 1));
    CHECK(info.nodeTypes[mapped] == b.arr(b.f32, N));
    CHECK(showSignature(b.p, info) == "(ArrayType(Float, N)) -> ArrayType(Float, 1)");
}

TEST_CASE("dot product: Zip and Get inside a lambda", "[lift]") {
    Builder b;
    NodeId lam = kNoNode;
    NodeId tParam = kNoNode;
    TypeInfo info = b.top({{"x", b.arr(b.f32, N)}, {"y", b.arr(b.f32, N)}}, [&](auto ps) {
        lam = b.fun({"t"}, [&](auto ts) {
            tParam = ts[0];
            return b.call(b.mult(), {b.call(b.pat(Op::Get, {}, {}, 0), {ts[0]}),
                                     b.call(b.pat(Op::Get, {}, {}, 1), {ts[0]})});
        });
        NodeId zipped = b.call(b.pat(Op::Zip, {}, {}, 2), ps);
        return b.sum(b.call(b.pat(Op::Map, {lam}), {zipped}));
    });
    CHECK(info.resultType == b.arr(b.f32, 1));
    CHECK(info.nodeTypes[tParam] == b.tup({b.f32, b.f32}));
    CHECK(info.paramTypes[b.p.node(tParam).ival] == b.tup({b.f32, b.f32}));
    CHECK(info.nodeTypes[lam] == b.f32);
    CHECK(showSignature(b.p, info) ==
          "(ArrayType(Float, N), ArrayType(Float, N)) -> ArrayType(Float, 1)");
}

TEST_CASE("matrix multiplication: nested maps over a transposed matrix", "[lift]") {
    Builder b;
    TypeId a = b.arr(b.arr(b.f32, K), M);
    TypeId bt = b.arr(b.arr(b.f32, N), K);
    TypeInfo info = b.top({{"A", a}, {"B", bt}}, [&](auto ps) {
        NodeId rows = b.fun({"aRow"}, [&](auto r) {
            NodeId cols = b.fun({"bCol"}, [&](auto c) {
                // Map(mult) on a zipped pair: the tuple's fields become mult's arguments.
                NodeId prods = b.call(b.pat(Op::Map, {b.mult()}),
                                      {b.call(b.pat(Op::Zip, {}, {}, 2), {r[0], c[0]})});
                return b.sum(prods);
            });
            return b.call(b.pat(Op::Map, {cols}), {b.call(b.pat(Op::Transpose), {ps[1]})});
        });
        return b.call(b.pat(Op::Map, {rows}), {ps[0]});
    });
    CHECK(b.show(info.resultType) == "ArrayType(ArrayType(ArrayType(Float, 1), N), M)");
}

TEST_CASE("Split with a symbolic length, then Join back to N", "[lift]") {
    Builder b;
    NodeId split = kNoNode;
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}}, [&](auto ps) {
        split = b.call(b.pat(Op::Split, {}, {128}), {ps[0]});
        NodeId chunks = b.call(b.pat(Op::MapWrg, {b.pat(Op::MapLcl, {b.abs()})}), {split});
        return b.call(b.pat(Op::Join), {chunks});
    });
    CHECK(info.nodeTypes[split] == b.arr(b.arr(b.f32, 128), exactDiv(N, Size(128))));
    CHECK(b.show(info.nodeTypes[split]) == "ArrayType(ArrayType(Float, 128), N/^128)");
    CHECK(info.resultType == b.arr(b.f32, N));
}

TEST_CASE("asVector, VectorizeUserFun, MapVec and asScalar", "[lift]") {
    Builder b;
    NodeId vec = kNoNode;
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}}, [&](auto ps) {
        vec = b.call(b.pat(Op::AsVector, {}, {4}), {ps[0]});
        NodeId vabs = b.pat(Op::VectorizeUserFun, {b.abs()}, {4});
        NodeId m1 = b.call(b.pat(Op::MapGlb, {vabs}), {vec});
        NodeId m2 = b.call(b.pat(Op::MapSeq, {b.pat(Op::MapVec, {b.abs()})}), {m1});
        return b.call(b.pat(Op::AsScalar), {m2});
    });
    CHECK(info.nodeTypes[vec] == b.arr(b.p.types.vector(ScalarKind::Float, 4), exactDiv(N, 4)));
    CHECK(b.show(info.nodeTypes[vec]) == "ArrayType(Float4, N/^4)");
    CHECK(info.resultType == b.arr(b.f32, N));
}

TEST_CASE("Pad then Slide for a 3-point stencil", "[lift]") {
    Builder b;
    NodeId padded = kNoNode;
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}}, [&](auto ps) {
        padded = b.call(b.pat(Op::Pad, {}, {1, 1}, int(PadBoundary::Clamp)), {ps[0]});
        NodeId windows = b.call(b.pat(Op::Slide, {}, {3, 1}), {padded});
        NodeId first = b.fun({"w"}, [&](auto w) { return b.call(b.pat(Op::At, {}, {0}), {w[0]}); });
        return b.call(b.pat(Op::Map, {first}), {windows});
    });
    CHECK(info.nodeTypes[padded] == b.arr(b.f32, N + 2));
    CHECK(info.resultType == b.arr(b.f32, N));

    Builder c; // constant length: (9 - 3 + 2) / 2 windows
    TypeInfo ci = c.top({{"xs", c.arr(c.f32, 9)}}, [&](auto ps) {
        return c.call(c.pat(Op::Slide, {}, {3, 2}), {ps[0]});
    });
    CHECK(ci.resultType == c.arr(c.arr(c.f32, 3), 4));
}

TEST_CASE("Iterate halves the length k times", "[lift]") {
    for (Size len : {Size(64), N}) {
        Builder b;
        TypeInfo info = b.top({{"xs", b.arr(b.f32, len)}}, [&](auto ps) {
            NodeId halve = b.fun({"v"}, [&](auto v) {
                NodeId pairs = b.call(b.pat(Op::Split, {}, {2}), {v[0]});
                NodeId red = b.fun({"pair"}, [&](auto pr) { return b.sum(pr[0]); });
                return b.call(b.pat(Op::Join), {b.call(b.pat(Op::Map, {red}), {pairs})});
            });
            return b.call(b.pat(Op::Iterate, {halve}, {3}), {ps[0]});
        });
        CHECK(info.resultType == b.arr(b.f32, exactDiv(len, 8)));
    }
}

TEST_CASE("Iterate with a length-preserving function stops at the fixed point", "[lift]") {
    Builder b;
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}}, [&](auto ps) {
        return b.call(b.pat(Op::Iterate, {b.pat(Op::Map, {b.abs()})}, {1000000}), {ps[0]});
    });
    CHECK(info.resultType == b.arr(b.f32, N));
}

TEST_CASE("user function with a tuple parameter, memory placement, Gather", "[lift]") {
    Builder b;
    TypeId pair = b.tup({b.f32, b.i32});
    TypeInfo info = b.top({{"xs", b.arr(b.f32, N)}, {"is", b.arr(b.i32, N)}}, [&](auto ps) {
        NodeId scale = b.userFun("scale", {pair}, b.f32);
        NodeId zipped = b.call(b.pat(Op::Zip, {}, {}, 2), ps);
        NodeId mapped = b.call(b.pat(Op::ToGlobal, {b.pat(Op::MapSeq, {scale})}), {zipped});
        NodeId rev = b.pat(Op::Reverse);
        return b.call(b.pat(Op::Gather, {rev}), {mapped});
    });
    CHECK(info.resultType == b.arr(b.f32, N));
}

TEST_CASE("Unzip, Tuple, Filter, TransposeW, Id", "[lift]") {
    Builder b;
    TypeInfo info =
        b.top({{"xs", b.arr(b.f32, N)}, {"ids", b.arr(b.i32, M)}, {"m", b.arr(b.arr(b.f32, N), M)}},
              [&](auto ps) {
                  NodeId z = b.call(b.pat(Op::Zip, {}, {}, 2), {ps[0], ps[0]});
                  NodeId u = b.call(b.pat(Op::Unzip), {z});
                  NodeId first = b.call(b.pat(Op::Get, {}, {}, 0), {u});
                  NodeId f = b.call(b.pat(Op::Filter), {first, ps[1]});
                  NodeId t = b.call(b.pat(Op::Id), {b.call(b.pat(Op::TransposeW), {ps[2]})});
                  return b.call(b.pat(Op::Tuple, {}, {}, 2), {f, t});
              });
    CHECK(b.show(info.resultType) ==
          "TupleType(ArrayType(Float, M), ArrayType(ArrayType(Float, M), N))");
}

// ---------------------------------------------------------------- errors

TEST_CASE("error: Zip of arrays of different lengths", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}, {"y", b.arr(b.f32, M)}}, [&](auto ps) {
            return b.call(b.pat(Op::Zip, {}, {}, 2, {3, 7}), ps);
        });
    });
    CHECK(e.message() ==
          "argument 2 of Zip: expected ArrayType(Float, N), found ArrayType(Float, M)");
    CHECK(e.loc() == SourceLoc{3, 7});
}

TEST_CASE("error: Split factor does not divide a constant length", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, 8)}}, [&](auto ps) {
            return b.call(b.pat(Op::Split, {}, {3}, 0, {2, 5}), ps);
        });
    });
    CHECK(e.message() == "Split(3) on an array of length 8: 3 does not divide 8");
    CHECK(e.loc() == SourceLoc{2, 5});
}

TEST_CASE("error: Map applied to a scalar, location falls back to the application", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.f32}}, [&](auto ps) {
            return b.call(b.pat(Op::Map, {b.abs()}), ps, {4, 1});
        });
    });
    CHECK(e.message() == "argument 1 of Map: expected an array, found Float");
    CHECK(e.loc() == SourceLoc{4, 1});
}

TEST_CASE("error: user function argument type and count", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.i32, N)}},
              [&](auto ps) { return b.call(b.pat(Op::Map, {b.abs()}), ps); });
    });
    CHECK(e.message() == "argument 1 of user function abs: expected Float, found Int");

    Builder c;
    Error e2 = expectError([&] {
        c.top({{"x", c.f32}}, [&](auto ps) { return c.call(c.add(), ps); });
    });
    CHECK(e2.message() == "user function add takes 2 arguments, but is applied to 1");
}

TEST_CASE("error: Reduce function returns the wrong type", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}}, [&](auto ps) {
            NodeId toInt = b.userFun("toInt", {b.f32, b.f32}, b.i32);
            return b.call(b.pat(Op::Reduce, {toInt}), {b.zero(), ps[0]});
        });
    });
    CHECK(e.message() == "the function user function toInt of Reduce must return Float (the type "
                         "of the initial value), found Int");
}

TEST_CASE("error: applying a value that is not a function", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.f32}}, [&](auto ps) { return b.call(ps[0], {ps[0]}, {9, 9}); });
    });
    CHECK(e.message() == "cannot apply a value of type Float: it is not a function");
    CHECK(e.loc() == SourceLoc{9, 9});
}

TEST_CASE("error: Get field out of range, lambda arity", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}}, [&](auto ps) {
            NodeId z = b.call(b.pat(Op::Zip, {}, {}, 2), {ps[0], ps[0]});
            return b.call(b.pat(Op::Map, {b.pat(Op::Get, {}, {}, 2)}), {z});
        });
    });
    CHECK(e.message() == "Get(2) on TupleType(Float, Float): the tuple has only 2 fields");

    Builder c;
    Error e2 = expectError([&] {
        c.top({{"x", c.f32}}, [&](auto ps) {
            NodeId two = c.fun({"a", "b"}, [&](auto as) { return as[0]; }, {5, 2});
            return c.call(two, ps);
        });
    });
    CHECK(e2.message() == "fun((a, b) => ...) takes 2 arguments, but is applied to 1");
    CHECK(e2.loc() == SourceLoc{5, 2});
}

TEST_CASE("error: asVector width, Transpose of a flat array, Slide window", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}},
              [&](auto ps) { return b.call(b.pat(Op::AsVector, {}, {5}), ps); });
    });
    CHECK(e.message() == "asVector(5): vector width must be 2, 3, 4, 8 or 16, found 5");

    Builder c;
    Error e2 = expectError([&] {
        c.top({{"x", c.arr(c.f32, N)}}, [&](auto ps) { return c.call(c.pat(Op::Transpose), ps); });
    });
    CHECK(e2.message() ==
          "argument 1 of Transpose: expected an array of arrays, found ArrayType(Float, N)");

    Builder d;
    Error e3 = expectError([&] {
        d.top({{"x", d.arr(d.f32, 2)}}, [&](auto ps) {
            return d.call(d.pat(Op::Slide, {}, {3, 1}), ps);
        });
    });
    CHECK(e3.message() ==
          "Slide(3, 1) on an array of length 2: the window is longer than the array");
}

TEST_CASE("error: Iterate with a function that does not scale the length", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}}, [&](auto ps) {
            NodeId grow = b.pat(Op::Pad, {}, {1, 0});
            return b.call(b.pat(Op::Iterate, {grow}, {2}), ps);
        });
    });
    CHECK(e.message() == "the function of Iterate(2) must map ArrayType(Float, N) to an array of "
                         "Float whose length is scaled by a constant factor, found "
                         "ArrayType(Float, N+1)");
}

TEST_CASE("error: ill-formed IR is reported, not a crash", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}}, [&](auto ps) {
            return b.call(b.pat(Op::Map), ps, {1, 2});
        });
    });
    CHECK(e.message() == "Map needs exactly one function argument, found 0");

    Builder c;
    Error e2 = expectError([&] {
        c.top({{"x", c.f32}}, [&](auto) { return c.pat(Op::Apply, {}, {}, 0, {6, 3}); });
    });
    CHECK(e2.message() == "a function application without a function");
    CHECK(e2.loc() == SourceLoc{6, 3});

    Builder d;
    Error e3 = expectError([&] {
        d.top({{"x", d.f32}}, [&](auto ps) { return d.call(d.pat(Op::Lambda), ps); });
    });
    CHECK(e3.message() == "ill-formed function: it has no body");

    Builder g;
    Error e4 = expectError([&] {
        g.top({{"x", g.arr(g.f32, N)}},
              [&](auto ps) { return g.call(g.pat(Op::Split, {g.abs()}, {2}), ps); });
    });
    CHECK(e4.message() == "Split(2) takes no function argument, found 1");

    Builder h;
    Error e5 = expectError([&] {
        h.top({{"x", h.arr(h.f32, N)}}, [&](auto ps) { return h.call(h.pat(Op::Reverse), ps); });
    });
    CHECK(e5.message() == "reverse is an index function: it can only be used inside Gather or "
                          "Scatter");
}

TEST_CASE("error: a parameter used outside its lambda", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.arr(b.f32, N)}}, [&](auto ps) {
            NodeId inner = kNoNode;
            NodeId f = b.fun({"y"}, [&](auto ys) {
                inner = ys[0];
                return ys[0];
            });
            NodeId mapped = b.call(b.pat(Op::Map, {f}), ps);
            return b.call(b.pat(Op::Tuple, {}, {}, 2), {mapped, inner});
        });
    });
    CHECK(e.message() == "parameter y is used outside the function that binds it");
}

TEST_CASE("error: nesting depth limit", "[lift]") {
    Builder b;
    Error e = expectError([&] {
        b.top({{"x", b.f32}}, [&](auto ps) {
            NodeId v = ps[0];
            for (int i = 0; i < 5000; ++i) {
                v = b.call(b.pat(Op::Id), {v});
            }
            return v;
        });
    });
    CHECK_THAT(e.message(), Catch::Contains("nested too deeply"));
}
