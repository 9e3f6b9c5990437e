// The search's shape goal without macros (docs/search-goal.md, "A shape goal"): maps of reductions
// that share an operand, the shared reductions the primitive rules write for them, the focus
// around those and the guided draws that replay them.
#include "goal_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::pipeline;
using namespace egopt::pipeline::goal_fixtures;

TEST_CASE("a map of reductions sharing an operand becomes shared reductions without macros",
          "[pipeline]") {
    // gemv: every row's reduction reads the vector x again (mm: B's columns, A's row).
    // The pipeline turns the goal on for programs written with a sharing map (mm), not gemv,
    // whose rows map a reduction's result.
    for (const char* name : {"mm", "gemv"}) {
        lift::Program p = lift::parseFile(example(name));
        egraph::EGraph g;
        egraph::insertProgram(g, p);
        CHECK(hasSharingMap(g) == (std::string(name) == "mm"));
    }
    auto s = saturated("gemv", 5, 1, true);
    REQUIRE(s->phases.size() == 2);
    CHECK(loadsFile(s->phases[0], "flattening.rules"));
    CHECK(loadsFile(s->phases[0], "equalities.rules"));
    CHECK_FALSE(loadsFile(s->phases[1], "equalities.rules"));
    std::vector<egraph::EClassId> classes = s->g.classIds();
    CHECK(std::any_of(classes.begin(), classes.end(),
                      [&](egraph::EClassId c) { return isSharingMap(s->g, c); }));
    // flat-distribute-reduce and map-reduce-interchange: one reduction with an array of
    // accumulators stands for the rows' reductions.
    auto goals = sharedReductions(s->g, 4);
    REQUIRE_FALSE(goals.empty());
    for (const auto& goal : goals) {
        // [toPrivate, its application,] reduction, application.
        REQUIRE((goal.size() == 2 || goal.size() == 4));
        CHECK(s->g.node(goal.back()).op == egraph::Op::Apply);
        if (goal.size() == 4) {
            CHECK(s->g.node(goal[0]).op == egraph::Op::ToPrivate);
        }
        egraph::Op op = s->g.node(goal[goal.size() - 2]).op;
        CHECK((op == egraph::Op::Reduce || op == egraph::Op::ReduceSeq));
    }
    // The next stage's focus holds the classes below them, not the whole e-graph.
    std::vector<egraph::EClassId> region = goalRegion(s->g, goalRoots(s->g, 8), 2000);
    CHECK(std::find(region.begin(), region.end(), s->g.findConst(goals[0].back())) != region.end());
    CHECK(region.size() < s->g.numClasses());

    // A guided draw towards the newest one is a kernel with a shared reduction.
    auto replay = guidedReplay(*s, goals.front(), {{"M", 16}, {"N", 16}});
    REQUIRE(replay);
    INFO(replay->text);
    // The replay takes the goal's application (the class may hold other ReduceSeq e-nodes of
    // equal functions than the guide's): a fold of a two-parameter step, from an array.
    CHECK(replay->guideHits >= 1);
    CHECK(replay->text.find("ReduceSeq(fun((") != std::string::npos);
    CHECK(replay->text.find("=> 0.0f)) $ ") != std::string::npos);
}

TEST_CASE("partial reductions interchanged share no operand: no shape goal", "[pipeline]") {
    // asum's reduce-split chunks, interchanged by map-reduce-interchange, have array
    // accumulators too, but each chunk's reduction reads only its chunk.
    auto s = saturated("asum", 4, 1, true);
    CHECK(sharedReductions(s->g, 4).empty());
    // Without the flag the algorithmic phase does without flattening.rules and equalities.rules.
    CHECK_FALSE(loadsFile(saturated("asum", 1, 1, false)->phases[0], "flattening.rules"));
    std::vector<egraph::EClassId> classes = s->g.classIds();
    CHECK(std::none_of(classes.begin(), classes.end(),
                       [&](egraph::EClassId c) { return isSharingMap(s->g, c); }));
}

