// Compositions in the rule language (docs/rules.md, "Compositions"): `by` clauses, composite
// rules, named sub-patterns (let), rule families, and derivations of composite rules from the
// primitive catalogue (`egopt rules derive`).
#include "../egraph/cli_helper.hpp"
#include "composition_helpers.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/composite.hpp"
#include "egopt/rules/derive.hpp"
#include "egopt/rules/loader.hpp"
#include "egopt/rules/soundness.hpp"
#include "parse_errors.hpp"
#include "sanitizer_run.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

using egopt::test::errorOf;

using namespace egopt;
using namespace egopt::test::compositions;

namespace {

// The same rules (structure, not source locations).
bool samePattern(const egraph::Pattern& a, const egraph::Pattern& b) {
    if (a.nodes.size() != b.nodes.size() || a.root != b.root) {
        return false;
    }
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const egraph::PatNode& x = a.nodes[i];
        const egraph::PatNode& y = b.nodes[i];
        if (x.kind != y.kind || x.op != y.op || x.ival != y.ival || x.children != y.children ||
            x.slot != y.slot || x.depth != y.depth || !(x.sizes == y.sizes)) {
            return false;
        }
    }
    return true;
}

void checkSameRules(const std::vector<egraph::Rule>& a, const std::vector<egraph::Rule>& b) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        INFO(a[i].name);
        CHECK(a[i].name == b[i].name);
        CHECK(samePattern(a[i].lhs, b[i].lhs));
        REQUIRE(a[i].rhs.has_value() == b[i].rhs.has_value());
        CHECK(samePattern(*a[i].rhs, *b[i].rhs));
        CHECK(a[i].conditions.size() == b[i].conditions.size());
        CHECK(a[i].vars.names == b[i].vars.names);
    }
}

} // namespace

TEST_CASE("a by clause states a rule's composition", "[rules]") {
    auto rs =
        parse("rule m: Map(?f) $ ?x => Join $ (MapWrg(0, MapLcl(0, ?f)) $ (Split(#n) $ ?x))\n"
              "    if isArray(?x) where #n = tuning(?x) by split-join; lower-wrg0; lower-lcl0\n"
              "rule p: Map(?f) $ ?x => MapSeq(?f) $ ?x\n");
    REQUIRE(rs.size() == 2);
    CHECK(rs[0].composition == std::vector<std::string>{"split-join", "lower-wrg0", "lower-lcl0"});
    CHECK(rs[1].composition.empty());
    CHECK(rules::isComposite(rs[0]));
    CHECK_FALSE(rules::isComposite(rs[1]));
    CHECK(rules::primitiveRules(rs).size() == 1);
    CHECK(contains(errorOf("rule t: Transpose $ (Transpose $ ?x) <=> Id $ ?x by t-t"),
                   "a composition ('by') has one direction"));
    CHECK(errorOf("rule t: Map(?f) $ ?x => MapSeq(?f) $ ?x by 3") ==
          "1:44: expected a rule name in 'by', found '3'");
}

TEST_CASE("a let names a sequence of steps in a by clause", "[rules]") {
    auto rs = parse("let lower = (lower-wrg0; lower-lcl0)\n"
                    "let all = (split-join; lower)\n"
                    "rule m: Map(?f) $ ?x => Join $ (MapWrg(0, MapLcl(0, ?f)) $ (Split(#n) $ ?x))\n"
                    "    if isArray(?x) where #n = tuning(?x) by all; lower-seq; lower\n");
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].composition == std::vector<std::string>{"split-join", "lower-wrg0", "lower-lcl0",
                                                        "lower-seq", "lower-wrg0", "lower-lcl0"});
    const std::string rule = "rule m: Map(?f) $ ?x => MapSeq(?f) $ ?x by ";
    CHECK(contains(errorOf("let p = (Map(?g))\n" + rule + "p\n"),
                   "2:44: let 'p' is used in 'by' but is no sequence of steps"));
    CHECK(contains(errorOf("let s(a) = (a; b)\n" + rule + "s\n"),
                   "2:44: let 's' takes arguments: a sequence of steps in 'by' takes none"));
}

// `Join $ (Split(1) $ (` n times around Map(?f) $ ?x: 2n + 1 operators.
std::string nested(size_t n) {
    std::string rhs = "Map(?f) $ ?x";
    for (size_t i = 0; i < n; ++i) {
        rhs = "Join $ (Split(1) $ (" + rhs + "))";
    }
    return "rule r: Map(?f) $ ?x => " + rhs + "\n";
}

