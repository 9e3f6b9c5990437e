// The time-only entry point: codegen::runTimed runs a kernel sequence on random or shared inputs
// without the interpreter, and drains a kernel that timed out before rethrowing.
#include "codegen_support.hpp"
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/runtime/device.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <set>

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

    SECTION("a float output comes as floats with floatOutput") {
        o.floatOutput = true;
        TimedResult f = runTimed(session(), g.program, g.sizes, g.code, o);
        CHECK(f.output.empty());
        REQUIRE(f.floats.size() == r.output.size());
        CHECK(double(f.floats[0]) == r.output[0]);
    }
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

TEST_CASE("randomHostInputs lays out every parameter as the kernels read it", "[codegen]") {
    Generated g = generateText(kMixedInputs, {{"N", 64}});
    HostInputs host = randomHostInputs(g.program, g.sizes, 5);
    REQUIRE(host.values.size() == 4);
    REQUIRE(host.bytes.size() == 4);
    CHECK(host.bytes[0].empty()); // the scalar is a value, as the interpreter draws it
    CHECK(host.values[0].toDouble() == interp::randomInputs(g.program, g.sizes, 5)[0].toDouble());
    // Floats in [-1, 1), ints in [0, 16); tuples interleave their fields.
    auto floatAt = [](const std::vector<std::byte>& b, size_t i) {
        float f;
        std::memcpy(&f, b.data() + 4 * i, 4);
        return f;
    };
    auto intAt = [](const std::vector<std::byte>& b, size_t i) {
        int32_t n;
        std::memcpy(&n, b.data() + 4 * i, 4);
        return n;
    };
    REQUIRE(host.bytes[1].size() == 64 * 4);
    REQUIRE(host.bytes[2].size() == 64 * 4);
    REQUIRE(host.bytes[3].size() == 64 * 8);
    std::set<float> distinct;
    for (size_t i = 0; i < 64; ++i) {
        float x = floatAt(host.bytes[1], i);
        CHECK((x >= -1.0f && x < 1.0f));
        distinct.insert(x);
        CHECK((intAt(host.bytes[2], i) >= 0 && intAt(host.bytes[2], i) < 16));
        float t0 = floatAt(host.bytes[3], 2 * i);
        CHECK((t0 >= -1.0f && t0 < 1.0f));
        CHECK((intAt(host.bytes[3], 2 * i + 1) >= 0 && intAt(host.bytes[3], 2 * i + 1) < 16));
    }
    CHECK(distinct.size() > 60);
    // Reproducible from the seed, different for another.
    CHECK(randomHostInputs(g.program, g.sizes, 5).bytes == host.bytes);
    CHECK(randomHostInputs(g.program, g.sizes, 6).bytes[1] != host.bytes[1]);
    // A kernel timed on them computes what the interpreter computes on the same numbers.
    std::vector<interp::Value> values;
    values.push_back(host.values[0]);
    std::vector<interp::Value> xs, is, ts;
    for (size_t i = 0; i < 64; ++i) {
        xs.push_back(interp::Value::ofFloat(floatAt(host.bytes[1], i)));
        is.push_back(interp::Value::ofInt(intAt(host.bytes[2], i)));
        ts.push_back(interp::Value::tuple({interp::Value::ofFloat(floatAt(host.bytes[3], 2 * i)),
                                           interp::Value::ofInt(intAt(host.bytes[3], 2 * i + 1))}));
    }
    values.push_back(interp::Value::array(xs));
    values.push_back(interp::Value::array(is));
    values.push_back(interp::Value::array(ts));
    interp::Value want = interp::Interpreter(g.program, g.info, g.sizes).run(values);
    RunOptions o;
    o.runs = 1;
    o.keepOutput = true;
    DeviceInputs inputs(session(), std::make_shared<const HostInputs>(std::move(host)));
    std::vector<double> got = runTimed(inputs, g.program, g.sizes, g.code, o).output;
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i] == Approx(want[i].toDouble()).epsilon(1e-5));
    }
}
