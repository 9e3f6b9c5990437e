// The goal growth's 2-D register blocks without macros (docs/search-goal.md, "Vector
// accumulators: 2-D register blocks"): R rows by one float4 column in R float4 accumulators,
// grown in runs of their own beside the blocks of scalars.
#include "goal_fixtures.hpp"

#include <catch2/catch.hpp>
#include <regex>

using namespace egopt;
using namespace egopt::pipeline;
using namespace egopt::pipeline::goal_fixtures;

TEST_CASE("the goal growth's 2-D blocks leave the other guides as they were", "[pipeline]") {
    // mm with sizes that 16 divides: after the growth's other runs, the 2-D blocks' runs
    // (growVectorBlocks) follow. The pipeline's goal guides are the shared reductions from before
    // those runs, which the runs leave as they were; the blocks have guides of their own.
    auto s = saturated("mm", 6, 4, true, 16);
    SaturationOptions o;
    o.noMacros = true;
    std::vector<GrowthGoal> runs;
    std::vector<std::vector<egraph::ENodeId>> guidesBefore;
    egraph::ENodeId from =
        growTowardsGoal(s->g, s->ctx, resolvePhases(o, true, true), 2,
                        [&](GrowthGoal goal, const std::vector<egraph::Rule>&, GrowthResult&) {
                            runs.push_back(goal);
                            if (goal == GrowthGoal::Local) {
                                guidesBefore = sharedReductions(s->g, 4, true);
                            }
                        });
    auto local = std::find(runs.begin(), runs.end(), GrowthGoal::Local);
    REQUIRE(local != runs.end());
    CHECK(std::vector<GrowthGoal>(local + 1, runs.end()) == kBlockRuns);
    CHECK(from < s->g.numNodeIds());
    REQUIRE_FALSE(guidesBefore.empty());
    CHECK(sharedReductions(s->g, 4, true, {0, from}) == guidesBefore);
    CHECK_FALSE(vectorBlocks(s->g, 2, from).empty());
}

TEST_CASE("the goal growth's 2-D block runs make R x 4 blocks from the vector run's maps",
          "[pipeline]") {
    // After the vector run (its sharing maps of vector reductions, no shared reduction yet), the
    // 2-D blocks' runs interchange the maps (the rows inside a map over B's float4 columns),
    // block, fuse and parallelise them: R x 4 blocks, bounded and fused, whose replays keep R
    // float4 accumulators in private memory inside thread maps. (In the pipeline they run after
    // the growth's other runs, whose blocks of scalars keep their guides: the test above.)
    auto s = saturated("mm", 6, 4, true, 16);
    SaturationOptions o;
    o.noMacros = true;
    std::vector<Phase> phases = resolvePhases(o, true, true);
    egraph::Library lib = egraph::Library::standard();
    growGoals(s->g, s->ctx, goalGrowthRules(phases, lib, GrowthGoal::Vector), GrowthLimits{}, 2,
              GrowthGoal::Vector);
    std::vector<egraph::EClassId> vectorMaps = s->g.classIds();
    std::erase_if(vectorMaps, [&](egraph::EClassId c) { return !isVectorSharingMap(s->g, c); });
    REQUIRE_FALSE(vectorMaps.empty());
    CHECK(vectorBlocks(s->g, 2, 0).empty());

    std::vector<GrowthGoal> runs;
    auto ran = [&](GrowthGoal goal, const std::vector<egraph::Rule>& rules, GrowthResult& grown) {
        CHECK_FALSE(rules.empty());
        CHECK(grown.added <= GrowthLimits{}.nodes + 100);
        runs.push_back(goal);
    };
    interchangeVectorMaps(s->g, s->ctx, phases, 2, ran, vectorMaps);
    CHECK(vectorBlocks(s->g, 2, 0).empty());
    egraph::ENodeId from = growVectorBlocks(s->g, s->ctx, phases, 2, ran);
    REQUIRE_FALSE(runs.empty());
    CHECK(runs.front() == GrowthGoal::Interchange);
    runs.erase(runs.begin());
    CHECK(runs == kBlockRuns);
    auto blocks = vectorBlocks(s->g, 2, from);
    REQUIRE(blocks.size() == 2);
    for (const auto& block : blocks) {
        CHECK(block.back() >= from);
        CHECK(boundedReduction(s->g, block.back()));
    }
    CHECK(twoDimensionalBlock(s->g, blocks.front().back()));
    CHECK(fusedReduction(s->g, blocks.front().back()));
    auto replays = guidedReplays(*s, blocks.front(), {{"M", 64}, {"N", 64}, {"K", 64}}, true);
    REQUIRE_FALSE(replays.empty());
    bool whole = false;
    bool columnsInDimension0 = false;
    // The fold's data pairs the rows with the float4 column as views, never through a map that
    // writes the pairs out (`MapSeq(fun(r => Zip $ (r, v)))`).
    const std::regex written(R"((MapSeq|MapGlb|MapWrg|MapLcl)\(fun\(x\d+ => Zip \$)");
    for (const extract::Candidate& c : replays) {
        INFO(c.text);
        CHECK(loopInThreadMap(c));
        CHECK_FALSE(std::regex_search(c.text, written));
        size_t fold = c.text.find("ReduceSeq(fun((");
        bool all = c.guideHits == blocks.front().size() && fold != std::string::npos &&
                   c.text.find("VectorizeUserFun(mult, 4)", fold) != std::string::npos &&
                   c.text.find("toPrivate(MapSeq(fun(") != std::string::npos;
        whole |= all;
        // Work-items side by side in dimension 0 over B's float4 columns (their loads coalesce).
        columnsInDimension0 |=
            all && c.text.find("), 0) $ (Transpose $ (Map(asVector(4)) $ b))") != std::string::npos;
    }
    CHECK(whole);
    CHECK(columnsInDimension0);
}