TEST_CASE("a rule with more than 12 operators on a side is composite", "[rules]") {
    auto big = parse(nested(6)); // 13 operators
    CHECK(rules::operatorCount(*big[0].rhs) == 13);
    CHECK(rules::isComposite(big[0]));
    auto small = parse(nested(5)); // 11
    CHECK(rules::operatorCount(*small[0].rhs) == 11);
    CHECK_FALSE(rules::isComposite(small[0]));
}

TEST_CASE("lets name sub-patterns and clauses, families give one rule per value", "[rules]") {
    auto written = parse(
        "rule v-w2: Map(?f) $ ?x => AsScalar $ (Map(MapVec(?f)) $ (AsVector(2) $ ?x))\n"
        "    if vectorizable(?f, ?x), divides(2, ?x)\n"
        "rule v-w4: Map(?f) $ ?x => AsScalar $ (Map(MapVec(?f)) $ (AsVector(4) $ ?x))\n"
        "    if vectorizable(?f, ?x), divides(4, ?x)\n"
        "rule b: Map(fun(y => ?g $ y)) $ ?x => Join $ (Map(Map(fun(y => ?g $ y))) $ (Split(#n) $ "
        "?x))\n    if isArray(?x), isUserFun(?g) where #n = tuning(?x)\n");
    auto named =
        parse("let lanes(W, xs) = (Map(MapVec(?f)) $ (AsVector(W) $ xs))\n"
              "let ok(W) = (vectorizable(?f, ?x), divides(W, ?x))\n"
              "rule v-w(W in 2, 4): Map(?f) $ ?x => AsScalar $ lanes(W, ?x)\n"
              "    if ok(W)\n"
              "let g = (fun(y => ?g $ y))\n"
              "let blocks(f) = (Map(Map(f)) $ (Split(#n) $ ?x))\n"
              "let conditions = (isArray(?x), isUserFun(?g))\n"
              "rule b: Map(g) $ ?x => Join $ blocks(g) if conditions where #n = tuning(?x)\n");
    checkSameRules(written, named);
}

// macro-register-block-w(R in 4, 8)x(W in 4): a family instance's name followed by another
// family is instantiated again, one rule per combination of values.
TEST_CASE("a family's suffix may be a family: one rule per combination", "[rules]") {
    auto written =
        parse("rule r-w2x4: Map(?f) $ ?x => Join $ (Split(2) $ (AsScalar $ (AsVector(4) $ "
              "(Map(?f) $ ?x))))\n"
              "rule r-w8x4: Map(?f) $ ?x => Join $ (Split(8) $ (AsScalar $ (AsVector(4) $ "
              "(Map(?f) $ ?x))))\n");
    auto family =
        parse("rule r-w(R in 2, 8)x(W in 4): Map(?f) $ ?x => Join $ (Split(R) $ (AsScalar "
              "$ (AsVector(W) $ (Map(?f) $ ?x))))\n");
    checkSameRules(written, family); // names included
}

TEST_CASE("lets and families: errors have locations", "[rules]") {
    CHECK(contains(errorOf("let Map = (?x)\n"), "expected a new name after 'let'"));
    CHECK(contains(errorOf("let a-b = (?x)\nlet a-b = (?y)\n"), "let 'a-b' is defined twice"));
    CHECK(contains(errorOf("let f(x) = (Map(x))\nrule r: f(?g, ?h) $ ?y => ?y\n"),
                   "let 'f' takes 1 argument(s), found 2"));
    CHECK(contains(errorOf("let f = Map(?g)\n"), "expected '(' to start a let's body"));
    CHECK(contains(errorOf("let f = (Map(?g)\n"), "unbalanced parentheses"));
    CHECK(contains(errorOf("rule v-w(W in 2, x): Map(?f) $ ?x => ?x\n"),
                   "expected a number among the family's values"));
    // A let cannot refer to itself (it is not defined inside its own body).
    CHECK(contains(errorOf("let f = (Map(f))\nrule r: f $ ?x => ?x\n"), "f"));
}

