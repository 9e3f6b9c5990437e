// Candidates extracted from e-graphs where high-level programs meet lowering rules: every one
// is fully lowered with a valid thread hierarchy, compiles, and computes what the interpreter
// computes (on the default device, PoCL).
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/rules/loader.hpp"
#include "support.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <set>

using egopt::testenv::contains;

using namespace egopt;
using namespace egopt::extract;

namespace {

ExtractResult lowered(test::Graph& gr, const std::string& path, const arith::Bindings& sizes,
                      size_t k) {
    test::insertAndSaturate(gr, path, {"lower.rules", "core.rules"}, 4);
    ExtractOptions opt;
    opt.k = k;
    opt.sizes = sizes;
    return extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, StructuralCost(),
                             opt);
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
    ExtractResult r = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                        StructuralCost(), opt);
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
    ExtractResult r = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                        StructuralCost(), opt);
    checkAll(r, sizes, 8);
    bool hand = false;
    for (const Candidate& c : r.candidates) {
        hand = hand || contains(c.text, "toGlobal");
    }
    CHECK(hand); // the hand-lowered variant competes with the rule-lowered ones
}

// reduce-map-split-strided gives asum's strided partial sums with abs fused (chunk g reads g,
// g + s, ...; s = N / v), macro-partial-reduce the contiguous ones: GPU costs rank the strided
// kernel first, CPU costs the contiguous one; both compile and validate on PoCL.
TEST_CASE("asum: coalesced fused partial sums first under GPU costs, valid on the device",
          "[extract]") {
    test::Graph gr;
    lift::Program asum = lift::parseFile(test::shared("asum.lift"));
    gr.main = egraph::insertProgram(gr.g, asum);
    egraph::Library lib = egraph::Library::standard();
    auto explore = test::catalogue("algorithmic.rules", {"reduce-map-split-strided"}, lib);
    auto macros =
        test::catalogue("opencl.rules", {"macro-partial-reduce", "macro-map-reduce-fusion"}, lib);
    explore.insert(explore.end(), macros.begin(), macros.end());
    egraph::Runner first(gr.g, explore, lib, gr.rw);
    first.limits.iterations = 1;
    first.run();
    auto lowering = test::rules({"lower.rules"}, lib);
    lowering.insert(lowering.end(), macros.begin(), macros.end());
    egraph::Runner second(gr.g, lowering, lib, gr.rw);
    second.limits.iterations = 3;
    second.run();

    arith::Bindings sizes{{"N", 1 << 16}};
    ExtractOptions opt;
    opt.k = 6;
    opt.sizes = sizes;
    opt.multipleKernels = true;
    opt.buildOn = &test::session();
    ExtractResult gpu = extractCandidates(
        gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
        StructuralCost(gr.g, gr.rw.tuning, sizes, StructuralCost::Params::gpu()), opt);
    checkAll(gpu, sizes, 6);
    const Candidate& best = gpu.candidates.front();
    INFO(best.text);
    CHECK(contains(best.text, "MapGlb"));
    CHECK(contains(best.text, "Split(v__1) $ (Gather(ReorderWithStride(N/^v__1)) $ xs)"));
    CHECK(contains(best.text, "abs $")); // fused into the chunk's reduction
    // The kernel reads xs[gid + s*i]: adjacent work-items, adjacent elements.
    lift::Program p = best.program;
    arith::Bindings all = sizes;
    all.insert(best.tuningValues.begin(), best.tuningValues.end());
    lift::TypeInfo info = lift::typecheck(p);
    codegen::GeneratedCode code = codegen::generate(p, info, all);
    int64_t stride = (1 << 16) / best.tuningValues.at("v__1");
    CHECK(contains(code.source, "abs(xs[gid_0+" + std::to_string(stride) + "*"));

    ExtractResult cpu = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                          StructuralCost(gr.g, gr.rw.tuning, sizes), opt);
    checkAll(cpu, sizes, 6);
    CHECK(!contains(cpu.candidates.front().text, "ReorderWithStride"));
    bool strided = false;
    for (const Candidate& c : cpu.candidates) {
        strided = strided || contains(c.text, "Gather(ReorderWithStride(N/^v__1)) $ xs");
    }
    CHECK(strided);
}

