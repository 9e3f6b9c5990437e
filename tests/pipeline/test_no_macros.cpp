// --no-macros (docs/search.md): the saturation phases load the primitive catalogue only, and the
// report lists the rules each phase loaded.
#include "../../src/pipeline/stages.hpp"
#include "egopt/pipeline/report.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace egopt;
using namespace egopt::pipeline;

namespace {

// An example program for a GPU target on the default phases, each cut to `iterations`.
Options gpuTarget(const std::string& name, arith::Bindings sizes, size_t iterations) {
    Options o;
    o.file = std::string(EGOPT_SHARED_DIR) + "/examples/" + name + ".lift";
    o.sizes = std::move(sizes);
    o.saturation.phases = defaultPhases(true);
    for (auto& p : o.saturation.phases) {
        p.limits.iterations = iterations;
    }
    o.search.target = ExtractTarget::Gpu;
    return o;
}

// `o` without macros, with no exploration draws and one timing run per configuration within
// `tuneBudget` seconds: the search's own candidates, cheaply confirmed.
Options withoutMacros(Options o, double tuneBudget) {
    o.saturation.noMacros = true;
    o.search.draws = 0;
    o.tune.budget = tuneBudget;
    o.tune.runs = 1;
    return o;
}

// The phases' loaded rules of asum for a GPU target, with a time budget spent in saturation
// (no device run).
std::vector<PhaseResult> phasesOf(bool noMacros, std::string& reportText) {
    Options o = gpuTarget("asum", {{"N", 1024}}, 1);
    o.search.candidates = 1;
    o.search.stages = 1; // the phases of one saturation (later stages: below)
    o.timeBudget = 1e-3;
    o.saturation.noMacros = noMacros;
    Result r = run(o);
    reportText = reportJson(r);
    return r.phases;
}

bool loads(const std::vector<PhaseResult>& phases, const std::string& rule) {
    return std::any_of(phases.begin(), phases.end(), [&](const PhaseResult& p) {
        return std::find(p.rules.begin(), p.rules.end(), rule) != p.rules.end();
    });
}

} // namespace

TEST_CASE("without macros, saturation uses the primitive rules and reports the rules loaded",
          "[pipeline]") {
    std::string withReport, withoutReport;
    std::vector<PhaseResult> with = phasesOf(false, withReport);
    std::vector<PhaseResult> without = phasesOf(true, withoutReport);
    REQUIRE(with.size() == 2);
    REQUIRE(without.size() == 2);
    for (const char* macro : {"macro-reduce-gpu-w4", "macro-reduce-wrg-w4", "register-block"}) {
        INFO(macro);
        CHECK(loads(with, macro));
        CHECK_FALSE(loads(without, macro));
    }
    for (const char* primitive : {"reduce-split", "lower-wrg0", "vectorize-reduce-w4"}) {
        INFO(primitive);
        CHECK(loads(without, primitive));
    }
    // The composites of opencl.rules and gpu.rules left out, workgroups.rules' 2 primitive
    // steps added (the work-group trees of gpu.rules' macros, docs/search.md) and
    // stencils.rules' 8 (a stencil's local tiles), also in the algorithmic phase (a 2-D or 3-D
    // tile is more algorithmic steps than the lowering phase's iterations hold).
    CHECK(without[1].rules.size() + 10 == with[1].rules.size() + 2 + 8);
    CHECK(loads(without, "reduce-one-chunk"));
    CHECK_FALSE(loads(with, "reduce-chunks-group"));
    CHECK(loads(without, "stencil-tile"));
    for (const char* step : {"stencil-tile", "stencil-tile-rows", "stencil-column-tiles",
                             "stencil-planes", "stencil-window-columns"}) {
        INFO(step);
        const auto& algorithmic = without[0].rules;
        CHECK(std::find(algorithmic.begin(), algorithmic.end(), step) != algorithmic.end());
    }
    CHECK_FALSE(loads(with, "stencil-tile-local"));
    nlohmann::json j = nlohmann::json::parse(withoutReport);
    CHECK(j["rule_phases"][1]["rules_loaded"].size() == without[1].rules.size());
}