TEST_CASE("the macro rules' compositions derive from the primitive catalogue", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> all = rules::loadRules(source("rules/opencl.rules"), lib);
    std::vector<egraph::Rule> more = rules::loadRules(source("rules/algorithmic.rules"), lib);
    all.insert(all.end(), more.begin(), more.end());
    more = rules::loadRules(source("rules/core.rules"), lib);
    all.insert(all.end(), more.begin(), more.end());
    std::vector<egraph::Rule> catalogue = rules::primitiveRules(all);
    auto rule = [&](const std::string& name) {
        return *std::find_if(all.begin(), all.end(),
                             [&](const egraph::Rule& r) { return r.name == name; });
    };
    rules::Derivation d = rules::deriveRule(rule("macro-partial-reduce"), catalogue, lib, {});
    INFO(rules::formatDerivation(d));
    REQUIRE(d.derived);
    std::vector<std::string> steps;
    for (const auto& s : d.steps) {
        steps.push_back(s.rule);
    }
    CHECK(steps == std::vector<std::string>{"reduce-split", "split-map", "map-fusion", "beta",
                                            "lower-reduce-seq", "lower-seq", "reduce-map-fusion"});
    // A composition that names a rule outside the catalogue is not derived, and says why.
    egraph::Rule wrong = rule("macro-map-reduce-fusion");
    wrong.composition = {"lower-reduce-seq", "no-such-rule"};
    d = rules::deriveRule(wrong, catalogue, lib, {});
    CHECK_FALSE(d.derived);
    CHECK(contains(rules::formatDerivation(d), "NOT DERIVED macro-map-reduce-fusion"));
    CHECK(contains(rules::formatDerivation(d), "'no-such-rule', which is not a primitive rule"));
}

TEST_CASE("a composite rule the catalogue cannot reach is NOT DERIVED with its progress",
          "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    // Map to MapGlb is not an equality the catalogue below has (only MapSeq).
    auto rs = parse("rule seq: Map(?f) $ ?x => MapSeq(?f) $ ?x\n"
                    "rule m: Map(?f) $ ?x => MapGlb(0, ?f) $ ?x by seq\n");
    rules::DeriveOptions o;
    o.secondsPerStage = 1;
    rules::Derivation d = rules::deriveRule(rs[1], rules::primitiveRules(rs), lib, o);
    CHECK_FALSE(d.derived);
    std::string shown = rules::formatDerivation(d);
    CHECK(contains(shown, "NOT DERIVED m"));
    CHECK(contains(shown, "composition in order: 1 of 1 steps applied, not reached"));
    CHECK(contains(shown, "stage catalogue (1 rules)"));
    // Where each side got: the left's smallest equal term is its map (or the sequential map the
    // catalogue reaches, as small), the right's is the MapGlb nothing rewrote.
    CHECK(contains(shown, "left-hand side's smallest equal term: Map"));
    CHECK(contains(shown, "right-hand side's smallest equal term: MapGlb("));
}

// --show-clause: the right-hand side after the stated steps, with the fewest OpenCL-specific
// operators: the step's map replaces the sequential map it equals, which the smallest term
// could show instead (both are as small).
TEST_CASE("derive shows the right-hand side the stated steps wrote", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    auto rs = parse("rule seq: Map(?f) <=> MapSeq(?f)\n"
                    "rule m: Map(Map(?f)) $ ?x => MapGlb(0, MapSeq(?f)) $ ?x by seq-rev\n");
    rules::DeriveOptions o;
    o.secondsPerStage = 1;
    rules::Derivation d = rules::deriveRule(rs.back(), rules::primitiveRules(rs), lib, o);
    CHECK_FALSE(contains(rules::formatDerivation(d), "after the stated steps"));
    o.showClause = true;
    d = rules::deriveRule(rs.back(), rules::primitiveRules(rs), lib, o);
    std::string shown = rules::formatDerivation(d);
    INFO(shown);
    CHECK_FALSE(d.derived);
    CHECK(contains(shown, "composition in order: 1 of 1 steps applied, not reached"));
    // MapGlb has no other member: it is shown.
    CHECK(contains(shown, "right-hand side after the stated steps (structured): MapGlb("));
    size_t at = shown.find("after the stated steps");
    std::string line = shown.substr(at, shown.find('\n', at) - at);
    CHECK(contains(line, "Map("));
    CHECK_FALSE(contains(line, "MapSeq("));
}

