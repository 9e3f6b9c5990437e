// Explanations: the derivation between two equal programs names a rule and the whole term at
// every step; each term is a well-typed program that computes the same values; replaying a
// step (one application of its rule) relates consecutive terms; and `egopt prove` prints the
// derivation, or exits with 4 when the programs are not proven equal.
#include "cli_helper.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"
#include "test_invariants.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;
using test::dataFile;

namespace {

// The declarations of chain3.lift (everything before the program), to parse printed terms.
const char* kDecls = "val N = SizeVar(\"N\")\n"
                     "val g = UserFun(\"g\", \"x\", \"{ return x * 2.0f; }\", Float, Float)\n"
                     "val h = UserFun(\"h\", \"x\", \"{ return x + 1.0f; }\", Float, Float)\n";

lift::Program programOf(const std::string& term) {
    return lift::parseProgram(std::string(kDecls) + "fun(ArrayType(Float, N), xs => " + term + ")",
                              "step.lift");
}

struct Proof {
    Library lib = Library::standard();
    std::vector<Rule> rules = rules::loadRules(dataFile("fusion.rules"), lib);
    EGraph g;
    RewriteContext ctx;
    Inserted a;
    Inserted b;
    Explanation ex;

    Proof(const std::string& fileA, const std::string& fileB) {
        g.explanations = true;
        lift::Program pa = lift::parseFile(dataFile(fileA));
        lift::Program pb = lift::parseFile(dataFile(fileB));
        a = insertProgram(g, pa);
        Runner runner(g, rules, lib, ctx);
        runner.limits.iterations = 10;
        RunReport report = runner.run();
        CHECK(report.stop == StopReason::Saturated);
        b = insertProgram(g, pb);
        g.rebuild();
        ex = explain(g, ctx.rules, a.root, b.root, a.signature.names);
    }

    const Rule& rule(const std::string& name) const {
        for (const Rule& r : rules) {
            if (r.name == name) {
                return r;
            }
        }
        FAIL("no rule " << name);
        return rules.front();
    }
};

// One iteration of `rule` on `from` makes it equal to `to`.
bool oneStep(const Proof& p, const Rule& rule, const std::string& from, const std::string& to) {
    EGraph g;
    lift::Program pf = programOf(from);
    lift::Program pt = programOf(to);
    EClassId rf = insertProgram(g, pf).root;
    std::vector<Rule> only{rule};
    RewriteContext ctx;
    Runner runner(g, only, p.lib, ctx);
    runner.limits.iterations = 1;
    runner.run();
    EClassId rt = insertProgram(g, pt).root;
    g.rebuild();
    return g.find(rf) == g.find(rt);
}

} // namespace

TEST_CASE("the derivation of a fused map chain names each rule and term", "[egraph]") {
    Proof p("chain3.lift", "fused3.lift");
    REQUIRE(p.ex.equal);
    REQUIRE(p.ex.steps.size() >= 3); // two fusions and at least one beta-reduction
    CHECK(p.ex.start == "Map(abs) $ (Map(g) $ (Map(h) $ xs))");
    CHECK(p.ex.steps.back().term == "Map(fun(x1 => abs $ (g $ (h $ x1)))) $ xs");
    size_t fusions = 0;
    for (const auto& s : p.ex.steps) {
        INFO(s.rule << ": " << s.term);
        CHECK((s.rule == "map-fusion" || s.rule == "beta" || s.rule == "eta"));
        fusions += s.rule == "map-fusion";
    }
    CHECK(fusions >= 2);
    test::checkInvariants(p.g); // explanation mode keeps alias ids out of the classes
}

TEST_CASE("every step of a derivation is a program computing the same values", "[egraph]") {
    Proof p("chain3.lift", "fused3.lift");
    REQUIRE(p.ex.equal);
    lift::Program a = lift::parseFile(dataFile("chain3.lift"));
    std::string expected = test::runProgram(a, {{"N", 5}}, 11).toJson();
    for (const auto& s : p.ex.steps) {
        INFO(s.rule << ": " << s.term);
        lift::Program step = programOf(s.term); // parses and type-checks
        CHECK(test::runProgram(step, {{"N", 5}}, 11).toJson() == expected);
    }
}

TEST_CASE("replaying a derivation: each step is one application of its rule", "[egraph]") {
    Proof p("chain3.lift", "fused3.lift");
    REQUIRE(p.ex.equal);
    std::string before = p.ex.start;
    for (const auto& s : p.ex.steps) {
        INFO(s.rule << (s.forward ? "" : " (reversed)") << ": " << before << " -> " << s.term);
        CHECK(before != s.term);
        const Rule& r = p.rule(s.rule);
        CHECK((s.forward ? oneStep(p, r, before, s.term) : oneStep(p, r, s.term, before)));
        before = s.term;
    }
    // The chain ends at B exactly as inserted.
    CHECK(before == explain(p.g, p.ctx.rules, p.b.root, p.b.root, p.a.signature.names).start);
}

TEST_CASE("explanations of a term with itself and of unequal terms", "[egraph]") {
    Proof same("chain3.lift", "chain3.lift");
    CHECK(same.ex.equal);
    CHECK(same.ex.steps.empty());
    Proof different("chain3.lift", "reordered3.lift");
    CHECK_FALSE(different.ex.equal);
    CHECK(different.ex.steps.empty());
    CHECK(different.ex.start == "Map(abs) $ (Map(g) $ (Map(h) $ xs))");
}

TEST_CASE("explanations do not change what saturation proves", "[egraph]") {
    // Explanation mode also inserts each match's exact left-hand side (eta's is a lambda that
    // no application types): the classes merged must be the same as without it.
    std::vector<bool> equal;
    for (bool explanations : {false, true}) {
        Library lib = Library::standard();
        auto rules = rules::loadRules(dataFile("fusion.rules"), lib);
        EGraph g;
        g.explanations = explanations;
        lift::Program pa = lift::parseFile(dataFile("chain3.lift"));
        lift::Program pb = lift::parseFile(dataFile("fused3.lift"));
        EClassId ra = insertProgram(g, pa).root;
        EClassId rb = insertProgram(g, pb).root;
        RewriteContext ctx;
        Runner runner(g, rules, lib, ctx);
        CHECK(runner.run().stop == StopReason::Saturated);
        equal.push_back(g.find(ra) == g.find(rb));
        test::checkInvariants(g);
    }
    CHECK(equal == std::vector<bool>{true, true});
}

TEST_CASE("egopt prove prints the derivation", "[egraph]") {
    auto r = test::egopt("prove " + dataFile("chain3.lift") + " " + dataFile("fused3.lift") +
                         " --rules " + dataFile("fusion.rules"));
    INFO(r.out << r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("equal\n  Map(abs) $ (Map(g) $ (Map(h) $ xs))\n") != std::string::npos);
    CHECK(r.out.find("= by map-fusion\n") != std::string::npos);
    CHECK(r.out.find("= by beta\n") != std::string::npos);
    CHECK(r.out.ends_with("  Map(fun(x1 => abs $ (g $ (h $ x1)))) $ xs\n"));
}

TEST_CASE("egopt prove exits with 4 when the programs are not proven equal", "[egraph]") {
    auto r = test::egopt("prove " + dataFile("chain3.lift") + " " + dataFile("reordered3.lift") +
                         " --rules " + dataFile("fusion.rules"));
    INFO(r.out << r.err);
    CHECK(r.exitCode == 4);
    CHECK(r.out.find("not proven equal") != std::string::npos);
    CHECK(r.out.find("= by") == std::string::npos);
}