TEST_CASE("the goal growth fuses a shared reduction's operands into its loop", "[pipeline]") {
    // mm after the default phases without macros: shared reductions, none fused (the products
    // are computed before the loop). Two focused runs of the fusion steps (the pipeline's last
    // stage) fuse one: a fold over the zip of A's row with B's rows, the products in its step.
    auto s = saturated("mm", 6, 4, true);
    auto goals = sharedReductions(s->g, 8);
    REQUIRE_FALSE(goals.empty());
    CHECK(std::none_of(goals.begin(), goals.end(),
                       [&](const auto& goal) { return fusedReduction(s->g, goal.back()); }));
    SaturationOptions o;
    o.noMacros = true;
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rules = goalGrowthRules(resolvePhases(o, true, true), lib);
    for (const egraph::Rule& r : rules) {
        CHECK(r.generators.empty());
        CHECK(r.name.find("lower-glb") == std::string::npos);
    }
    size_t fused = 0;
    for (int round = 0; round < 2; ++round) {
        GrowthResult grown = growGoals(s->g, s->ctx, rules, GrowthLimits{}, 2);
        CHECK(grown.added <= GrowthLimits{}.nodes + 100);
        fused = grown.fused;
    }
    CHECK(fused >= 1);
    goals = sharedReductions(s->g, 8);
    REQUIRE(fusedReduction(s->g, goals.front().back())); // the fused ones first

    // Its guided replay is the fused kernel: the products in the fold's step, none before it.
    auto replay = guidedReplay(*s, goals.front(), {{"M", 64}, {"N", 64}, {"K", 64}});
    REQUIRE(replay);
    INFO(replay->text);
    size_t fold = replay->text.find("ReduceSeq(fun((");
    REQUIRE(fold != std::string::npos);
    size_t product = replay->text.find("mult");
    REQUIRE(product != std::string::npos);
    CHECK(product > fold); // inside the fold's step
    CHECK(replay->text.find("mult", product + 1) == std::string::npos);
}

TEST_CASE("the goal growth blocks, fuses and parallelises a shared reduction", "[pipeline]") {
    // mm after the default phases without macros has no shared reduction with a bounded block
    // of accumulators. The growth rounds block a sharing map (goal-blocking-steps), fuse the
    // block's loop (goal-fusion-steps) and lower the maps above it (goal-parallel-steps).
    auto s = saturated("mm", 6, 4, true);
    auto before = sharedReductions(s->g, 8);
    CHECK(std::none_of(before.begin(), before.end(),
                       [&](const auto& goal) { return boundedReduction(s->g, goal.back()); }));
    std::vector<GrowthGoal> runs = grow(*s);
    REQUIRE(runs.size() >= 2);
    // The vector run first: without size assumptions no column splits by 4, so no blocking or
    // fusion run of vectors follows it.
    REQUIRE(runs.size() >= 3);
    CHECK(runs[0] == GrowthGoal::Vector);
    CHECK(runs[1] == GrowthGoal::Bounded);
    // The parallel run, then the local run last (its own test below).
    CHECK(runs[runs.size() - 2] == GrowthGoal::Parallel);
    CHECK(runs.back() == GrowthGoal::Local);
    auto goals = sharedReductions(s->g, 8);
    REQUIRE_FALSE(goals.empty());
    // The first is the furthest along: a bounded block, its products in its loop (no vector
    // accumulators: without size assumptions no column splits by 4).
    CHECK(boundedReduction(s->g, goals.front().back()));
    CHECK(fusedReduction(s->g, goals.front().back()));
    CHECK(goalProperties(s->g, goals.front().back()) == kGoalProperties - 1);
    // A bounded and fused one adds the products in the one map over the accumulators (its
    // step fully fused; the vector run's rewrites change which of them is the newest).
    CHECK(std::any_of(goals.begin(), goals.end(), [&](const auto& goal) {
        return boundedReduction(s->g, goal.back()) && fusedReduction(s->g, goal.back()) &&
               fusedStep(s->g, goal.back());
    }));

    // Its replay with thread maps above the guide: the loop inside a thread map.
    auto replay = guidedReplay(*s, goals.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, true);
    REQUIRE(replay);
    INFO(replay->text);
    CHECK(loopInThreadMap(*replay));
    // So is every replay: each way down follows the thread maps it counted, only through states
    // nearer the guide (the e-graph's cycles through views would end it in a state on its path).
    auto all = guidedReplays(*s, goals.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, true);
    CHECK(all.size() >= 4);
    for (const extract::Candidate& c : all) {
        INFO(c.text);
        CHECK(loopInThreadMap(c));
    }
    // Its accumulators in private memory (the guide's toPrivate e-node).
    CHECK(replay->text.find("toPrivate(MapSeq(fun(") != std::string::npos);
    // Without the preference the same guide's replay need not be parallel (the way down is
    // drawn): the option is what puts the thread maps there.
    auto plain = guidedReplay(*s, goals.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, false);
    REQUIRE(plain);
    INFO(plain->text);
    CHECK(plain->text != replay->text);
}

