// Programs whose top level needs global synchronisation are split into several kernels at
// work-group boundaries; intermediate results live in host-allocated buffers. Every kernel
// sequence runs on the default device (PoCL) and its result is compared with the interpreter.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>

using namespace egopt::codegen;
using namespace egopt::codegen::test;

namespace {

Generated check(const std::string& name, const egopt::arith::Bindings& sizes, size_t kernels) {
    Generated g = generateFile(testProgram(name), sizes);
    INFO(name << "\n" << g.code.source << g.code.launchJson());
    CHECK(g.code.kernels.size() == kernels);
    CHECK(g.code.intermediates.size() == kernels - 1);
    auto r = validate(g);
    INFO(r.summary());
    CHECK(r.ok);
    CHECK(r.kernelMedianNs.size() == kernels);
    return g;
}

const KernelArg* argNamed(const KernelInfo& k, const std::string& name) {
    for (const KernelArg& a : k.args) {
        if (a.name == name) {
            return &a;
        }
    }
    return nullptr;
}

} // namespace

TEST_CASE("partial sums then a final reduction: two kernels", "[codegen]") {
    Generated g = check("mk_asum_final", {{"N", 1024}}, 2);
    const auto& k = g.code.kernels;
    CHECK(k[0].name == "KERNEL_0");
    CHECK(k[0].launch.global[0] == 8 * 16);
    CHECK(k[0].launch.local[0] == 16);
    // The final reduction runs on a single work-item.
    CHECK(k[1].launch.global[0] == 1);
    const Intermediate& m = g.code.intermediates.at(0);
    CHECK(m.bytes == 128 * sizeof(float));
    CHECK(m.producer == 0);
    const KernelArg* w = argNamed(k[0], "tmp0");
    const KernelArg* r = argNamed(k[1], "tmp0");
    REQUIRE(w);
    REQUIRE(r);
    CHECK(w->kind == KernelArg::Kind::Intermediate);
    CHECK(w->writes);
    CHECK_FALSE(r->writes);
    CHECK(r->bytes == m.bytes);
    // The second kernel reads only the intermediate, not the input.
    CHECK_FALSE(argNamed(k[1], "xs"));
    CHECK(argNamed(k[1], "out"));
    CHECK(g.code.kernel.name == "KERNEL_1");
}

TEST_CASE("two global maps with a transpose between them", "[codegen]") {
    Generated g = check("mk_transpose", {{"M", 8}, {"N", 16}}, 2);
    CHECK(g.code.kernels[0].launch.global[0] == 8);
    CHECK(g.code.kernels[1].launch.global[0] == 16);
}

TEST_CASE("three kernels: local-memory partial dot products, two more reductions", "[codegen]") {
    Generated g = check("mk_dot_three", {{"N", 2048}}, 3);
    CHECK(g.code.kernels[0].launch.local[0] == 32);
    CHECK(g.code.kernels[1].launch.local[0] == 4);
    CHECK(g.code.intermediates[0].bytes == 32 * sizeof(float));
    CHECK(g.code.intermediates[1].bytes == 8 * sizeof(float));
}

TEST_CASE("an intermediate zipped with an input through a view", "[codegen]") {
    Generated g = check("mk_zip_input", {{"N", 64}}, 2);
    CHECK(argNamed(g.code.kernels[1], "y"));
    CHECK(argNamed(g.code.kernels[1], "tmp0"));
    CHECK_FALSE(argNamed(g.code.kernels[1], "x"));
}

TEST_CASE("a top-level let of a sequential reduction used by a global map", "[codegen]") {
    check("mk_let_scale", {{"N", 64}}, 2);
}

TEST_CASE("single-kernel programs keep one kernel", "[codegen]") {
    for (const char* name : {"partial_dot", "asum_gpu", "transpose", "copy_vec4"}) {
        Generated g = generateFile(example(name), {{"N", 1024}, {"M", 16}});
        CHECK(g.code.kernels.size() == 1);
        CHECK(g.code.intermediates.empty());
    }
}

TEST_CASE("the plan JSON lists kernels and intermediates", "[codegen]") {
    Generated g = generateFile(testProgram("mk_dot_three"), {{"N", 2048}});
    std::string j = g.code.launchJson();
    INFO(j);
    CHECK_THAT(j, Catch::Contains("\"KERNEL_0\"") && Catch::Contains("\"KERNEL_2\"") &&
                      Catch::Contains("\"intermediates\"") && Catch::Contains("\"written_by\"") &&
                      Catch::Contains("\"access\": \"write\"") && Catch::Contains("\"tmp1\""));
}

TEST_CASE("reading an intermediate through Join: the index has no division or modulo",
          "[codegen]") {
    // Join's index pair (i/4, i%4) flattens to 4*(i/4) + i%4, which arith::simplify folds to i.
    for (const egopt::arith::Bindings& sizes :
         {egopt::arith::Bindings{{"N", 64}}, egopt::arith::Bindings{}}) {
        Generated g = generateFile(testProgram("mk_join_read"), sizes);
        const std::string& s = g.code.source;
        std::string body = s.substr(s.find("__kernel void KERNEL_1"));
        INFO(body);
        CHECK(body.find('/') == std::string::npos);
        CHECK(body.find('%') == std::string::npos);
        CHECK(body.find("tmp0[gid_0]") != std::string::npos);
    }
    check("mk_join_read", {{"N", 64}}, 2);
}
