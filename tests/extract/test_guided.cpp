// Guided draws (docs/extraction.md) replay a macro rule's right-hand side through the
// extraction's states, also where some of its e-nodes cannot stand in the context they meet
// (a high-level Reduce on the macro's top): the replay takes another e-node of that class and
// counts how many of the guide's it took. Each replayed kernel is validated on PoCL.
#include "egopt/lift/frontend.hpp"
#include "support.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using egopt::testenv::contains;

using namespace egopt;
using namespace egopt::extract;

namespace {

// A shared example saturated with one macro rule of rules/FILE and the test lowering rules; the
// guides are the macro's first application.
struct Replay {
    test::Graph gr;
    ExtractResult result;
    size_t guideSize = 0;
};

void replay(Replay& r, const std::string& file, const std::string& macro,
            const arith::Bindings& sizes, const std::string& example = "asum", uint64_t seed = 1,
            const std::string& lowerings = "lower.rules") {
    lift::Program program = lift::parseFile(test::shared(example + ".lift"));
    r.gr.main = egraph::insertProgram(r.gr.g, program);
    for (const auto& [var, value] : sizes) { // as the pipeline assumes, from the sizes used
        r.gr.rw.facts.assumeDivides(arith::Size(value), arith::Size::var(var));
    }
    egraph::Library lib = egraph::Library::standard();
    auto rules = test::catalogue(file, {macro}, lib);
    auto lowering = test::rules({lowerings}, lib);
    rules.insert(rules.end(), lowering.begin(), lowering.end());
    egraph::Runner runner(r.gr.g, rules, lib, r.gr.rw);
    egraph::Applications applications;
    runner.applications = &applications;
    runner.limits.iterations = 3;
    runner.run();
    const auto& instances = applications.of(macro);
    REQUIRE(!instances.empty());
    r.guideSize = instances.front().size();

    ExtractOptions opt;
    opt.k = 2;
    opt.sizes = sizes;
    opt.multipleKernels = true; // as the pipeline: a reduction in parallel needs two kernels
    opt.explore.draws = 20;
    opt.explore.seed = seed;
    opt.explore.guides.emplace_back(instances.front().begin(), instances.front().end());
    r.result = extractCandidates(r.gr.g, r.gr.rw.tuning, r.gr.main.root, r.gr.main.signature,
                                 StructuralCost(r.gr.g, r.gr.rw.tuning, sizes), opt);
}

// The candidate at tuning value 2 everywhere, validated on the default device.
void validateAtTwo(Candidate c, const arith::Bindings& sizes) {
    for (const TuningVar& t : c.tuning) {
        c.tuningValues[t.name] = 2;
    }
    codegen::RunResult run = test::validate(c, sizes);
    INFO(run.summary());
    CHECK(run.ok);
}

// The e-nodes of y's row reduction in two_row_sums.lift: `ReduceSeq(add)` and its application to
// the squares (the only reduction whose data is a map).
std::vector<egraph::ENodeId> squaresReduction(const egraph::EGraph& g) {
    std::vector<egraph::ENodeId> applications;
    std::optional<egraph::ENodeId> reduceSeq;
    for (egraph::EClassId c : g.classIds()) {
        for (egraph::ENodeId n : g.eclass(c).nodes) {
            const egraph::ENode& node = g.node(n);
            if (node.op == lift::Op::ReduceSeq) {
                reduceSeq = n;
            }
            if (node.op == lift::Op::Apply && node.children.size() == 3 &&
                g.eclass(node.children[0]).mayHold(lift::Op::ReduceSeq) &&
                g.eclass(node.children[2]).mayHold(lift::Op::Apply)) {
                applications.push_back(n);
            }
        }
    }
    REQUIRE(reduceSeq);
    REQUIRE(applications.size() == 1);
    return {*reduceSeq, applications.front()};
}

ExtractResult replaySquares(test::Graph& gr, bool threadMapsAbove, bool towardsRoot = true) {
    ExtractOptions opt = test::guidedOptions({{"M", 8}, {"N", 16}}, squaresReduction(gr.g));
    opt.multipleKernels = true;
    opt.explore.threadMapsAbove = threadMapsAbove;
    opt.explore.towardsRoot = towardsRoot;
    return test::extractMain(gr, opt);
}

} // namespace