TEST_CASE("candidates repeating a better candidate's kernel are dropped", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"), {"lower.rules", "core.rules"}, 4);
    arith::Bindings sizes{{"N", 1024}};
    ExtractOptions opt;
    opt.k = 8;
    opt.sizes = sizes;
    ExtractResult r = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                        StructuralCost(), opt);
    opt.distinctKernels = false;
    ExtractResult all = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                          StructuralCost(), opt);
    INFO(test::listing(r));
    INFO(test::listing(all));
    // MapGlb(1) alone generates the kernel of MapGlb(0): only the cheaper one is kept.
    auto glb1 = [](const ExtractResult& x) {
        return std::count_if(x.candidates.begin(), x.candidates.end(),
                             [](const Candidate& c) { return contains(c.text, ", 1) $ xs"); });
    };
    CHECK(glb1(all) > 0);
    CHECK(glb1(r) == 0);
    CHECK(r.candidates.size() == 8);
    CHECK(!r.duplicates.empty());
    for (const Rejection& d : r.duplicates) {
        CHECK(contains(d.reason, "the same kernel as candidate"));
    }
}

TEST_CASE("candidates far costlier than the best are not taken", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"), {"lower.rules", "core.rules"}, 4);
    ExtractOptions opt;
    opt.k = 16;
    opt.sizes = {{"N", 1024}};
    opt.maxCostRatio = 0; // no bound
    ExtractResult all = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                          StructuralCost(), opt);
    INFO(test::listing(all));
    REQUIRE(all.candidates.size() > 1);
    // A bound between the best and the costliest candidate's cost.
    double best = all.candidates.front().cost;
    double ratio = (best + all.candidates.back().cost) / 2 / best;
    REQUIRE(ratio > 1);
    opt.maxCostRatio = ratio;
    ExtractResult bounded = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                              StructuralCost(), opt);
    INFO(test::listing(bounded));
    CHECK(bounded.candidates.size() < all.candidates.size());
    CHECK(bounded.beyondCostRatio > 0);
    for (const Candidate& c : bounded.candidates) {
        CHECK(c.cost <= ratio * best);
    }
}