namespace {

// A clause `MARKER; STEP` for the rule Map(?f) $ (Map(?g) $ ?x) => its fused map, derived with
// map-fusion and map-fission as the catalogue (one second per stage).
rules::Derivation focusedDerivation(const std::string& marker, const std::string& step) {
    egraph::Library lib = egraph::Library::standard();
    auto rs =
        parse("rule map-fusion: Map(?f) $ (Map(?g) $ ?x) => Map(fun(y => ?f $ (?g $ y))) $ ?x\n"
              "rule map-fission: Map(fun(y => ?f $ (?g $ y))) $ ?x => Map(?f) $ (Map(?g) $ ?x)\n"
              "rule fused: Map(?f) $ (Map(?g) $ ?x) => Map(fun(y => ?f $ (?g $ y))) $ ?x\n");
    std::vector<egraph::Rule> catalogue{rs[0], rs[1]};
    rs[2].composition = {marker, step};
    if (marker.empty()) {
        rs[2].composition = {step};
    }
    rules::DeriveOptions o;
    o.secondsPerStage = 1;
    return rules::deriveRule(rs[2], catalogue, lib, o);
}

} // namespace

// `focus` in a clause: the steps after it rewrite only the right-hand side's term (and what
// they write themselves); `focus-left` the left-hand side's. map-fusion matches only the
// left-hand side here, map-fission only the right: each rewrites nothing after the other
// side's marker, and reaches the other side in order after its own side's.
TEST_CASE("a clause's steps after focus rewrite only one side's term", "[rules]") {
    for (const auto& [marker, idle, rewrites] :
         {std::tuple<std::string, std::string, std::string>{"focus", "map-fusion", "map-fission"},
          {"focus-left", "map-fission", "map-fusion"}}) {
        INFO(marker);
        rules::Derivation d = focusedDerivation(marker, idle);
        INFO(rules::formatDerivation(d));
        CHECK(contains(d.progress.at(0), "2 of 2 steps applied, not reached"));
        CHECK(contains(d.progress.at(0), "steps that rewrote nothing: " + idle));
        d = focusedDerivation(marker, rewrites);
        INFO(rules::formatDerivation(d));
        REQUIRE(d.derived);
        CHECK(contains(d.progress.at(0), "reached the right-hand side"));
        CHECK(stepNames(d) == std::vector<std::string>{rewrites});
    }
    // Without a marker map-fusion rewrites the left-hand side into the right.
    rules::Derivation d = focusedDerivation("", "map-fusion");
    CHECK(contains(d.progress.at(0), "reached the right-hand side"));
}

TEST_CASE("derive names the variables no primitive rule creates", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    // #n divides the length twice over (commonTuningOf): split-join's variable is another one,
    // and without split-join-rev nothing removes the split from the right-hand side.
    auto rs =
        parse("rule split-join: Map(?f) $ ?x => Join $ (Map(Map(?f)) $ (Split(#n) $ ?x))\n"
              "    if isArray(?x) where #n = tuning(?x)\n"
              "rule m: Map(?f) $ ?x => Join $ (Map(Map(?f)) $ (Split(#n) $ ?x)) if isArray(?x)\n"
              "    where #l = lengthOf(?x), #n = commonTuningOf(#l, #l) by split-join\n");
    rules::DeriveOptions o;
    o.secondsPerStage = 1;
    rules::Derivation d = rules::deriveRule(rs[1], rules::primitiveRules(rs), lib, o);
    std::string shown = rules::formatDerivation(d);
    INFO(shown);
    CHECK_FALSE(d.derived);
    CHECK(contains(shown, "#n (commonTuningOf) divide several lengths: no primitive rule"));
    // With the split's cancellation the right-hand side is taken back to the left: derived.
    rs.push_back(parse("rule split-join-rev: Join $ (Map(Map(?f)) $ (Split(#n) $ ?x)) => "
                       "Map(?f) $ ?x\n")
                     .at(0));
    d = rules::deriveRule(rs[1], rules::primitiveRules(rs), lib, o);
    INFO(rules::formatDerivation(d));
    CHECK(d.derived);
}

TEST_CASE("derive lifts a macro's schedule back to the composition's result", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    // The composition lowers the map; only the lifting stage removes the right-hand side's
    // address space (to-global-elim shrinks the term; lower-wrg-rev lifts; lower-wrg does not).
    auto rs = parse("rule lower-wrg: Map(?f) <=> MapWrg(0, ?f)\n"
                    "rule to-global-elim: toGlobal(?f) $ ?x => ?f $ ?x\n"
                    "rule m: Map(?f) $ ?x => toGlobal(MapWrg(0, ?f)) $ ?x by lower-wrg\n");
    rules::Derivation d = rules::deriveRule(rs.back(), rules::primitiveRules(rs), lib, {});
    INFO(rules::formatDerivation(d));
    REQUIRE(d.derived);
    CHECK(contains(d.progress.at(0), "composition in order: 1 of 1 steps applied, not reached"));
    CHECK(contains(d.progress.at(1), "stage lifting (2 rules): goal reached"));
    // The address space and the lowering, in either order (the explanation picks one).
    std::set<std::string> used;
    for (const rules::DerivationStep& step : d.steps) {
        used.insert(step.rule);
    }
    CHECK(d.steps.size() == 2);
    CHECK(used.count("to-global-elim") == 1);
    CHECK(used.count("lower-wrg") + used.count("lower-wrg-rev") == 1);
}

