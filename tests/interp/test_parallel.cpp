// Map on several threads: the same numbers and the same errors as element after element.
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "loaded.hpp"
#include "test_common.hpp"

#include <bit>
#include <catch2/catch.hpp>

using egopt::testenv::kExamples;

using egopt::interp::InterpreterOptions;
using egopt::interp::Value;

namespace {

InterpreterOptions sequential() {
    InterpreterOptions o;
    o.parallel = false;
    return o;
}

// Every Map with two or more elements runs on several threads.
InterpreterOptions everywhere() {
    InterpreterOptions o;
    o.parallelMinElements = 2;
    o.parallelMinScalars = 2;
    return o;
}

using egopt::test::Loaded;

Loaded parse(const std::string& src) {
    return egopt::test::loadSource(src);
}

std::vector<double> scalarsOf(Loaded& l, const egopt::arith::Bindings& sizes,
                              const std::vector<Value>& inputs, InterpreterOptions o) {
    egopt::interp::Interpreter interp(l.program, l.info, sizes, o);
    std::vector<double> out;
    egopt::interp::flattenScalars(interp.run(inputs), out);
    return out;
}

// The same doubles bit for bit (NaNs included).
bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::bit_cast<uint64_t>(a[i]) != std::bit_cast<uint64_t>(b[i])) {
            return false;
        }
    }
    return true;
}

// The error message of running l on the inputs, or "" when it succeeds.
std::string errorOf(Loaded& l, const egopt::arith::Bindings& sizes,
                    const std::vector<Value>& inputs, InterpreterOptions o) {
    try {
        scalarsOf(l, sizes, inputs, o);
    } catch (const egopt::Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("a Map on several threads gives the sequential result bit for bit", "[interp]") {
    struct Case {
        std::string example;
        egopt::arith::Bindings sizes;
    };
    const Case cases[] = {
        {"dot", {{"N", 5000}}},
        {"asum", {{"N", 5000}}},
        {"saxpy", {{"N", 3001}}},
        {"gemv", {{"M", 48}, {"N", 40}}},
        {"blackscholes", {{"N", 2000}}},
        {"nbody", {{"N", 48}}},
        {"mm", {{"M", 16}, {"N", 24}, {"K", 8}}},
    };
    for (const Case& c : cases) {
        INFO(c.example);
        Loaded l = egopt::test::loadExample(c.example);
        std::vector<Value> inputs = egopt::interp::randomInputs(l.program, c.sizes, 3);
        std::vector<double> want = scalarsOf(l, c.sizes, inputs, sequential());
        REQUIRE_FALSE(want.empty());
        CHECK(sameBits(scalarsOf(l, c.sizes, inputs, everywhere()), want));
        CHECK(sameBits(scalarsOf(l, c.sizes, inputs, InterpreterOptions{}), want));
    }
}

TEST_CASE("an error in a Map on several threads is the first failing element's", "[interp]") {
    // (int)(x * 1e10f) is out of range for |x| > 0.22; the message names the value.
    Loaded l = parse("val N = SizeVar(\"N\")\n"
                     "val big = UserFun(\"big\", \"x\", \"{ return (int)(x * 1e10f); }\", Float, "
                     "Int)\n"
                     "fun(ArrayType(Float, N), xs => Map(big) $ xs)");
    egopt::arith::Bindings sizes{{"N", 4096}};
    std::vector<Value> xs(4096, Value::ofFloat(0.0f));
    xs[1500] = Value::ofFloat(0.75f);
    for (size_t i = 3000; i < xs.size(); ++i) {
        xs[i] = Value::ofFloat(0.25f + static_cast<float>(i) * 1e-4f);
    }
    std::vector<Value> inputs{Value::array(xs)};
    std::string first = errorOf(l, sizes, inputs, sequential());
    CHECK_THAT(first, Catch::Contains("converting 7500000256"));
    for (int attempt = 0; attempt < 5; ++attempt) {
        CHECK(errorOf(l, sizes, inputs, everywhere()) == first);
    }
    xs[1500] = Value::ofFloat(0.0f);
    inputs = {Value::array(xs)};
    CHECK(errorOf(l, sizes, inputs, everywhere()) == errorOf(l, sizes, inputs, sequential()));
    CHECK(errorOf(l, sizes, inputs, sequential()) != first);
}

TEST_CASE("functions nested to the depth limit run inside a Map on worker threads", "[interp]") {
    // Id(Id(...Id(x))) nested as deep as the type checker allows: the evaluation on a TBB
    // worker's stack (smaller than the main thread's) reaches the interpreter's own depth limit
    // neither by a crash nor by an error.
    using namespace egopt::lift;
    Loaded l;
    Program& p = l.program;
    NodeId xs = p.addParam("xs", p.types.array(p.types.floatType(), egopt::arith::Size::var("N")));
    NodeId x = p.addParam("x");
    NodeId body = x;
    for (int i = 0; i < 1990; ++i) {
        NodeId args[] = {body};
        body = p.apply(p.add(Op::Id, 0, {}, {}), args);
    }
    NodeId params[] = {x};
    NodeId map = p.add(Op::Map, 0, std::vector<NodeId>{p.lambda(params, body)}, {});
    NodeId top[] = {xs};
    NodeId mapArgs[] = {xs};
    p.root = p.lambda(top, p.apply(map, mapArgs));
    l.info = typecheck(p);
    egopt::arith::Bindings sizes{{"N", 64}};
    std::vector<Value> inputs = egopt::interp::randomInputs(p, sizes, 5);
    std::vector<double> in;
    egopt::interp::flattenScalars(inputs[0], in);
    CHECK(sameBits(scalarsOf(l, sizes, inputs, everywhere()), in));
}