// macro-reduce-gpu-w4 gives asum's two-level float4 reduction (strided chunks at both levels).
// At 128M floats both GPU views rank it above macro-partial-reduce's single level of contiguous
// float16 chunks: a float16 is read in four interleaved 16-byte pieces (Params::vectorBytes).
// With the occupancy view as the second view, its best candidates that the first view's list
// lacks join that list, marked. At a small size the two-level tree validates on PoCL.
TEST_CASE("asum: both GPU views rank the two-level float4 reduction first", "[extract]") {
    test::Graph gr;
    lift::Program asum = lift::parseFile(test::shared("asum.lift"));
    gr.main = egraph::insertProgram(gr.g, asum);
    gr.rw.facts.assumeDivides(arith::Size(16), arith::Size::var("N")); // as the pipeline assumes
    egraph::Library lib = egraph::Library::standard();
    auto rules =
        test::catalogue("opencl.rules",
                        {"macro-reduce-gpu-w4", "vectorize-reduce-w16", "vectorize-map-input",
                         "macro-partial-reduce", "macro-map-reduce-fusion"},
                        lib);
    auto lowering = test::rules({"lower.rules"}, lib);
    rules.insert(rules.end(), lowering.begin(), lowering.end());
    egraph::Runner runner(gr.g, rules, lib, gr.rw);
    runner.limits.iterations = 5;
    runner.run();

    arith::Bindings sizes{{"N", int64_t(1) << 27}};
    ExtractOptions opt;
    opt.k = 1;
    opt.sizes = sizes;
    opt.multipleKernels = true;
    auto twoLevel = [](const Candidate& c) {
        std::string t = c.text;
        size_t strides = 0;
        for (size_t at = t.find("ReorderWithStride"); at != std::string::npos;
             at = t.find("ReorderWithStride", at + 1)) {
            ++strides;
        }
        return contains(t, "VectorizeUserFun(add, 4)") && contains(t, "MapVec(abs)") &&
               strides == 2;
    };
    StructuralCost gpu(gr.g, gr.rw.tuning, sizes, StructuralCost::Params::gpu());
    StructuralCost occupancy(gr.g, gr.rw.tuning, sizes, StructuralCost::Params::gpuOccupancy());
    ExtractResult first =
        extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, gpu, opt);
    ExtractResult second =
        extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, occupancy, opt);
    INFO(test::listing(first));
    INFO(test::listing(second));
    REQUIRE(!first.candidates.empty());
    REQUIRE(!second.candidates.empty());
    CHECK(twoLevel(first.candidates.front()));
    CHECK(twoLevel(second.candidates.front()));
    StructuralCost cpu(gr.g, gr.rw.tuning, sizes); // no vector width limit on a CPU
    ExtractResult third =
        extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, cpu, opt);
    REQUIRE(!third.candidates.empty());
    INFO(test::listing(third));
    CHECK(contains(third.candidates.front().text, "VectorizeUserFun(add, 16)"));

    opt.secondCost = &occupancy;
    opt.secondK = 2;
    ExtractResult both =
        extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, gpu, opt);
    INFO(test::listing(both));
    REQUIRE(both.candidates.size() > first.candidates.size());
    std::set<std::string> texts;
    for (size_t i = 0; i < both.candidates.size(); ++i) {
        const Candidate& c = both.candidates[i];
        CHECK(texts.insert(c.text).second);
        CHECK(c.secondView == (i >= first.candidates.size()));
        if (i < first.candidates.size()) {
            CHECK(c.text == first.candidates[i].text);
        }
    }
    opt.secondCost = nullptr;
    opt.k = 8; // the second view's candidates join in its order, skipping kernels already listed
    ExtractResult secondList =
        extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, occupancy, opt);
    INFO(test::listing(secondList));
    const Candidate& added = both.candidates[first.candidates.size()];
    CHECK(std::any_of(secondList.candidates.begin(), secondList.candidates.end(),
                      [&](const Candidate& c) { return c.text == added.text; }));

    // Chunks of 8 at both levels fit 64K floats (N/4 = 8 * 8 * 256).
    Candidate small = first.candidates.front();
    for (const TuningVar& t : small.tuning) {
        small.tuningValues[t.name] = 8;
    }
    codegen::RunResult run = test::validate(small, {{"N", 1 << 16}});
    INFO(run.summary());
    CHECK(run.ok);
}

