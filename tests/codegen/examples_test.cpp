// Every hand-lowered example generates, builds and validates on the default device (PoCL), and
// the golden properties of CGO'17 §5 hold for transpose and partial_dot.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>

using namespace egopt::codegen::test;

namespace {

void expectValid(const std::string& name, const egopt::arith::Bindings& sizes) {
    Generated g = generateFile(example(name), sizes);
    INFO(g.code.source);
    auto r = validate(g);
    INFO(r.summary());
    CHECK(r.ok);
}

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) {
        ++n;
    }
    return n;
}

} // namespace

TEST_CASE("lowlevel examples validate on the default device", "[codegen]") {
    expectValid("copy_vec4", {{"N", 1024}});
    expectValid("transpose", {{"M", 32}, {"N", 16}});
    expectValid("partial_dot", {{"N", 1024}});
    expectValid("asum_gpu", {{"N", 524288}});
    expectValid("asum_tree", {{"N", 524288}});
    expectValid("mm_funcall", {{"M", 16}, {"K", 8}, {"N", 32}});
    expectValid("mm_block2d", {{"M", 128}, {"K", 12}, {"N", 192}});
}

// Map(Join()), Map(Transpose()), Map(asScalar()) and Map(Split(1)) are views: the blocks are
// written in place by vector stores (the vectorised index stays the innermost one through the
// transposes of outer indices), B's rows are read by vector loads, nothing is copied.
TEST_CASE("mm_block2d: mapped layout functions are views, with vector loads and stores",
          "[codegen]") {
    Generated g = generateFile(example("mm_block2d"), {{"M", 128}, {"K", 12}, {"N", 192}});
    const std::string& s = g.code.source;
    std::string body = s.substr(s.find("__kernel"));
    INFO(body);
    CHECK(count(body, "vload4(") == 1);
    CHECK(count(body, "vstore4(") == 1);
    CHECK(count(body, "__global float* g_") == 0); // no temporary in global memory
    CHECK(g.code.kernels.size() == 1);
    CHECK(g.code.kernel.launch.local[0] == 16);
    CHECK(g.code.kernel.launch.local[1] == 16);
}

TEST_CASE("transpose indices have no division or modulo", "[codegen]") {
    Generated g = generateFile(example("transpose"), {{"M", 64}, {"N", 32}});
    const std::string& s = g.code.source;
    std::string body = s.substr(s.find("__kernel"));
    INFO(body);
    CHECK(count(body, "/") == 0);
    CHECK(count(body, "%") == 0);
    CHECK(count(body, "for (") == 0);
}

TEST_CASE("partial_dot: no loop around the per-thread work, only needed barriers", "[codegen]") {
    Generated g = generateFile(example("partial_dot"), {{"N", 1024}});
    const std::string& s = g.code.source;
    std::string body = s.substr(s.find("__kernel"));
    INFO(body);
    // The first MapLcl covers the work-group exactly: straight-line code, no loop or if.
    CHECK(body.find("int lid_") < body.find("if ("));
    CHECK(count(body, "for (int lid") == 0);
    CHECK(count(body, "for (int wg") == 0);
    // After the first reduction and in each iteration; none after the final global write.
    CHECK(g.code.kernel.barriers == 3);
    CHECK(count(body, "barrier(CLK_LOCAL_MEM_FENCE)") == 3);
    CHECK(count(body, "CLK_GLOBAL_MEM_FENCE") == 0);
    CHECK(g.code.kernel.launch.local[0] == 64);
}
