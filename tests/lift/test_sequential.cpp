// Lift's sequential patterns with data-dependent control flow, ScanSeq, ReduceWhileSeq and
// InsertionSortSeq: their forms, types, printed forms and type errors (with line and column).
#include "lift_test_util.hpp"

#include <catch2/catch.hpp>

using egopt::test::errorOf;
using egopt::test::signatureOf;

namespace {

const std::string kSeqDecls = R"(val pairAdd = UserFun("pairAdd", Array("acc", "x"),
  "{ Tuple t = {acc._0 + x, acc._1 * x}; return t; }", Seq(TupleType(Float, Float), Float),
  TupleType(Float, Float))
val below = UserFun("below", Array("acc", "x"), "{ return acc + x < 2.0f; }", Seq(Float, Float), Int)
val lessI = UserFun("lessI", Array("a", "b"), "{ return a < b; }", Seq(Int, Int), Bool)
val less = UserFun("less", Array("a", "b"), "{ return a < b; }", Seq(Float, Float), Int)
val N = SizeVar("N"); val M = SizeVar("M")
)";

std::string seqProgram(const std::string& params, const std::string& body) {
    return kSeqDecls + "fun(" + params + ", xs => " + body + ")";
}

// The program's text printed by the front end's printer, with its declarations: it must parse.
std::string reprinted(const std::string& source) {
    egopt::lift::Program p = egopt::lift::parseProgram(source, "test.lift");
    return kSeqDecls + p.show(p.root);
}

} // namespace

TEST_CASE("ScanSeq gives every prefix's fold: [A]n from (A, [T]n)", "[lift]") {
    const std::string vec = "ArrayType(Float, N)";
    CHECK(signatureOf(seqProgram(vec, "ScanSeq(add, 0.0f) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    // Per-row prefix sums; the accumulator a tuple, the operator not commutative.
    CHECK(signatureOf(seqProgram("ArrayType(ArrayType(Float, M), N)",
                                 "Map(fun(row => ScanSeq(add, 0.0f) $ row)) $ xs")) ==
          "(ArrayType(ArrayType(Float, M), N)) -> ArrayType(ArrayType(Float, M), N)");
    CHECK(signatureOf(seqProgram(vec, "ScanSeq(pairAdd, Value(\"{ 0.0f, 1.0f }\", "
                                      "TupleType(Float, Float))) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(TupleType(Float, Float), N)");
    // The printed form without the initial value, applied to (init, xs).
    CHECK(signatureOf(seqProgram(vec, "ScanSeq(fun((a, x) => add(a, x)))(0.0f, xs)")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
}

TEST_CASE("ReduceWhileSeq(f, init, p) reduces to one element", "[lift]") {
    const std::string vec = "ArrayType(Float, N)";
    CHECK(signatureOf(seqProgram(vec, "ReduceWhileSeq(add, 0.0f, below) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, 1)");
    CHECK(signatureOf(seqProgram(vec, "ReduceWhileSeq(add, below)(0.0f, xs)")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, 1)");
    CHECK(signatureOf(seqProgram("ArrayType(ArrayType(Float, M), N)",
                                 "Map(ReduceWhileSeq(fun((a, x) => add(a, x)), 0.0f, "
                                 "fun((a, x) => below(a, x)))) $ xs")) ==
          "(ArrayType(ArrayType(Float, M), N)) -> ArrayType(ArrayType(Float, 1), N)");
}

TEST_CASE("InsertionSortSeq keeps its array's type", "[lift]") {
    CHECK(signatureOf(seqProgram("ArrayType(Float, N)", "InsertionSortSeq(less) $ xs")) ==
          "(ArrayType(Float, N)) -> ArrayType(Float, N)");
    CHECK(signatureOf(seqProgram("ArrayType(ArrayType(Int, M), N)",
                                 "Map(InsertionSortSeq(fun((a, b) => lessI(b, a)))) $ xs")) ==
          "(ArrayType(ArrayType(Int, M), N)) -> ArrayType(ArrayType(Int, M), N)");
}

TEST_CASE("the sequential patterns print in forms that parse back", "[lift]") {
    for (const char* body :
         {"ScanSeq(add, 0.0f) $ xs", "ReduceWhileSeq(add, 0.0f, below) $ xs",
          "InsertionSortSeq(less) $ xs", "Map(fun(r => ScanSeq(add, 0.0f) $ r)) o Split(2) $ xs",
          "ReduceWhileSeq(add, below)(0.0f, xs)"}) {
        INFO(body);
        std::string source = seqProgram("ArrayType(Float, N)", body);
        std::string printed = reprinted(source);
        INFO(printed);
        CHECK(signatureOf(printed) == signatureOf(source));
    }
}

TEST_CASE("the sequential patterns' type errors name the pattern and its position", "[lift]") {
    struct Case {
        std::string body;
        const char* where;
        const char* message;
    };
    // The program is on line 8; a pattern's errors point at its argument list.
    const Case cases[] = {
        {"ScanSeq(less, 0.0f) $ xs", "8:39",
         "the function user function less of ScanSeq must return Float (the type of the initial "
         "value), found Int"},
        {"ReduceWhileSeq(add, 0.0f, add) $ xs", "8:46",
         "the predicate user function add of ReduceWhileSeq must return Int or Bool, found Float"},
        {"InsertionSortSeq(add) $ xs", "8:48",
         "the comparison user function add of InsertionSortSeq must return Int or Bool, found "
         "Float"},
        {"InsertionSortSeq(less) $ xs.at(0)", "8:48",
         "argument 1 of InsertionSortSeq: expected an array, found Float"},
        // A user function applied to the wrong types: at its declaration (line 5), as elsewhere.
        {"InsertionSortSeq(lessI) $ xs", "5:20",
         "argument 1 of user function lessI: expected Int, found Float"},
        {"ReduceWhileSeq(add, 0.0f) $ xs", "8:52",
         "expected a predicate function, found a value: ReduceWhileSeq(f, init, p)"},
        {"ScanSeq(add, 0.0f, 1.0f) $ xs", "8:39", "ScanSeq(f, init)"},
    };
    for (const Case& c : cases) {
        std::string source = seqProgram("ArrayType(Float, N)", c.body);
        INFO(c.body);
        std::string err = errorOf(source);
        REQUIRE_FALSE(err.empty());
        CHECK(err.substr(0, err.find(": ")) == c.where);
        CHECK_THAT(err, Catch::Contains(c.message));
    }
}
