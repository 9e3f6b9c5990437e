// A simplification memo shared by many generations (codegen::Options::simplifyMemo, as the
// pipeline uses it) changes no generated code: each program gives the same source with no memo,
// with a cold memo and with a memo warmed by every other program, at concrete and symbolic sizes.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::codegen::test;

TEST_CASE("a shared simplification memo leaves every generated kernel unchanged", "[codegen]") {
    const std::vector<std::pair<std::string, arith::Bindings>> programs = {
        {"copy_vec4", {{"N", 1024}}},
        {"transpose", {{"M", 32}, {"N", 16}}},
        {"partial_dot", {{"N", 1024}}},
        {"asum_gpu", {{"N", 524288}}},
        {"asum_tree", {{"N", 524288}}},
        {"mm_funcall", {{"M", 16}, {"K", 8}, {"N", 32}}},
        {"mm_block2d", {{"M", 128}, {"K", 12}, {"N", 192}}},
        {"mm_block2d", {{"M", 256}, {"K", 64}, {"N", 384}}},
        {"asum_tree", {}}, // symbolic: N is a kernel argument, declared >= 1
        {"transpose", {}},
    };
    auto memo = std::make_shared<arith::SimplifyMemo>();
    codegen::Options shared;
    shared.simplifyMemo = memo;
    std::vector<std::string> plain;
    for (int pass = 0; pass < 2; ++pass) { // cold, then warmed by all the others
        for (size_t k = 0; k < programs.size(); ++k) {
            const auto& [name, sizes] = programs[k];
            Generated g = generateFile(example(name), sizes);
            if (pass == 0) {
                plain.push_back(g.code.source);
            }
            codegen::GeneratedCode withMemo = codegen::generate(g.program, g.info, g.sizes, shared);
            INFO(name << " pass " << pass);
            CHECK(withMemo.source == plain.at(k));
            CHECK(withMemo.launchJson() == g.code.launchJson());
        }
    }
    CHECK(memo->size() > 0);
}
