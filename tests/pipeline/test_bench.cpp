// Choosing validation sizes (bench.hpp, internal to the pipeline): the smallest sizes that
// generate, bounded by an estimate of the interpreter's work.
#include "../../src/pipeline/bench.hpp"
#include "egopt/lift/frontend.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace egopt;
using namespace egopt::pipeline;

TEST_CASE("validation sizes stay within the interpreter's work estimate", "[pipeline]") {
    lift::Program p = lift::parseFile(egopt::testenv::loweredProgramPath("glb_1d"));
    std::vector<extract::TuningVar> vars;
    codegen::Options co;
    // Without an estimate: the smallest sizes that generate.
    auto s = validationSizes(p, vars, {}, {{"N", 1 << 20}}, co, {});
    REQUIRE(s);
    CHECK(s->at("N") == 16);
    // An estimate above the bound at those sizes: none (larger sizes only add work).
    WorkEstimate calls = [](const Built& b) { return double(b.sizes.at("N")); };
    CHECK(validationSizes(p, vars, {}, {{"N", 1 << 20}}, co, {}, double(1 << 22), calls, 8.0) ==
          std::nullopt);
    CHECK(validationSizes(p, vars, {}, {{"N", 1 << 20}}, co, {}, double(1 << 22), calls, 16.0));
}

TEST_CASE("the interpreter's work counts operations where calls are cheap", "[pipeline]") {
    double bound = double(1 << 22);
    // asum at N = 2^22: two calls of one operation per element.
    CHECK(interpreterWork(double(1 << 23), double(1 << 23)) <= bound);
    // nbody at N = 2048: 4M calls of about 30 operations each, as many calls as the bound.
    CHECK(interpreterWork(double(1 << 22), 30.0 * double(1 << 22)) <= bound);
    // Beyond either: more calls than the bound and more than 2^25 calls and operations.
    CHECK(interpreterWork(double(1 << 23), 30.0 * double(1 << 23)) > bound);
    CHECK(interpreterWork(double(1 << 25) + 8, 0) > bound);
}

TEST_CASE("validation sizes shrink each size on its own within the constraints", "[pipeline]") {
    lift::Program p = lift::parseFile(egopt::testenv::loweredProgramPath("glb_2d"));
    // A split factor of 256 over N (as gesummv's 128 x 8 over K): N must stay at 256, M need
    // not (it used to grow with N, to 256 x 256).
    std::vector<extract::TuningVar> vars{{"v__1", {arith::Size::var("N")}}};
    codegen::Options co;
    auto s = validationSizes(p, vars, {{"v__1", 256}}, {{"M", 1024}, {"N", 1024}}, co, {});
    REQUIRE(s);
    CHECK(*s == arith::Bindings{{"M", 16}, {"N", 256}});
    // The bound applies to the shrunk sizes (16 x 256 = 4096; 8192 floats in and out).
    arith::Bindings real{{"M", 1024}, {"N", 1024}};
    CHECK(!validationSizes(p, vars, {{"v__1", 256}}, real, co, {}, 4095.0));
    CHECK(validationSizes(p, vars, {{"v__1", 256}}, real, co, {}, 4096.0));
}

TEST_CASE("the validation bound takes the data when the product of the sizes is larger",
          "[pipeline]") {
    // A product whose three sides must stay at 64 (each split by 64): 2^18 as a product of the
    // sizes, but 3 x 64 x 64 = 12,288 floats of inputs and output.
    lift::Program p = lift::parseFile(egopt::testenv::loweredProgramPath("vec_transpose_dot"));
    std::vector<extract::TuningVar> vars{{"v__1", {arith::Size::var("M")}},
                                         {"v__2", {arith::Size::var("N")}},
                                         {"v__3", {arith::Size::var("K")}}};
    arith::Bindings tuning{{"v__1", 64}, {"v__2", 64}, {"v__3", 64}};
    arith::Bindings real{{"M", 64}, {"N", 64}, {"K", 64}};
    codegen::Options co;
    auto s = validationSizes(p, vars, tuning, real, co, {}, 12288.0);
    REQUIRE(s);
    CHECK(*s == real);
    CHECK(!validationSizes(p, vars, tuning, real, co, {}, 12287.0));
}

TEST_CASE("the source program's reference is interpreted once per set of sizes", "[pipeline]") {
    lift::Program source = lift::parseFile(std::string(EGOPT_SHARED_DIR) + "/examples/asum.lift");
    References refs(source, 3);
    CHECK(refs.secondsToInterpret({{"N", 64}}) == 0); // nothing to go by yet
    auto a = refs.at({{"N", 64}});
    auto b = refs.at({{"N", 64}});
    CHECK(a == b); // the same object: interpreted once
    CHECK(refs.interpreted() == 1);
    REQUIRE(a->expected.size() == 1); // asum's one-element result
    double sum = 0;
    for (const interp::Value& x : a->inputs->at(0).elems()) {
        sum += std::fabs(x.toDouble());
    }
    CHECK(a->expected[0] == Approx(sum).epsilon(1e-5));
    CHECK(refs.secondsToInterpret({{"N", 64}}) == 0); // cached
    // An estimate from the rate seen at N = 64, growing with the sizes.
    CHECK(refs.secondsToInterpret({{"N", 1 << 20}}) > 0);
    CHECK(refs.secondsToInterpret({{"N", 1 << 20}}) > refs.secondsToInterpret({{"N", 1 << 10}}));
    CHECK(refs.at({{"N", 128}})->expected.size() == 1);
    CHECK(refs.interpreted() == 2);
    // A candidate derived from it takes its parameters; a program with other ones does not.
    CHECK(refs.applyTo(source));
    CHECK(!refs.applyTo(lift::parseFile(egopt::testenv::loweredProgramPath("glb_2d"))));
}