// macro-register-block-w4x4 gives mm's 2-D register blocking: work-groups of MapLcl(1) x
// MapLcl(0) work-items, each a 4 x 4 block in float4 accumulators. The per-e-node cost ranks it
// far below one result per work-item (it sees no loads), so the 2 best miss it; a guided draw
// that replays the rule's right-hand side (the e-nodes the rule instantiated) finds it exactly,
// and it validates on the device.
TEST_CASE("mm: guided draws replay macro-register-block's schedule", "[extract]") {
    test::Graph gr;
    lift::Program mm = lift::parseFile(test::shared("mm.lift"));
    gr.main = egraph::insertProgram(gr.g, mm);
    for (const char* v : {"M", "N", "K"}) {
        gr.rw.facts.assumeDivides(arith::Size(16), arith::Size::var(v)); // as the pipeline assumes
    }
    egraph::Library lib = egraph::Library::standard();
    auto rules = test::catalogue("opencl.rules", {"macro-register-block-w4x4"}, lib);
    auto lowering = test::rules({"lower.rules"}, lib);
    rules.insert(rules.end(), lowering.begin(), lowering.end());
    egraph::Runner runner(gr.g, rules, lib, gr.rw);
    egraph::Applications applications;
    runner.applications = &applications;
    runner.limits.iterations = 4;
    runner.run();
    const auto& instances = applications.of("macro-register-block-w4x4");
    REQUIRE(!instances.empty());

    arith::Bindings sizes{{"M", 64}, {"N", 64}, {"K", 16}};
    ExtractOptions opt;
    opt.k = 2;
    opt.sizes = sizes;
    opt.explore.draws = 50;
    opt.explore.guides.emplace_back(instances.front().begin(), instances.front().end());
    ExtractResult r = extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature,
                                        StructuralCost(gr.g, gr.rw.tuning, sizes), opt);
    INFO(test::listing(r));
    auto blocked = [](const Candidate& c) {
        return contains(c.text, "MapWrg(fun(x1 => Map(Join) $ (Transpose $ (MapWrg(") &&
               contains(c.text, "MapLcl(fun(x3 => MapLcl(") &&
               contains(c.text, "VectorizeUserFun(mult, 4)") && contains(c.text, "toPrivate");
    };
    CHECK(std::none_of(r.candidates.begin(), r.candidates.end(), blocked));
    auto it = std::find_if(r.explored.begin(), r.explored.end(),
                           [&](const Candidate& c) { return c.guided && blocked(c); });
    REQUIRE(it != r.explored.end());
    CHECK(r.stats.guidedDrawn >= 1);

    Candidate small = *it; // 2 x 2 work-items of 4 x 4 blocks: 64 x 64 in 4 x 4 work-groups
    for (const TuningVar& t : small.tuning) {
        small.tuningValues[t.name] = 2;
    }
    codegen::RunResult run = test::validate(small, sizes);
    INFO(run.summary());
    CHECK(run.ok);
}

// A constant pad (its value a literal child of Pad) and a 3-D neighbourhood (a view mapping a
// lambda of views) stay views of the input: the best candidate is one kernel reading the grid.
TEST_CASE("constant-pad stencils: the padded neighbourhoods are views in one kernel", "[extract]") {
    const std::string corpus = std::string(EGOPT_SOURCE_DIR) + "/tests/lift/corpus/";
    struct Case {
        const char* file;
        arith::Bindings sizes;
    };
    for (const Case& c : {Case{"stencil2d_constant.lift", {{"M", 16}, {"N", 16}}},
                          Case{"stencil3d_constant.lift", {{"M", 8}, {"N", 8}, {"O", 8}}}}) {
        test::Graph gr;
        ExtractResult r = lowered(gr, corpus + c.file, c.sizes, 4);
        INFO(c.file << "\n" << test::listing(r));
        REQUIRE(!r.candidates.empty());
        const Candidate& best = r.candidates.front();
        CHECK(!contains(best.text, "MapSeq(Pad"));
        CHECK(!contains(best.text, "MapGlb(Pad"));
        codegen::RunResult run = test::validate(best, c.sizes);
        INFO(run.summary());
        CHECK(run.ok);
        CHECK(run.kernelMedianNs.size() == 1);
    }
}

// A view's lambda that reads a variable from outside it (`fun(row => Zip $ (row, v))`) is a view,
// as the code generator indexes it: no candidate writes the pairs out before they are read.
TEST_CASE("a mapped lambda zipping with an outside variable is a view", "[extract]") {
    test::Graph gr;
    arith::Bindings sizes{{"M", 16}, {"K", 32}};
    ExtractResult r = lowered(gr, test::data("row_zip_view.lift"), sizes, 4);
    INFO(test::listing(r));
    REQUIRE(!r.candidates.empty());
    const std::regex written(R"((MapSeq|MapGlb|MapWrg|MapLcl)\(fun\(x\d+ => Zip \$)");
    const std::regex viewed(R"(Map\(fun\(x\d+ => Zip \$ \(x\d+, v\)\)\))");
    bool view = false;
    for (const Candidate& c : r.candidates) {
        INFO(c.text);
        CHECK_FALSE(std::regex_search(c.text, written));
        view |= std::regex_search(c.text, viewed);
    }
    CHECK(view);
    codegen::RunResult run = test::validate(r.candidates.front(), sizes);
    INFO(run.summary());
    CHECK(run.ok);
}