TEST_CASE("a shared reduction over mapped view lambdas is fused", "[pipeline]") {
    // The fusion steps leave the data of a fused shared reduction as views through lambdas that
    // compute nothing (mm's columns zipped with the row: `Map(fun(c => Zip $ (row, c)))`); the
    // products are then computed in the step. Mapping a lambda that multiplies is not fused.
    auto application = [](egraph::EGraph& g, const std::string& data) {
        lift::Program p = lift::parseProgram(
            "val N = SizeVar(\"N\")\nval K = SizeVar(\"K\")\n"
            "fun(ArrayType(Float, K), ArrayType(ArrayType(Float, K), N), (row, cols) =>\n"
            "  ReduceSeq(fun((acc, q) => Map(fun(p => add(p._0, mult(p._1._0, p._1._1)))) $ "
            "Zip(acc, q)), Map(fun(c => 0.0f)) $ cols) o Transpose() o " +
                data + " $ cols)",
            "shared.lift");
        egraph::EClassId root = egraph::insertProgram(g, p).root;
        for (egraph::ENodeId n : g.eclass(root).nodes) {
            if (g.node(n).op == egraph::Op::Apply && g.node(n).children.size() == 3) {
                return n;
            }
        }
        FAIL("no reduction applied at the root");
        return egraph::ENodeId{};
    };
    egraph::EGraph views;
    egraph::ENodeId fused = application(views, "Map(fun(c => Zip(row, c)))");
    CHECK(fusedReduction(views, fused));
    egraph::EGraph products;
    egraph::ENodeId unfused =
        application(products, "Map(fun(c => Zip(row, Map(fun(x => mult(x, x))) $ c)))");
    CHECK_FALSE(fusedReduction(products, unfused));
}

TEST_CASE("a shared reduction's private accumulators are zeros over a view", "[pipeline]") {
    // The accumulators' class holds the zeros mapped over the columns and, equal to them, the
    // zeros mapped over the columns' products (`Map(fun(x => 0.0f)) $ (Map(g) $ xs)` is
    // `Map(fun(x => 0.0f)) $ xs`). The guide lists the toPrivate e-node over the columns: a
    // replay through the other computes every product before the loop.
    const std::string header = "val N = SizeVar(\"N\")\nval K = SizeVar(\"K\")\n"
                               "fun(ArrayType(Float, K), ArrayType(ArrayType(Float, K), N), "
                               "(row, cols) => ";
    auto insert = [&](egraph::EGraph& g, const std::string& body) {
        lift::Program p = lift::parseProgram(header + body + ")", "shared.lift");
        return egraph::insertProgram(g, p).root;
    };
    egraph::EGraph g;
    const std::string init = "Map(fun(c => 0.0f)) $ cols";
    egraph::EClassId sharing =
        insert(g, "Map(fun(c => ReduceSeq(fun((acc, p) => add(acc, mult(p._0, p._1))), 0.0f) $ "
                  "Zip(row, c))) $ cols");
    egraph::EClassId shared = insert(
        g,
        "Transpose() o ReduceSeq(fun((acc, q) => Map(fun(p => add(p._0, mult(p._1._0, p._1._1)))) "
        "$ Zip(acc, q)), " +
            init + ") o Transpose() o Map(fun(c => Zip(row, c))) $ cols");
    egraph::EClassId zeros = insert(g, init);
    egraph::EClassId overProducts =
        insert(g, "toPrivate(Map(fun(c => 0.0f))) o Map(fun(c => Map(fun(x => mult(x, x))) $ c)) "
                  "$ cols");
    egraph::EClassId overColumns = insert(g, "toPrivate(Map(fun(c => 0.0f))) $ cols");
    g.merge(sharing, shared, {});
    g.merge(zeros, overProducts, {});
    g.rebuild();
    auto goals = sharedReductions(g, 4);
    REQUIRE(goals.size() == 1);
    // Without the member over the columns the guide has no private accumulators.
    CHECK(goals.front().size() == 2);
    g.merge(zeros, overColumns, {});
    g.rebuild();
    goals = sharedReductions(g, 4);
    REQUIRE(goals.size() == 1);
    REQUIRE(goals.front().size() == 4);
    const egraph::ENode& accumulators = g.node(goals.front()[1]);
    CHECK(g.findConst(accumulators.children[1]) == g.findConst(insert(g, "cols")));
}

