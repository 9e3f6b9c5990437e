// Candidates extracted from e-graphs where high-level programs meet lowering rules: every one
// is fully lowered with a valid thread hierarchy, compiles, and computes what the interpreter
// computes (on the default device, PoCL).
#include "support.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace egopt;
using namespace egopt::extract;

namespace {

ExtractResult lowered(test::Graph& gr, const std::string& path, const arith::Bindings& sizes,
                      size_t k) {
    test::insertAndSaturate(gr, path, {"lower.rules", "core.rules"}, 4);
    ExtractOptions opt;
    opt.k = k;
    opt.sizes = sizes;
    return extractCandidates(gr.g, gr.main.root, gr.main.signature, StructuralCost(), opt);
}

// The properties every returned list must have; validates each candidate on the device.
void checkAll(const ExtractResult& r, const arith::Bindings& sizes, size_t k) {
    INFO(test::listing(r));
    REQUIRE(!r.candidates.empty());
    CHECK(r.candidates.size() <= k);
    std::set<std::string> texts;
    for (size_t i = 0; i < r.candidates.size(); ++i) {
        const Candidate& c = r.candidates[i];
        INFO(c.text);
        CHECK(test::hierarchyError(c.program).empty());
        CHECK(texts.insert(c.text).second); // distinct
        if (i > 0) {
            CHECK(r.candidates[i - 1].cost <= c.cost); // non-decreasing
        }
        codegen::RunResult run = test::validate(c, sizes);
        INFO(run.summary());
        CHECK(run.ok);
    }
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("scal: parallel candidates first, all valid on the device", "[extract]") {
    test::Graph gr;
    arith::Bindings sizes{{"N", 1024}};
    ExtractResult r = lowered(gr, test::shared("scal.lift"), sizes, 16);
    checkAll(r, sizes, 16);
    CHECK(r.candidates.size() == 16);
    CHECK(contains(r.candidates.front().text, "MapGlb"));
    CHECK(contains(r.candidates.back().text, "MapSeq"));
    bool wrgLcl = false;
    for (const Candidate& c : r.candidates) {
        wrgLcl = wrgLcl || (contains(c.text, "MapWrg") && contains(c.text, "MapLcl"));
    }
    CHECK(wrgLcl);
}

TEST_CASE("row sums: work-group candidates with local maps, all valid on the device", "[extract]") {
    test::Graph gr;
    // Rows long enough that local threads pay for the barrier after them (StructuralCost).
    arith::Bindings sizes{{"M", 32}, {"N", 4096}};
    ExtractResult r = lowered(gr, test::data("row_asum.lift"), sizes, 12);
    checkAll(r, sizes, 12);
    CHECK(contains(r.candidates.front().text, "MapLcl"));
}

// The tuple (row, y) of Zip(a, y) has an array field: a view, never a struct.
TEST_CASE("gemv: work-group candidates with local maps, all valid on the device", "[extract]") {
    test::Graph gr;
    arith::Bindings sizes{{"M", 32}, {"N", 64}};
    ExtractResult r = lowered(gr, test::shared("gemv.lift"), sizes, 8);
    CHECK(contains(r.candidates.front().text, "MapLcl"));
    checkAll(r, sizes, 8);
}

TEST_CASE("asum: a single reduction runs in one thread", "[extract]") {
    test::Graph gr;
    arith::Bindings sizes{{"N", 256}};
    ExtractResult r = lowered(gr, test::shared("asum.lift"), sizes, 4);
    checkAll(r, sizes, 4);
    for (const Candidate& c : r.candidates) {
        // Without global synchronisation, one kernel cannot reduce across threads.
        CHECK(!contains(c.text, "MapGlb"));
        CHECK(!contains(c.text, "MapWrg"));
    }
}

TEST_CASE("asum over several kernels: parallel partial sums, then one thread", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("asum.lift"), {"lower.rules", "core.rules"}, 4);
    // Long enough that a second kernel launch pays off (StructuralCost's `launch`): at 1024
    // elements one thread is as fast.
    arith::Bindings sizes{{"N", 1 << 16}};
    ExtractOptions opt;
    opt.k = 8;
    opt.sizes = sizes;
    opt.multipleKernels = true;
    opt.buildOn = &test::session();
    ExtractResult r =
        extractCandidates(gr.g, gr.main.root, gr.main.signature, StructuralCost(), opt);
    checkAll(r, sizes, 8);
    CHECK(contains(r.candidates.front().text, "MapGlb"));
}

TEST_CASE("partial sums: rules and a hand-lowered variant in one class", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("partial_asum.lift"), {"lower.rules"}, 3);
    test::unionWith(gr, test::data("partial_asum_gpu.lift"));
    arith::Bindings sizes{{"N", 512}};
    ExtractOptions opt;
    opt.k = 8;
    opt.sizes = sizes;
    ExtractResult r =
        extractCandidates(gr.g, gr.main.root, gr.main.signature, StructuralCost(), opt);
    checkAll(r, sizes, 8);
    bool hand = false;
    for (const Candidate& c : r.candidates) {
        hand = hand || contains(c.text, "toGlobal");
    }
    CHECK(hand); // the hand-lowered variant competes with the rule-lowered ones
}
