// The rule catalogue (rules/*.rules, docs/rules.md) proves the ICFP'15 / CGO'17 derivations:
// asum and dot equal their hand-lowered partial reductions followed by a final reduction, mm its
// tiled forms (rules/tiling.rules), gemv its work-group-per-row form. Each proof inserts the
// program and the target (tests/rules/targets/), saturates with a rule set under the default
// limits, and checks that both roots share an e-class and that the derivation names the rules used.
// Hand-lowered targets are proved with the phase tests/rules/targets/lift.rules (algebra +
// lowerings read backwards).
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>

using namespace egopt;
using namespace egopt::egraph;

namespace {

// "default.rules" is rules/default.rules; a path with a slash is relative to the source tree.
std::string rulesFile(const std::string& name) {
    if (name.find('/') != std::string::npos) {
        return std::string(EGOPT_SOURCE_DIR) + "/" + name;
    }
    return std::string(EGOPT_SOURCE_DIR) + "/rules/" + name;
}

std::string example(const std::string& name) {
    return std::string(EGOPT_SHARED_DIR) + "/examples/" + name;
}

std::string target(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/rules/targets/" + name;
}

struct Proof {
    bool equal = false;
    Explanation explanation;
    RunReport report;
    size_t nodes = 0;
    size_t classes = 0;
    double seconds = 0;
    double explainSeconds = 0;
};

// Inserts both programs (so rules rewrite each towards the other), saturates under the default
// limits, and explains the equality if the roots meet.
// explain(): off where the engine's explanation of a deep proof does not finish in test time.
Proof prove(const std::string& source, const std::string& goal,
            const std::vector<std::string>& ruleFiles, bool withExplanation = true) {
    Library lib = Library::standard();
    std::vector<Rule> rules;
    for (const auto& f : ruleFiles) {
        auto more = rules::loadRules(rulesFile(f), lib);
        rules.insert(rules.end(), more.begin(), more.end());
    }
    lift::Program a = lift::parseFile(source);
    lift::Program b = lift::parseFile(goal);
    EGraph g;
    g.explanations = true;
    Inserted ia = insertProgram(g, a);
    Inserted ib = insertProgram(g, b);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    auto start = std::chrono::steady_clock::now();
    Proof p;
    runner.goal = [&](const EGraph& eg) { return eg.findConst(ia.root) == eg.findConst(ib.root); };
    p.report = runner.run();
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.nodes = g.numNodes();
    p.classes = g.numClasses();
    p.equal = g.find(ia.root) == g.find(ib.root);
    if (p.equal && withExplanation) {
        auto t = std::chrono::steady_clock::now();
        p.explanation = explain(g, ctx.rules, ia.root, ib.root, ia.signature.names);
        p.explainSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    if (p.equal && withExplanation) { // the derivation goes from A to B, a rule per step
        const auto& names = ia.signature.names;
        CHECK(p.explanation.start == explain(g, ctx.rules, ia.root, ia.root, names).start);
        REQUIRE_FALSE(p.explanation.steps.empty());
        CHECK(p.explanation.steps.back().term ==
              explain(g, ctx.rules, ib.root, ib.root, names).start);
        for (const auto& s : p.explanation.steps) {
            CHECK_FALSE(s.rule.empty());
        }
        // A derivation is a path through the proof forest, not a search: its length stays in
        // the tens of steps (its time is printed below; tests are not timed).
        CHECK(p.explanation.steps.size() < 500);
    }
    std::printf("%s = %s: %s, %zu e-nodes, %zu e-classes, %zu iterations, %.2f s (%s); "
                "derivation: %zu steps, %.2f s\n",
                source.c_str(), goal.c_str(), p.equal ? "equal" : "NOT proven", p.nodes, p.classes,
                p.report.iterations.size(), p.seconds,
                std::string(stopReasonName(p.report.stop)).c_str(), p.explanation.steps.size(),
                p.explainSeconds);
    if (std::getenv("EGOPT_SHOW_DERIVATION")) {
        std::printf("  %s\n", p.explanation.start.c_str());
        for (const auto& s : p.explanation.steps) {
            std::printf("= by %s%s\n  %s\n", s.rule.c_str(), s.forward ? "" : " (reversed)",
                        s.term.c_str());
        }
    }
    return p;
}

bool usesRule(const Proof& p, const std::string& rule) {
    for (const auto& s : p.explanation.steps) {
        if (s.rule == rule) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("asum equals its fused partial reduction (ICFP'15 Fig. 10 (8))", "[rules]") {
    Proof p = prove(example("asum.lift"), target("asum_fused.lift"), {"default.rules"});
    REQUIRE(p.equal);
    CHECK(usesRule(p, "reduce-partial-absorb"));
}

TEST_CASE("asum equals asum_gpu followed by a final reduction", "[rules]") {
    Proof p = prove(example("asum.lift"), target("asum_gpu_final.lift"),
                    {"tests/rules/targets/lift.rules"});
    REQUIRE(p.equal);
    CHECK(usesRule(p, "reduce-gather-elim"));
    CHECK(usesRule(p, "reduce-map-fission"));
}

TEST_CASE("dot equals partial_dot followed by a final reduction", "[rules]") {
    // Six nested halving steps: the forest path expands to ~23k raw steps; the shortest-path
    // explanation and loop removal bring it to ~50 (docs/egraph.md).
    Proof p = prove(example("dot.lift"), target("partial_dot_final.lift"),
                    {"tests/rules/targets/lift.rules"});
    REQUIRE(p.equal);
    CHECK(p.report.iterations.size() <= 15);
}

TEST_CASE("gemv equals one work-group per row with a local-memory reduction", "[rules]") {
    Proof p = prove(example("gemv.lift"), target("gemv_wrg_row.lift"),
                    {"tests/rules/targets/lift.rules"});
    REQUIRE(p.equal);
    CHECK(usesRule(p, "reduce-partial-absorb"));
}

TEST_CASE("mm equals its 2D-tiled form with the K reduction split into blocks", "[rules]") {
    Proof p = prove(example("mm.lift"), target("mm_tiled.lift"), {"tiling.rules"});
    REQUIRE(p.equal);
    CHECK(usesRule(p, "map-map-interchange"));
    CHECK(usesRule(p, "split-join-rev"));
}

TEST_CASE("mm equals the work-group tiled form with the tile of B in local memory", "[rules]") {
    Proof p = prove(example("mm.lift"), target("mm_local_b.lift"), {"tiling.rules"});
    REQUIRE(p.equal);
    CHECK(usesRule(p, "copy-elim")); // the local copy of the B tile
    CHECK(usesRule(p, "map-map-interchange"));
}

// Hidden: proves EGOPT_PROVE_A = EGOPT_PROVE_B with the rule files in EGOPT_PROVE_RULES (one).
TEST_CASE("prove two files given by the environment", "[.debug]") {
    const char* a = std::getenv("EGOPT_PROVE_A");
    const char* b = std::getenv("EGOPT_PROVE_B");
    const char* r = std::getenv("EGOPT_PROVE_RULES");
    if (a && b && r) {
        CHECK(prove(a, b, {r}).equal);
    }
}
