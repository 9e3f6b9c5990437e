// `egopt prove` finds the catalogue proofs (docs/rules.md, "Proofs") from the command line:
// both programs in one e-graph, saturation until the roots meet, and the derivation printed
// from A to B with a rule named at every step.
#include "../egraph/cli_helper.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/lift/frontend.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

using namespace egopt;

namespace {

std::string source(const std::string& path) {
    return std::string(EGOPT_SOURCE_DIR) + "/" + path;
}

struct Derivation {
    std::vector<std::string> terms; // A, then the term after each step
    std::vector<std::string> rules;
};

// Reads "equal\n  A\n= by r1\n  T1\n..." from prove's output.
Derivation parse(const std::string& out) {
    Derivation d;
    std::istringstream in(out.substr(out.find("\nequal\n") + 7));
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("  ")) {
            d.terms.push_back(line.substr(2));
        } else if (line.starts_with("= by ")) {
            d.rules.push_back(line.substr(5));
        }
    }
    return d;
}

// The terms prove prints first and last: A and B as inserted, both named with A's parameters.
std::pair<std::string, std::string> printedEnds(const std::string& a, const std::string& b) {
    egraph::EGraph g;
    g.explanations = true;
    lift::Program pa = lift::parseFile(a);
    lift::Program pb = lift::parseFile(b);
    egraph::Inserted ia = egraph::insertProgram(g, pa);
    egraph::Inserted ib = egraph::insertProgram(g, pb);
    const auto& names = ia.signature.names;
    egraph::RuleNames none; // a term explained with itself takes no step
    return {egraph::explain(g, none, ia.root, ia.root, names).start,
            egraph::explain(g, none, ib.root, ib.root, names).start};
}

Derivation checkProof(const std::string& a, const std::string& b, const std::string& rules) {
    auto r = test::egopt("prove " + source(a) + " " + source(b) + " --rules " + source(rules));
    INFO(r.out << r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("saturation: goal reached") != std::string::npos);
    Derivation d = parse(r.out);
    REQUIRE(d.rules.size() + 1 == d.terms.size());
    CHECK_FALSE(d.rules.empty());
    for (const auto& rule : d.rules) {
        CHECK_FALSE(rule.empty());
    }
    auto [first, last] = printedEnds(source(a), source(b));
    CHECK(d.terms.front() == first);
    CHECK(d.terms.back() == last);
    return d;
}

} // namespace

TEST_CASE("egopt prove: asum equals the fused form of ICFP'15 Fig. 10 (8)", "[rules]") {
    checkProof("examples/asum.lift", "tests/rules/targets/asum_fused.lift", "rules/default.rules");
}

TEST_CASE("egopt prove: asum equals asum_gpu followed by a final reduction", "[rules]") {
    checkProof("examples/asum.lift", "tests/rules/targets/asum_gpu_final.lift",
               "tests/rules/targets/lift.rules");
}

TEST_CASE("egopt prove: dot equals partial_dot followed by a final reduction", "[rules]") {
    checkProof("examples/dot.lift", "tests/rules/targets/partial_dot_final.lift",
               "tests/rules/targets/lift.rules");
}

TEST_CASE("egopt prove: gemv equals one work-group per row with a local reduction", "[rules]") {
    checkProof("examples/gemv.lift", "tests/rules/targets/gemv_wrg_row.lift",
               "tests/rules/targets/lift.rules");
}

TEST_CASE("egopt prove: mm equals its 2D-tiled form with K split into blocks", "[rules]") {
    checkProof("examples/mm.lift", "tests/rules/targets/mm_tiled.lift", "rules/tiling.rules");
}

TEST_CASE("egopt prove: mm equals the tiled form with the tile of B in local memory", "[rules]") {
    checkProof("examples/mm.lift", "tests/rules/targets/mm_local_b.lift", "rules/tiling.rules");
}

// The local tiles' float4 folds (macro-mm-local-tiles) are the product's scalar folds lane by
// lane: lanes-reduce-w4 takes the 4 lane folds to one float4 fold over the zip of A's scalars and
// B's float4s, which map-pair-zip writes as the tiles write it, one map over the pieces.
TEST_CASE("egopt prove: a float4 fold over pieces of A and B is four lane folds", "[rules]") {
    Derivation d =
        checkProof("tests/rules/targets/lanes_pieces.lift",
                   "tests/rules/targets/lanes_pieces_float4.lift", "rules/equalities.rules");
    CHECK(d.rules == std::vector<std::string>{"lanes-reduce-w4", "map-pair-zip (reversed)"});
}
