// The time-only entry point: codegen::runTimed runs a kernel sequence on random or shared inputs
// without the interpreter, and drains a kernel that timed out before rethrowing.
#include "codegen_support.hpp"
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/runtime/device.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

using namespace egopt;
using namespace egopt::codegen;
using namespace egopt::codegen::test;

namespace {

// The interpreter's output on the inputs runTimed makes from `seed`, flattened.
std::vector<double> reference(Generated& g, uint64_t seed) {
    std::vector<interp::Value> inputs = interp::randomInputs(g.program, g.sizes, seed);
    interp::Value out = interp::Interpreter(g.program, g.info, g.sizes).run(inputs);
    std::vector<double> flat;
    for (const interp::Value& v : out.elems()) {
        flat.push_back(v.toDouble());
    }
    return flat;
}

} // namespace

TEST_CASE("runTimed times a kernel sequence and returns its output", "[codegen]") {
    Generated g = generateFile(testProgram("mk_asum_final"), {{"N", 1024}});
    REQUIRE(g.code.kernels.size() == 2);
    RunOptions o;
    o.seed = 7;
    o.runs = 3;
    o.keepOutput = true;
    TimedResult r = runTimed(session(), g.program, g.sizes, g.code, o);
    CHECK(r.medianNs > 0);
    CHECK(r.kernelMedianNs.size() == 2);
    CHECK(r.bytes == (1024 + 1) * sizeof(float));
    std::vector<double> want = reference(g, 7);
    REQUIRE(r.output.size() == want.size());
    CHECK(std::fabs(r.output[0] - want[0]) <= 1e-3 * std::max(1.0, std::fabs(want[0])));

    SECTION("without keepOutput nothing is downloaded") {
        o.keepOutput = false;
        o.slowRunNs = 1; // every run is "slow": the warm-up alone is kept
        TimedResult quick = runTimed(session(), g.program, g.sizes, g.code, o);
        CHECK(quick.output.empty());
        CHECK(quick.medianNs > 0);
    }
}

TEST_CASE("runTimed warms the device up for RunOptions::warmupNs before timing", "[codegen]") {
    Generated g = generateFile(testProgram("mk_asum_final"), {{"N", 1024}});
    RunOptions o;
    o.runs = 1;
    o.warmupNs = 0;
    CHECK(runTimed(session(), g.program, g.sizes, g.code, o).warmupRuns == 1);
    // A sequence of microseconds needs many runs to fill 5 ms, and stops at the cap.
    o.warmupNs = 5'000'000;
    TimedResult r = runTimed(session(), g.program, g.sizes, g.code, o);
    CHECK(r.warmupRuns > 1);
    CHECK(r.warmupRuns <= kMaxWarmupRuns);
    o.warmup = 0; // none asked for: none run
    CHECK(runTimed(session(), g.program, g.sizes, g.code, o).warmupRuns == 0);
}

TEST_CASE("runTimed shares uploaded inputs between runs", "[codegen]") {
    Generated g = generateFile(testProgram("mk_asum_final"), {{"N", 1024}});
    auto values =
        std::make_shared<std::vector<interp::Value>>(interp::randomInputs(g.program, g.sizes, 3));
    DeviceInputs inputs(session(), values);
    RunOptions o;
    o.runs = 1;
    o.keepOutput = true;
    TimedResult a = runTimed(inputs, g.program, g.sizes, g.code, o);
    TimedResult b = runTimed(inputs, g.program, g.sizes, g.code, o);
    CHECK(a.output == b.output);
    // The same values as runTimed's own random inputs from that seed.
    o.seed = 3;
    CHECK(a.output == runTimed(session(), g.program, g.sizes, g.code, o).output);
}

// One work-item applying a dependent multiply-add to 64 values a million times: well over 1 ms.
const char* const kSpin = R"(val N = SizeVar("N")
val spin = UserFun("spin", Array("x"), "{ return x * 0.999999f + 1.0f; }", Seq(Float), Float)
fun(ArrayType(Float, N), xs =>
  Join() o MapGlb(0)(toGlobal(MapSeq(id)) o Iterate(1000000)(toPrivate(MapSeq(spin))) o
    toPrivate(MapSeq(id))) o Split(64) $ xs))";

TEST_CASE("a kernel that times out is drained before the error is rethrown", "[codegen]") {
    runtime::Session s(runtime::selectDevice("")); // its own: the time-out abandons it
    Generated g = generateText(kSpin, {{"N", 64}});
    INFO(g.code.source);
    RunOptions o;
    o.timeout = std::chrono::milliseconds(1);
    o.drain = std::chrono::minutes(5);
    CHECK_THROWS_WITH(runTimed(s, g.program, g.sizes, g.code, o),
                      Catch::Contains("did not finish") && Catch::Contains("it ended within"));
    CHECK(s.abandoned());
    CHECK(s.drain(std::chrono::milliseconds(0)));
}

// Scalars, a float array, an int array and an array of tuples: every kind of input layout.
const char* const kMixedInputs = R"(val N = SizeVar("N")
val f = UserFun("f", Array("a", "x", "i", "t"),
  "{ return a * x + (float)i + t._0 * (float)t._1; }",
  Seq(Float, Float, Int, TupleType(Float, Int)), Float)
fun(Float, ArrayType(Float, N), ArrayType(Int, N), ArrayType(TupleType(Float, Int), N),
  (alpha, xs, is, ts) => Join() o MapGlb(0)(MapSeq(fun(p => f(alpha, p._0, p._1, p._2)))) o
    Split(4) $ Zip(xs, is, ts)))";

TEST_CASE("randomHostInputs draws randomInputs' numbers, arrays straight as device bytes",
          "[codegen]") {
    Generated g = generateText(kMixedInputs, {{"N", 64}});
    HostInputs host = randomHostInputs(g.program, g.sizes, 5);
    std::vector<interp::Value> values = interp::randomInputs(g.program, g.sizes, 5);
    REQUIRE(host.values.size() == 4);
    REQUIRE(host.bytes.size() == 4);
    CHECK(host.bytes[0].empty()); // the scalar is a value
    CHECK(host.values[0].toDouble() == values[0].toDouble());
    for (size_t p = 1; p < 4; ++p) {
        INFO("parameter " << p);
        std::vector<double> flat;
        interp::flattenScalars(values[p], flat);
        REQUIRE(host.bytes[p].size() == flat.size() * 4);
        for (size_t i = 0; i < flat.size(); ++i) {
            // Floats are floats; the ints and the tuple's int field are ints in [0, 16).
            float f;
            int32_t n;
            std::memcpy(&f, host.bytes[p].data() + 4 * i, 4);
            std::memcpy(&n, host.bytes[p].data() + 4 * i, 4);
            bool isInt = p == 2 || (p == 3 && i % 2 == 1);
            CHECK((isInt ? double(n) : double(f)) == flat[i]);
        }
    }
    // A kernel timed on them computes what it computes on the interpreter's values.
    RunOptions o;
    o.runs = 1;
    o.keepOutput = true;
    o.seed = 5;
    DeviceInputs inputs(session(), std::make_shared<const HostInputs>(std::move(host)));
    CHECK(runTimed(inputs, g.program, g.sizes, g.code, o).output ==
          runTimed(session(), g.program, g.sizes, g.code, o).output);
}