TEST_CASE("asum: guided draws replay macro-reduce-wrg-w4's work-group trees exactly", "[extract]") {
    arith::Bindings sizes{{"N", 256}};
    Replay r;
    replay(r, "gpu.rules", "macro-reduce-wrg-w4", sizes);
    INFO(test::listing(r.result));
    UNSCOPED_INFO("guided drawn " << r.result.stats.guidedDrawn << ", drawn "
                                  << r.result.exploreDrawn << ", checked "
                                  << r.result.exploreChecked);
    for (const Candidate& c : r.result.explored) {
        UNSCOPED_INFO((c.guided ? "guided: " : "drawn: ") << c.text);
    }
    auto tree = [](const Candidate& c) {
        return contains(c.text, "Join $ (MapWrg(fun(x1 => Join $ (MapLcl(") &&
               contains(c.text, "toLocal(MapSeq(idF4))") &&
               contains(c.text, "toGlobal(MapSeq(id))");
    };
    auto it = std::find_if(r.result.explored.begin(), r.result.explored.end(),
                           [&](const Candidate& c) { return c.guided && tree(c); });
    REQUIRE(it != r.result.explored.end());
    // Both kernels' trees: three levels of local folds in the first, two in the second.
    auto count = [&](const std::string& part) {
        size_t n = 0;
        for (size_t at = it->text.find(part); at != std::string::npos;
             at = it->text.find(part, at + 1)) {
            ++n;
        }
        return n;
    };
    CHECK(count("MapWrg(") == 2);
    CHECK(count("toLocal(MapSeq(idF4))") == 3);
    CHECK(it->guideHits >= r.guideSize / 2);
    validateAtTwo(*it, sizes);
}

TEST_CASE("asum: a macro with a high-level Reduce on top is replayed with its lowering",
          "[extract]") {
    // macro-reduce-gpu-w4's right-hand side starts with Reduce(?f), which no kernel context
    // holds: the replay takes ReduceSeq from the same class and the rest of the schedule below.
    arith::Bindings sizes{{"N", 256}};
    Replay r;
    replay(r, "opencl.rules", "macro-reduce-gpu-w4", sizes);
    INFO(test::listing(r.result));
    REQUIRE(r.result.stats.guidedDrawn >= 1); // none before: the Reduce stopped every replay
    auto schedule = [](const Candidate& c) {
        return contains(c.text, "ReduceSeq(fun((x") && contains(c.text, "MapVec(abs)") &&
               contains(c.text, "Gather(ReorderWithStride(");
    };
    // The replay joins the explored terms unless one of the K best has its kernel already.
    auto it = std::find_if(r.result.explored.begin(), r.result.explored.end(),
                           [&](const Candidate& c) { return c.guided && schedule(c); });
    if (it == r.result.explored.end()) {
        it = std::find_if(r.result.candidates.begin(), r.result.candidates.end(), schedule);
        REQUIRE(it != r.result.candidates.end());
    } else {
        CHECK(it->guideHits > 0);
    }
    validateAtTwo(*it, sizes);
}

TEST_CASE("mm: guided draws replay macro-mm-local-tiles' local tiles exactly", "[extract]") {
    // At tuning value 2 everywhere a work-group of 2 x 2 work-items has blocks of 8 rows by two
    // float4 columns (16 x 16 tiles of C) and slices of 8 along K: two tiles and two slices in
    // each dimension.
    arith::Bindings sizes{{"M", 32}, {"N", 32}, {"K", 16}};
    Replay r;
    replay(r, "gpu.rules", "macro-mm-local-tiles", sizes, "mm");
    INFO(test::listing(r.result));
    auto it = std::find_if(r.result.explored.begin(), r.result.explored.end(),
                           [](const Candidate& c) { return c.guided; });
    REQUIRE(it != r.result.explored.end());
    INFO(it->text);
    // The rule's e-nodes in place (an e-node the right-hand side uses twice counts twice): the
    // tiles' copies into local memory with MapLcl in both dimensions, not a sequential copy the
    // class also holds, and every tile size a tuning variable.
    CHECK(it->guideHits >= r.guideSize);
    CHECK(contains(it->text, "TransposeW $ (Split(4*v__"));
    CHECK(contains(it->text, "toLocal(MapLcl(MapLcl(MapSeq(VectorizeUserFun(id, 4)), 0), 1))"));
    CHECK(it->tuning.size() == 5);
    validateAtTwo(*it, sizes);
}