TEST_CASE("a second search stage rewrites around the beam in phases of its own", "[pipeline]") {
    Options o = gpuTarget("asum", {{"N", 4096}}, 2);
    o.saturation.noMacros = true;
    o.search.candidates = 3;
    o.search.stages = 2;
    o.search.beam = 2;
    o.tune.budget = 4;
    o.tune.runs = 2;
    Result r = run(o);
    REQUIRE(r.best);
    CHECK(r.searchStages == 2);
    REQUIRE(r.phases.size() == 4);
    CHECK(r.phases[2].name == "stage 2 algorithmic");
    CHECK(r.phases[3].name == "stage 2 lowering");
    // The second stage added e-nodes around the beam (its limits count what it adds).
    CHECK(r.phases[3].nodes > r.phases[1].nodes);
    nlohmann::json j = nlohmann::json::parse(reportJson(r));
    CHECK(j["egraph"]["search_stages"] == 2);
    CHECK(j["rule_phases"].size() == 4);
}

TEST_CASE("without macros the search runs its default stages", "[pipeline]") {
    Options o = withoutMacros(gpuTarget("scal", {{"N", 1024}}, 1), 1);
    o.search.candidates = 1;
    Result r = run(o);
    CHECK(r.searchStages == kNoMacroStages);
    o.saturation.noMacros = false;
    CHECK(run(o).searchStages == 1);
}

TEST_CASE("no search stage starts after extraction's share of the time budget", "[pipeline]") {
    // A budget of 50 ms: loading, saturating and extracting stage 1 take longer than its 40 %
    // share for extraction, so stage 2 would take tuning's time and does not start.
    Options o = withoutMacros(gpuTarget("scal", {{"N", 1024}}, 1), 1);
    o.search.candidates = 1;
    o.timeBudget = 0.05;
    Result r = run(o);
    CHECK(r.searchStages == 1);
    CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
        return n.find("search stopped after stage 1 of") != std::string::npos;
    }));
}

TEST_CASE("the beam's shapes ignore lowering choices, not algorithmic ones", "[pipeline]") {
    std::string glb = "ReduceSeq(add) $ (0.0f, Join $ (MapGlb(fun(x1 => ReduceSeq(add) $ (0.0f, "
                      "x1)), 0) $ (Split(v__1) $ xs)))";
    std::string wrg = "ReduceSeq(add) $ (0.0f, Join $ (MapWrg(fun(x1 => ReduceSeq(add) $ (0.0f, "
                      "x1)), 1) $ (Split(v__1) $ xs)))";
    std::string strided = "ReduceSeq(add) $ (0.0f, Join $ (MapGlb(fun(x1 => ReduceSeq(add) $ "
                          "(0.0f, x1)), 0) $ (Split(v__1) $ (Gather(ReorderWithStride(v__2)) $ "
                          "xs))))";
    CHECK(shapeOf(glb) == shapeOf(wrg));
    CHECK(shapeOf(glb) != shapeOf(strided));
    CHECK(shapeOf("VectorizeUserFun(add, 16) $ x") == "VectorizeUserFun(add, 16) $ x");
}

TEST_CASE("without macros, a reduction's last level is one work-group folding in local memory",
          "[pipeline]") {
    Options o = withoutMacros(gpuTarget("asum", {{"N", 16384}}, 6), 2);
    o.saturation.phases[1].limits.iterations = 4; // the default phases' own limits
    o.search.stages = 1;
    Result r = run(o);
    // reduce-one-chunk and reduce-chunks-group (workgroups.rules): the whole tail in one MapWrg
    // over a split by the whole length, its MapLcl folding the partial results.
    auto oneGroupTail = [](const CandidateResult& c) {
        return c.text.rfind("Join $ (MapWrg(", 0) == 0 &&
               c.text.find("MapLcl(") != std::string::npos;
    };
    for (const CandidateResult& c : r.candidates) {
        UNSCOPED_INFO(c.text);
    }
    CHECK(std::any_of(r.candidates.begin(), r.candidates.end(), oneGroupTail));
    // Extraction refuses a MapLcl's private result as the array a work-group's fold reads.
    for (const extract::Rejection& rej : r.rejected) {
        INFO(rej.text);
        CHECK(rej.reason.find("private memory of a MapLcl") == std::string::npos);
    }
}
