// Malformed programs: each error names the line and column and says what was expected.
#include "lift_test_util.hpp"

#include <catch2/catch.hpp>

using egopt::test::errorOf;

namespace {

struct Case {
    const char* source;
    const char* where;   // line:col
    const char* message; // a part of the message
};

const Case kCases[] = {
    // An undeclared name where a size is expected is an implicit size variable (Lift's printed
    // programs use them); elsewhere it is an error.
    {"fun(ArrayType(Float, N), xs => Map(f) $ xs)", "1:36", "unknown name 'f'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ xs", "2:45",
     "expected ',' or ')' in the argument list, found end of file"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Mapp(abs) $ xs)", "2:32",
     "unknown name 'Mapp'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ ys)", "2:43",
     "unknown name 'ys'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ xs) )", "2:47",
     "expected end of file after the program expression"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Split(2.5f) $ xs)", "2:38",
     "expected a size"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ \"str)", "2:43",
     "unterminated string"},
    // Head and Tail take no arguments.
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Tail(1) $ xs)", "2:36",
     "expected 0 arguments for Tail(), found 1"},
    {"val N = SizeVar(\"N\")\n/* never closed\nfun(ArrayType(Float, N), xs => xs)", "2:1",
     "unterminated comment: expected */"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) # xs)", "2:41",
     "unknown operator '#'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Flot, N), xs => Map(abs) $ xs)", "2:15",
     "unknown name 'Flot'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(add) $ xs)", "2:36",
     "add takes 2 arguments, but is applied to 1"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), ArrayType(Float, SizeVar(\"M\")), (a, b) => "
     "Zip(a, b))",
     "2:71", "argument 2 of Zip: expected ArrayType(Float, N), found ArrayType(Float, M)"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => MapGlb(3)(id) $ xs)", "2:39",
     "expected a dimension 0, 1 or 2 for MapGlb"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => MapGlb(0) $ xs)", "2:38",
     "without its function argument"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Pad(1, 1, Pad.Boundary.Clip) $ xs)",
     "2:55", "expected Pad.Boundary.Clamp"},
    {"val N = SizeVar(\"N\")\nval f = UserFun(\"f\", Array(\"a\"), \"{ return a; }\", Seq(Float, "
     "Float), Float)\nfun(ArrayType(Float, N), xs => Map(f) $ xs)",
     "2:54", "parameter types (one per parameter name), found 2"},
    {"val N = SizeVar(\"N\")\nfun(xs => Map(abs) $ xs)", "2:5",
     "expected a declared type for the program's parameter 'xs'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ xs.at(0))", "2:35",
     "argument 1 of Map: expected an array, found Float"},
    {"val f = UserFun(\"f\", \"x\", \"{ return x; }\", Float, Float).setScalaFun(xs => xs.head",
     "1:69", "expected ')' closing setScalaFun's argument, found end of file"},
    // An integer where data is expected is an Int value (Lift's IntToValue); a size variable is
    // not data, and an Int value is not a Float.
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Int, N), xs => Map(fun(x => addI(x, N))) $ xs)", "2:51",
     "expected a data expression as a function argument, found a size"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Reduce(add, 0) $ xs)", "2:39",
     "argument 1 of user function add: expected Float, found Int"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Reduce(add) $ xs)", "2:38",
     "Reduce takes 2 arguments, but is applied to 1"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) o xs)", "2:43",
     "expected a function as an operand of 'o'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Split(N / 0) $ xs)", "2:42",
     "division by zero in a size expression"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Get(xs, 0))", "2:35",
     "expected a tuple, found ArrayType(Float, N)"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => xs._0)", "2:35",
     "expected a tuple, found ArrayType(Float, N)"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(fun((a, b) => a)) $ xs)", "2:40",
     "takes 2 arguments, but is applied to 1"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => VectorType(Float, 5))", "2:42",
     "expected VectorType(scalar type, 2|3|4|8|16)"},
    {"val = 3", "1:5", "expected a name after val/def, found '='"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(fun(x => VectorizeUserFun(4, "
     "mult)(x, x))) $ xs)",
     "2:61", "VectorizeUserFun(4) needs at least one vector argument"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Split(4)(xs, xs))", "2:37",
     "Split(4) takes 1 argument, but is applied to 2"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ xs)\nfun(ArrayType(Float, "
     "N), xs => xs)",
     "3:1", "expected end of file after the program expression, found 'fun'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => asVector(3) o Split(5) $ xs)", "2:40",
     "argument 1 of asVector(3): expected an array of scalars"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => \"abc\\q\")", "2:38",
     "unknown escape sequence"},
    // Scala outside the Lift language: named where it stands.
    {"val N = SizeVar(\"N\")\nval k = if (true) 1 else 2\nfun(ArrayType(Float, N), xs => xs)",
     "2:9", "Scala's 'if' is not part of the Lift language"},
    {"val N = SizeVar(\"N\")\nval k = N match { case _ => 2 }", "2:11", "Scala's 'match'"},
    {"object Program {\n}", "1:1", "Scala's 'object'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => { var y = xs; y })", "2:34",
     "Scala's 'var'"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(f, for))", "2:39",
     "Scala's 'for'"},
    // A padding value must match the innermost element type; a generator takes Int indices.
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Int, N), xs => PadConstant(1, 1, 0.0f) $ xs)", "2:41",
     "a padding value of type Float for elements of type Int"},
    {"val N = SizeVar(\"N\")\nval g = UserFun(\"g\", \"i\", \"{ return 1.0f; }\", Int, Float)\n"
     "fun(ArrayType(Float, N), xs => ArrayFromUserFunGenerator(g, ArrayType(Float, N)))",
     "3:57", "the generator g must take 2 Int parameters"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ArrayFromUserFunGenerator(id, Float))",
     "2:62", "expected an array type of 1 dimensions"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => FilterSeq(id) $ xs)", "2:32",
     "Lift's FilterSeq (a filter whose result length depends on the data) is not supported by "
     "egopt"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), Float, (xs, y) => LSearch(fun(x => "
     "1), y) $ xs)",
     "2:65", "expected a scalar literal as the initial value of LSearch"},
    // CheckedArrayAccess's default is a literal of the element type; its index an Int.
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => CheckedArrayAccess(0, xs) $ xs)",
     "2:54", "expected a constant padding value"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Int, N), xs => CheckedArrayAccess(1, 0.0f) $ xs)",
     "2:48", "a padding value of type Float for elements of type Int"},
    {"val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => CheckedArrayAccess(1) $ xs)", "2:50",
     "expected 2 arguments for CheckedArrayAccess(index, default), found 1"},
};

} // namespace

