// The interpreter's inputs and faults: JSON inputs, missing sizes, sizes that do not divide.
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "loaded.hpp"

#include <catch2/catch.hpp>

using egopt::interp::Value;

namespace {

using egopt::test::Loaded;

const std::string kSplit = "val N = SizeVar(\"N\")\n"
                           "fun(ArrayType(Float, N), xs => Join() o Map(Reduce(add, 0.0f)) o "
                           "Split(4) $ xs)";

} // namespace

TEST_CASE("inputs from JSON are checked against the declared types", "[interp]") {
    Loaded l = egopt::test::loadSource(kSplit);
    egopt::arith::Bindings sizes{{"N", 8}};
    auto in = egopt::interp::inputsFromJson(l.program, sizes, R"({"xs": [1,2,3,4,5,6,7,8]})", 1);
    egopt::interp::Interpreter interp(l.program, l.info, sizes);
    CHECK(interp.run(in).toJson() == "[10,26]");
    CHECK_THROWS_WITH(
        egopt::interp::inputsFromJson(l.program, sizes, R"({"xs": [1,2]})", 1),
        Catch::Contains("input xs: expected a value of type ArrayType(Float, N), found [1,2]"));
    CHECK_THROWS_WITH(egopt::interp::inputsFromJson(l.program, sizes, R"({"ys": []})", 1),
                      Catch::Contains("'ys', which is not a parameter"));
    CHECK_THROWS_WITH(egopt::interp::inputsFromJson(l.program, sizes, "{", 1),
                      Catch::Contains("malformed inputs JSON"));
}

TEST_CASE("random inputs are reproducible from the seed", "[interp]") {
    Loaded l = egopt::test::loadSource(kSplit);
    egopt::arith::Bindings sizes{{"N", 16}};
    auto a = egopt::interp::randomInputs(l.program, sizes, 5);
    auto b = egopt::interp::randomInputs(l.program, sizes, 5);
    auto c = egopt::interp::randomInputs(l.program, sizes, 6);
    CHECK(a[0].toJson() == b[0].toJson());
    CHECK(a[0].toJson() != c[0].toJson());
    for (const Value& v : a[0].elems()) {
        CHECK(v.asFloat() >= -1.0f);
        CHECK(v.asFloat() < 1.0f);
    }
}

TEST_CASE("faults are reported, never a wrong value", "[interp]") {
    Loaded l = egopt::test::loadSource(kSplit);
    CHECK_THROWS_WITH(egopt::interp::Interpreter(l.program, l.info, {}),
                      Catch::Contains("no value for the size variable N"));
    // Split(4) of a length-6 input: the type says N/^4, the data does not divide.
    egopt::arith::Bindings six{{"N", 6}};
    egopt::interp::Interpreter interp(l.program, l.info, six);
    std::vector<Value> xs(6, Value::ofFloat(1.0f));
    CHECK_THROWS_WITH(interp.run(std::vector{Value::array(xs)}),
                      Catch::Contains("split factor 4 does not divide the length 6"));
    // An index beyond a window is caught by the type checker before anything runs.
    CHECK_THROWS_WITH(
        egopt::test::loadSource("val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => "
                                "Map(fun(w => w.at(2))) o Slide(2, 1) $ xs)"),
        Catch::Contains("index out of bounds"));
}

TEST_CASE("literals broadcast to vectors and tuples", "[interp]") {
    Loaded l =
        egopt::test::loadSource("val N = SizeVar(\"N\")\nfun(ArrayType(Float4, N), xs => "
                                "Reduce(VectorizeUserFun(4, add), Value(\"1.0f\", Float4)) $ xs)");
    egopt::arith::Bindings sizes{{"N", 2}};
    auto in =
        egopt::interp::inputsFromJson(l.program, sizes, R"({"xs": [[1,2,3,4],[10,20,30,40]]})", 1);
    CHECK(egopt::interp::Interpreter(l.program, l.info, sizes).run(in).toJson() ==
          "[[12,23,34,45]]");
}