TEST_CASE("mm: a replay takes the e-node the right-hand side put below its parent", "[extract]") {
    // With the lowerings in both directions (as rules/opencl.rules), B's tile copy
    // `MapLcl(1, MapLcl(0, copy))` and the result's `MapSeq(copy4)` are equal maps of one class,
    // both the rule's e-nodes: below B's `MapLcl(1, ...)` only the recorded order says which one
    // the right-hand side put there. Each draw shuffles the edges, so every seed must give the
    // local copy.
    arith::Bindings sizes{{"M", 32}, {"N", 32}, {"K", 16}};
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        INFO("seed " << seed);
        Replay r;
        replay(r, "gpu.rules", "macro-mm-local-tiles", sizes, "mm", seed, "lower_both.rules");
        size_t guided = 0;
        for (const Candidate& c : r.result.explored) {
            if (c.guided) {
                INFO(c.text);
                ++guided;
                CHECK(contains(c.text,
                               "toLocal(MapLcl(MapLcl(MapSeq(VectorizeUserFun(id, 4)), 0), 1))"));
            }
        }
        CHECK(guided > 0);
    }
}

TEST_CASE("a guided replay goes down to its guide's root, not to a shared inner e-node",
          "[extract]") {
    // x's row reduction applies the same `ReduceSeq(add)` class as the guide's (y's): a way down
    // to it replays that e-node without the guide's root, and its hits would count beside the
    // guide's own.
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("two_row_sums.lift"), {"lower.rules"}, 3);
    auto hits = [&](bool towardsRoot) {
        ExtractResult result = replaySquares(gr, false, towardsRoot);
        INFO(test::listing(result));
        std::set<size_t> out;
        for (const Candidate& c : result.explored) {
            if (c.guided) {
                out.insert(c.guideHits);
            }
        }
        return out;
    };
    CHECK(hits(true) == std::set<size_t>{2});
    // Without ExploreOptions::towardsRoot (macro rules' replays) x's reduction counts too.
    CHECK(hits(false).count(3));
}

TEST_CASE("a guided replay with thread maps above keeps them through the e-graph's cycles",
          "[extract]") {
    // cycles.rules puts `Id $ x` and `Join $ (Split(2) $ x)` into x's class: a way down may meet
    // a class again. The thread maps counted above the guide are reached only through states
    // nearer it; every replay runs the rows' reduction in a thread map and says so.
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("two_row_sums.lift"),
                            {"cycles.rules", "core.rules", "lower.rules"}, 4);
    ExtractResult result = replaySquares(gr, true);
    INFO(test::listing(result));
    size_t guided = 0;
    for (const Candidate& c : result.explored) {
        if (c.guided) {
            INFO(c.text);
            ++guided;
            CHECK(c.threadMaps >= 1);
            // y's part, `Join $ (M(fun(r => ReduceSeq(add) $ ...)) $ y)`, is the last join.
            size_t part = c.text.rfind("Join $ (");
            size_t fold = c.text.rfind("ReduceSeq(");
            REQUIRE((part != std::string::npos && fold != std::string::npos && part < fold));
            std::string above = c.text.substr(part, fold - part);
            CHECK((contains(above, "MapGlb(") || contains(above, "MapWrg(")));
        }
    }
    CHECK(guided > 0);
}

TEST_CASE("guided draws with thread maps above spread mm's dot products over work-items",
          "[extract]") {
    // The way down counts maps over work-items (MapGlb, MapLcl), not MapWrg, whose work-items
    // are its MapLcl's: `MapGlb(0)/MapGlb(1)` counts 2, `MapWrg/MapLcl` 1, `MapWrg(0)/MapWrg(1)`
    // none. Counting every thread map, all three tied at 2 and the draws took any of them.
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("mm.lift"), {"core.rules", "lower_both.rules"}, 3);
    std::optional<egraph::ENodeId> reduceSeq;
    std::optional<egraph::ENodeId> application;
    for (egraph::EClassId c : gr.g.classIds()) {
        for (egraph::ENodeId n : gr.g.eclass(c).nodes) {
            const egraph::ENode& node = gr.g.node(n);
            if (node.op == lift::Op::ReduceSeq) {
                reduceSeq = n;
            }
            if (node.op == lift::Op::Apply && node.children.size() == 3 &&
                gr.g.eclass(node.children[0]).mayHold(lift::Op::ReduceSeq)) {
                application = n;
            }
        }
    }
    REQUIRE((reduceSeq && application));
    ExtractOptions opt =
        test::guidedOptions({{"M", 16}, {"N", 16}, {"K", 16}}, {*reduceSeq, *application});
    opt.explore.threadMapsAbove = true;
    opt.explore.towardsRoot = true;
    ExtractResult result = test::extractMain(gr, opt);
    INFO(test::listing(result));
    size_t guided = 0;
    for (const Candidate& c : result.explored) {
        if (c.guided) {
            INFO(c.text);
            ++guided;
            CHECK(c.threadMaps == 2);
            CHECK(contains(c.text, "MapGlb("));
            CHECK_FALSE(contains(c.text, "MapWrg("));
        }
    }
    CHECK(guided > 1);
}