TEST_CASE("malformed programs give located errors that say what was expected", "[lift]") {
    for (const Case& c : kCases) {
        INFO(c.source);
        std::string err = errorOf(c.source);
        REQUIRE_FALSE(err.empty());
        CHECK(err.substr(0, err.find(": ")) == c.where);
        CHECK_THAT(err, Catch::Contains(c.message));
    }
}

TEST_CASE("deep nesting is an error, not a stack overflow", "[lift]") {
    std::string deep = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ";
    for (int i = 0; i < 5000; ++i) {
        deep += "(";
    }
    CHECK_THAT(errorOf(deep + "xs"), Catch::Contains("nested too deeply"));
    std::string chain = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ";
    for (int i = 0; i < 5000; ++i) {
        chain += "Map(id) o ";
    }
    CHECK_THAT(errorOf(chain + "Map(id) $ xs)"), Catch::Contains("nested too deeply"));
}

TEST_CASE("exponential helper inlining is stopped", "[lift]") {
    std::string src = "val N = SizeVar(\"N\")\nval f0 = Map(id)\n";
    for (int i = 1; i < 40; ++i) {
        src += "val f" + std::to_string(i) + " = f" + std::to_string(i - 1) + " o f" +
               std::to_string(i - 1) + "\n";
    }
    src += "fun(ArrayType(Float, N), xs => f39 $ xs)";
    CHECK_THAT(errorOf(src), Catch::Contains("program too large"));
}

TEST_CASE("files that cannot be read are bad input", "[lift]") {
    CHECK_THROWS_AS(egopt::lift::parseFile("/nonexistent/program.lift"), egopt::Error);
    CHECK_THROWS_WITH(egopt::lift::parseFile("/tmp"), Catch::Contains("is a directory"));
}
