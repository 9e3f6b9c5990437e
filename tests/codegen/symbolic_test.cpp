// Symbolic sizes: generated without size values, a kernel takes the sizes as `int` arguments;
// one kernel source is built and validated at several sizes.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>

using namespace egopt::codegen;
using namespace egopt::codegen::test;

namespace {

// Runs the symbolic code `g` at `sizes` and compares with the interpreter.
void validateAt(Generated& g, const egopt::arith::Bindings& sizes) {
    RunOptions o;
    o.runs = 1;
    o.warmup = 0;
    auto r = runAndValidate(session(), g.program, g.info, sizes, g.code, o);
    INFO(g.code.source << "\n" << r.summary());
    CHECK(r.ok);
}

} // namespace

TEST_CASE("a symbolic partial dot product runs at several sizes from one source", "[codegen]") {
    Generated g = generateFile(example("partial_dot"), {});
    INFO(g.code.source);
    CHECK(g.code.sizeParams == std::vector<std::string>{"N"});
    CHECK_THAT(g.code.source, Catch::Contains("const int N"));
    const LaunchConfig& l = g.code.kernel.launch;
    CHECK(l.symbolic());
    CHECK(l.globalSize[0].toString() == "N/^2");
    CHECK(l.local[0] == 64);
    CHECK(g.code.kernel.args.back().kind == KernelArg::Kind::Size);
    CHECK_THAT(g.code.launchJson(), Catch::Contains("\"N/^2\"") && Catch::Contains("\"4*N\""));
    CHECK(l.bind({{"N", 1024}}).global[0] == 512);
    for (int64_t n : {128, 1024, 8192}) {
        validateAt(g, {{"N", n}});
    }
}

TEST_CASE("symbolic sizes in two dimensions and a loop over local threads", "[codegen]") {
    Generated g = generateFile(example("transpose"), {});
    CHECK(g.code.sizeParams.size() == 2);
    for (auto [m, n] : {std::pair<int64_t, int64_t>{4, 8}, {32, 16}, {3, 300}}) {
        validateAt(g, {{"M", m}, {"N", n}});
    }
}

TEST_CASE("a symbolic global map and a symbolic multi-kernel program", "[codegen]") {
    Generated glb = generateFile(testProgram("glb_1d"), {});
    for (int64_t n : {1, 17, 64}) {
        validateAt(glb, {{"N", n}});
    }
    Generated mk = generateFile(testProgram("mk_asum_final"), {});
    REQUIRE(mk.code.kernels.size() == 2);
    CHECK(mk.code.intermediates[0].byteSize.toString() == "N/^2");
    for (int64_t n : {128, 2048}) {
        validateAt(mk, {{"N", n}});
    }
}

TEST_CASE("symbolic gemv: a zip of rows and scalars at several sizes", "[codegen]") {
    Generated g = generateFile(testProgram("gemv_glb"), {});
    CHECK(g.code.sizeParams.size() == 2);
    for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {7, 33}, {64, 16}}) {
        validateAt(g, {{"M", m}, {"N", n}});
    }
}

TEST_CASE("running a symbolic kernel without a size value is bad input", "[codegen]") {
    Generated g = generateFile(testProgram("glb_1d"), {});
    CHECK_THROWS_WITH(g.code.kernel.launch.bind({}), Catch::Contains("no value for N"));
}