// The 2-D register blocks (macro-register-block-w4x4) before their tiling into work-groups: each
// block of 4 rows of A against each float4 column of B as one reduction into 4 private float4
// accumulators, put back in C's shape as views. The catalogue derives it in the order of the
// clause, with equalities.rules' vector equalities (a split by the block height, B's 4-column
// blocks as float4 columns, 4 lane reductions as one float4 reduction).
TEST_CASE("the 2-D register blocks derive from the shipped catalogue before their tiling",
          "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> all;
    for (const auto& entry : std::filesystem::directory_iterator(source("rules"))) {
        if (entry.path().extension() == ".rules") {
            for (egraph::Rule& r : rules::loadRules(entry.path().string(), lib)) {
                if (std::none_of(all.begin(), all.end(),
                                 [&](const egraph::Rule& o) { return o.name == r.name; })) {
                    all.push_back(std::move(r));
                }
            }
        }
    }
    auto rs = parse(
        "let mm = (Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ p, "
        "Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a)\n"
        "let step = (fun((acc, q) => Map(fun(ar => VectorizeUserFun(4, ?f) $ (Get(0) $ ar, "
        "VectorizeUserFun(4, ?h) $ (Get(1) $ ar, Get(1) $ q)))) $ (Zip $ (acc, Get(0) $ q))))\n"
        "let blk(rows, v) = (Map(Split(1)) $ (Map(AsScalar) $ (Transpose $ (Reduce(step) $ "
        "(Map(fun(x => ?zv)) $ rows, Zip $ (Transpose $ rows, v))))))\n"
        "rule blocks: mm => Join $ (Map(fun(rows => Map(Join) $ (Transpose $ (Map(fun(v => "
        "blk(rows, v))) $ (Transpose $ (Map(AsVector(4)) $ ?b)))))) $ (Split(4) $ ?a))\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; eta-map-expand; split-join-w4; column-vectors-w4; map-fusion; beta; "
        "lanes-reduce-w4; lanes-single; flat-rearrange-join; map-map-interchange; "
        "flat-rearrange-split; flat-rearrange-asscalar; flat-distribute-reduce; "
        "map-reduce-interchange; flat-distribute-nest; transpose-map-map; "
        "transpose-zip-row-second; map-fusion; beta; map-fusion; beta; get-tuple-first; "
        "get-tuple-second; lower-reduce-seq; lower-seq; reduce-map-fusion; beta2; beta; "
        "zip-map-second; map-fusion; beta; get-tuple-first; get-tuple-second\n");
    rules::Derivation d = rules::deriveRule(rs.at(0), rules::primitiveRules(all), lib, {});
    INFO(rules::formatDerivation(d));
    REQUIRE(d.derived);
    CHECK(contains(d.progress.at(0), "reached the right-hand side")); // in order, no search
    std::set<std::string> used;
    for (const rules::DerivationStep& s : d.steps) {
        used.insert(s.rule);
    }
    // lanes-reduce-w4 and lanes-single rewrite a class that a later step shifts under a binder:
    // the explanation does not show them (docs/rules.md, Open points: "shifted classes").
    for (const char* rule : {"split-join-w4", "column-vectors-w4", "transpose-zip-row-second",
                             "map-reduce-interchange"}) {
        INFO(rule);
        CHECK(used.count(rule) == 1);
    }
}