TEST_CASE("the goal growth reaches a block of vector accumulators", "[pipeline]") {
    // mm with sizes that 16 divides (the pipeline's size assumptions for 64^3): the vector run
    // reads B's columns as float4 columns and writes sharing maps of vector reductions, which the
    // blocking and fusion runs make a block of R rows of A by one float4 column of B: R private
    // float4 accumulators, each step one float4 of B for the R broadcast elements of A
    // (macro-register-block-w8x4's block, from primitive rules).
    auto s = saturated("mm", 6, 4, true, 16);
    std::vector<GrowthGoal> runs = grow(*s);
    REQUIRE(runs.size() >= 4);
    CHECK(runs[0] == GrowthGoal::Vector);
    CHECK(runs[1] == GrowthGoal::Interchange); // the 2-D blocks' (their tests below)
    CHECK(runs[2] == GrowthGoal::Bounded);
    CHECK(runs[3] == GrowthGoal::Fused);
    // The parallel run, then the local run (its own test below), then the 2-D blocks' own runs
    // (their test below).
    auto local = std::find(runs.begin(), runs.end(), GrowthGoal::Local);
    REQUIRE(local != runs.end());
    CHECK(*(local - 1) == GrowthGoal::Parallel);
    CHECK(std::vector<GrowthGoal>(local + 1, runs.end()) == kBlockRuns);
    std::vector<egraph::EClassId> classes = s->g.classIds();
    CHECK(std::any_of(classes.begin(), classes.end(),
                      [&](egraph::EClassId c) { return isVectorSharingMap(s->g, c); }));
    // Exploration's goal guides (the shared reductions from before the 2-D blocks' runs): the
    // first has every goal property.
    auto goals = sharedReductions(s->g, 8, true, {0, s->blocksFrom});
    REQUIRE_FALSE(goals.empty());
    CHECK(vectorReduction(s->g, goals.front().back()));
    CHECK(goalProperties(s->g, goals.front().back()) == kGoalProperties);
    REQUIRE(goals.front().size() == 4); // private accumulators

    // Its replay: inside thread maps, a fold of float4 accumulators over B read as float4s.
    auto replay = guidedReplay(*s, goals.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, true);
    REQUIRE(replay);
    INFO(replay->text);
    CHECK(loopInThreadMap(*replay));
    CHECK(replay->text.find("Map(asVector(4)) $ b") != std::string::npos);
    size_t fold = replay->text.find("ReduceSeq(fun((");
    REQUIRE(fold != std::string::npos);
    CHECK(replay->text.find("VectorizeUserFun(add, 4)", fold) != std::string::npos);
    CHECK(replay->text.find("VectorizeUserFun(mult, 4)", fold) != std::string::npos);
    CHECK(replay->text.find("toPrivate(MapSeq(fun(") != std::string::npos);
}

TEST_CASE("the goal growth's local run stages a shared block in local memory", "[pipeline]") {
    // mm after the default phases has no local copy. The growth's last run (goal-local-steps,
    // staging.rules) stages the blocks of rows that the maps above the grown loops share: each
    // becomes a local tile guide, whose replay copies the block once per work-group (toLocal with
    // a MapLcl) and reads it in the work-group's map of the block's readers.
    auto s = saturated("mm", 6, 4, true);
    CHECK(localTiles(s->g, s->ins.root, 8, {}).empty());
    std::vector<GrowthGoal> runs = grow(*s);
    REQUIRE_FALSE(runs.empty());
    CHECK(runs.back() == GrowthGoal::Local);
    auto tiles = localTiles(s->g, s->ins.root, 8, {});
    REQUIRE_FALSE(tiles.empty());
    auto replay = guidedReplay(*s, tiles.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, true);
    REQUIRE(replay);
    INFO(replay->text);
    size_t wrg = replay->text.find("MapWrg(fun(");
    size_t copy = replay->text.find("toLocal(MapLcl(");
    REQUIRE(wrg != std::string::npos);
    CHECK(copy > wrg);
    CHECK(copy != std::string::npos);
}
