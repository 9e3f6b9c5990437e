// The interpreter on Lift's sequential patterns with data-dependent control flow: ScanSeq's
// prefixes, ReduceWhileSeq stopping (or not), InsertionSortSeq's order and stability.
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "loaded.hpp"

#include <catch2/catch.hpp>

using egopt::interp::Value;

namespace {

const std::string kSortDecls = R"(val N = SizeVar("N")
val M = SizeVar("M")
val below = UserFun("below", Array("acc", "x"), "{ return acc + x < 2.0f; }", Seq(Float, Float), Int)
val less = UserFun("less", Array("a", "b"), "{ return a < b; }", Seq(Float, Float), Bool)
val lessI = UserFun("lessI", Array("a", "b"), "{ return a < b; }", Seq(Int, Int), Int)
val lessEq = UserFun("lessEq", Array("a", "b"), "{ return a._0 <= b._0; }",
  Seq(TupleType(Int, Int), TupleType(Int, Int)), Int)
val keyLess = UserFun("keyLess", Array("a", "b"), "{ return a._0 < b._0; }",
  Seq(TupleType(Int, Int), TupleType(Int, Int)), Int)
val affine = UserFun("affine", Array("acc", "x"), "{ Tuple t = {acc._0 * x + acc._1, acc._1 + 1.0f}; return t; }",
  Seq(TupleType(Float, Float), Float), TupleType(Float, Float))
)";

// The program `fun(params, xs => body)` on the inputs given as JSON; its result flattened.
std::vector<double> runSeq(const std::string& params, const std::string& body,
                           const egopt::arith::Bindings& sizes, const std::string& inputs) {
    egopt::test::Loaded l =
        egopt::test::loadSource(kSortDecls + "fun(" + params + ", xs => " + body + ")");
    std::vector<Value> args = egopt::interp::inputsFromJson(l.program, sizes, inputs, 1);
    egopt::interp::Interpreter interp(l.program, l.info, sizes);
    std::vector<double> out;
    egopt::interp::flattenScalars(interp.run(args), out);
    return out;
}

using Seq = std::vector<double>;

} // namespace

TEST_CASE("ScanSeq: inclusive prefixes, per row inside a Map", "[interp]") {
    CHECK(runSeq("ArrayType(Float, N)", "ScanSeq(add, 1.0f) $ xs", {{"N", 4}},
                 R"({"xs": [1, 2, 3, 4]})") == Seq{2, 4, 7, 11});
    CHECK(runSeq("ArrayType(ArrayType(Float, M), N)",
                 "Map(fun(row => ScanSeq(add, 0.0f) $ row)) $ xs", {{"N", 2}, {"M", 3}},
                 R"({"xs": [[1, 2, 3], [-1, 0.5, 4]]})") == Seq{1, 3, 6, -1, -0.5, 3.5});
}

TEST_CASE("ScanSeq of tuples with a non-commutative operator", "[interp]") {
    // acc = (acc0 * x + acc1, acc1 + 1): the order of the elements matters.
    CHECK(runSeq("ArrayType(Float, N)",
                 "ScanSeq(affine, Value(\"{ 0.0f, 1.0f }\", TupleType(Float, Float))) $ xs",
                 {{"N", 3}}, R"({"xs": [2, 3, 4]})") == Seq{1, 2, 5, 3, 23, 4});
}

TEST_CASE("ReduceWhileSeq stops before the first element its predicate rejects", "[interp]") {
    // 0.5 + 1 < 2, 1.5 + 1 is not: the fold ends after the first element.
    CHECK(runSeq("ArrayType(Float, N)", "ReduceWhileSeq(add, 0.5f, below) $ xs", {{"N", 4}},
                 R"({"xs": [1, 1, -5, -5]})") == Seq{1.5});
    // Never stops: the whole sum.
    CHECK(runSeq("ArrayType(Float, N)", "ReduceWhileSeq(add, 0.0f, below) $ xs", {{"N", 4}},
                 R"({"xs": [0.25, -0.5, 0.125, 0.5]})") == Seq{0.375});
    // Stops at once: the initial value.
    CHECK(runSeq("ArrayType(Float, N)", "ReduceWhileSeq(add, 3.0f, below) $ xs", {{"N", 2}},
                 R"({"xs": [4, -4]})") == Seq{3});
    // Per row, the printed form with a lambda predicate.
    CHECK(runSeq("ArrayType(ArrayType(Float, M), N)",
                 "Map(fun(r => ReduceWhileSeq(add, fun((a, x) => below(a, x)))(0.0f, r))) $ xs",
                 {{"N", 2}, {"M", 3}}, R"({"xs": [[1, 0.5, 0.75], [3, 1, 1]]})") == Seq{1.5, 0});
}

TEST_CASE("InsertionSortSeq sorts by its comparison, stably", "[interp]") {
    CHECK(runSeq("ArrayType(Float, N)", "InsertionSortSeq(less) $ xs", {{"N", 6}},
                 R"({"xs": [3, -1, 2.5, -7, 0, 2.5]})") == Seq{-7, -1, 0, 2.5, 2.5, 3});
    // Descending, per row of Ints: compare(a, b) true when a goes before b.
    CHECK(runSeq("ArrayType(ArrayType(Int, M), N)",
                 "Map(InsertionSortSeq(fun((a, b) => lessI(b, a)))) $ xs", {{"N", 2}, {"M", 4}},
                 R"({"xs": [[1, 4, 2, 3], [0, -2, 9, 9]]})") == Seq{4, 3, 2, 1, 9, 9, 0, -2});
    // A strict comparison keeps equal keys in their order; a non-strict one (<=) moves each
    // element before the equal ones already placed, as Lift's insertion sort does.
    const std::string pairs = R"({"xs": [[2, 0], [1, 1], [2, 2], [1, 3]]})";
    CHECK(runSeq("ArrayType(TupleType(Int, Int), N)", "InsertionSortSeq(keyLess) $ xs", {{"N", 4}},
                 pairs) == Seq{1, 1, 1, 3, 2, 0, 2, 2});
    CHECK(runSeq("ArrayType(TupleType(Int, Int), N)", "InsertionSortSeq(lessEq) $ xs", {{"N", 4}},
                 pairs) == Seq{1, 3, 1, 1, 2, 2, 2, 0});
}