// The local tiles' fold over the slices, in small: a fold whose array accumulator holds one
// block per work-item, each folded over its chunk of the slice t, is each work-item's fold over
// its chunks one after another (equalities.rules' fold-interchange and fold-join, C++ appliers
// that rebind the body's variables; ?g uses neither the pair, the slice nor the accumulator).
// The rule is checked on random instances and derived: the appliers' rebinding is what the
// interpreter confirms.
// The local tiles derive in the order of their clause (docs/rules-derivations.md), without
// the saturation stages: the clause reads the schedule as maps and folds and the tile copies as
// copies (equalities.rules' map-vector-copy), each work-item's fold as one float4 fold per
// float4 of C over A's rows and B's columns, the tile's views of the one-element folds as C's
// rows, and the work-groups' splits cancel; after `focus-left` the left-hand side reaches the
// same rows of float4 folds. The catalogue is every shipped file's, each name once, as
// `egopt rules derive rules/*.rules` builds it.
TEST_CASE("the local tiles derive in the order of their clause", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> all, catalogue;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(source("rules"))) {
        if (entry.path().extension() == ".rules") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    std::set<std::string> names;
    for (const std::string& f : files) {
        for (egraph::Rule& r : rules::loadRules(f, lib)) {
            if (!rules::isComposite(r) && names.insert(r.name).second) {
                catalogue.push_back(r);
            }
            all.push_back(std::move(r));
        }
    }
    auto it = std::find_if(all.begin(), all.end(),
                           [](const egraph::Rule& r) { return r.name == "macro-mm-local-tiles"; });
    REQUIRE(it != all.end());
    rules::DeriveOptions o;
    o.showClause = true;
    rules::Derivation d = rules::deriveRule(*it, catalogue, lib, o);
    INFO(rules::formatDerivation(d));
    REQUIRE(d.derived);
    auto progress = std::find_if(d.progress.begin(), d.progress.end(), [](const std::string& p) {
        return contains(p, "composition in order");
    });
    REQUIRE(progress != d.progress.end());
    INFO(*progress);
    CHECK(contains(*progress, "reached the right-hand side"));
    CHECK(contains(*progress, "159 of 159 steps applied"));
    // Every step rewrites: the interchanges' copies keep the maps that schedule-as-maps read
    // from the local and sequential maps (EGraph::keepMembersInCopies): with smallest-term
    // copies the second interchange would find only MapLcl(0) and rewrite nothing.
    CHECK_FALSE(contains(*progress, "steps that rewrote nothing"));
    std::vector<std::string> used = stepNames(d);
    // The explanation takes the shortest path between the sides through what the steps wrote:
    // the fold interchanges, the left-hand side's lanes, the tile views and the tiles' cancelling.
    for (const char* rule :
         {"fold-interchange", "lanes-reduce-w4", "map-transpose-split",
          "map-join-map-transpose-one", "map-map-interchange", "split-join-rev"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
}

// The shipped files: every composite rule either derives (run through the binary, as CI runs
// `egopt rules derive`) or is listed here as not derived yet (docs/rules.md, "Compositions").
TEST_CASE("egopt rules derive: the shipped composite rules", "[rules][cli]") {
    const std::vector<std::string> derived{
        "macro-partial-reduce",      "macro-map-reduce-fusion", "macro-map-wrg-lcl",
        "macro-reduce-gpu-w4",       "macro-reduce-zip-gpu-w4", "register-block",
        "macro-reduce-wrg-w4",       "macro-reduce-zip-wrg-w4", "macro-register-block-w4x4",
        "macro-register-block-w8x4", "macro-mm-local-tiles"};
    const std::vector<std::string> open;
    egraph::Library lib = egraph::Library::standard();
    std::string files;
    for (const auto& entry : std::filesystem::directory_iterator(source("rules"))) {
        if (entry.path().extension() != ".rules") {
            continue;
        }
        files += " " + entry.path().string();
        for (const egraph::Rule& r : rules::loadRules(entry.path().string(), lib)) {
            if (rules::isComposite(r)) {
                INFO(r.name << " is composite: add it to one of the lists");
                CHECK((std::count(derived.begin(), derived.end(), r.name) +
                       std::count(open.begin(), open.end(), r.name)) == 1);
            }
        }
    }
    // Under the sanitizers (scripts/test --sanitize) the two register blocks' derivations, a
    // minute each there, are left to the normal build's run: the others cover the same code.
    std::vector<std::string> run = derived;
    if (testenv::sanitizerRun()) {
        std::erase_if(run, [](const std::string& n) { return n.starts_with("macro-register-"); });
    }
    std::string names;
    for (const auto& n : run) {
        names += (names.empty() ? "" : ",") + n;
    }
    auto r = test::egopt("rules derive" + files + " --rule " + names);
    INFO(r.out << r.err);
    CHECK(r.exitCode == 0);
    for (const auto& n : run) {
        CHECK(contains(r.out, "DERIVED " + n + " ("));
    }
    CHECK(contains(r.out, std::to_string(run.size()) + " of " + std::to_string(run.size()) +
                              " composite rules derived"));
    auto bad = test::egopt("rules derive " + source("rules/opencl.rules") + " --rule nope");
    CHECK(bad.exitCode == 2);
}
