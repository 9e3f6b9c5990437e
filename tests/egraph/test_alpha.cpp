// measureShiftDuplication (alpha.hpp) on small hand-made e-graphs whose duplicates are counted
// by hand: classes that are the same term under a different number of binders.
#include "cli_helper.hpp"
#include "egopt/egraph/alpha.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <regex>

using namespace egopt;
using namespace egopt::egraph;

TEST_CASE("shift duplicates of open terms are counted and other open terms are not", "[egraph]") {
    EGraph g;
    uint32_t add = test::floatFun(g, "add", 2, "return a0 + a1;");
    EClassId x0 = test::var(g, 0), x1 = test::var(g, 1), x2 = test::var(g, 2);
    test::call(g, add, {x1, x0}); // add(x1, x0)
    test::call(g, add, {x2, x1}); // the same shifted by one: a duplicate
    test::call(g, add, {x2, x0}); // other gaps between the variables: not one
    test::call(g, add, {x0, x0}); // one variable twice
    test::call(g, add, {x1, x1}); // the same shifted: a duplicate
    test::call(g, add, {x0, x1}); // the arguments the other way round: not one
    g.rebuild();
    ShiftDuplication d = measureShiftDuplication(g);
    // Classes: the user function (closed), x0, x1, x2 and the six applications.
    CHECK(d.classes == 10);
    CHECK(d.nodes == 10);
    CHECK(d.openClasses == 9);
    // {x0, x1, x2}, {add(x1, x0), add(x2, x1)}, {add(x0, x0), add(x1, x1)}.
    CHECK(d.groups == 3);
    CHECK(d.duplicateClasses == 4);
    CHECK(d.duplicateNodes == 4);
}

TEST_CASE("shift duplicates under lambdas shift only the free variables", "[egraph]") {
    // The same map under two signatures: xs and a are one index further out in the second, so
    // inside the lambda `add(x, a)` is add(x0, x1) in one and add(x0, x2) in the other; the
    // lambdas, maps and applications are shifts of each other, the lambda bodies are not (the
    // bound x stays at index 0).
    EGraph g;
    for (const char* params : {"(xs, a)", "(xs, a, b)"}) {
        std::string types = params == std::string("(xs, a)") ? "ArrayType(Float, N), Float"
                                                             : "ArrayType(Float, N), Float, Float";
        lift::Program p = lift::parseProgram("val N = SizeVar(\"N\")\nfun(" + types + ", " +
                                                 params + " => Map(fun(x => add(x, a))) $ xs)",
                                             "map.lift");
        insertProgram(g, p);
    }
    g.rebuild();
    ShiftDuplication d = measureShiftDuplication(g);
    // Open classes: the Float variables x0, x1, x2, the array variables xs1, xs2, the bodies
    // add(x0, x1) and add(x0, x2), and per program the lambda, Map(lambda) and the application.
    CHECK(d.openClasses == 13);
    CHECK(d.groups == 5);
    CHECK(d.duplicateClasses == 2 + 1 + 1 + 1 + 1);
}

TEST_CASE("EGraph::shift makes the duplicates that the measure counts", "[egraph]") {
    EGraph g;
    uint32_t mult = test::floatFun(g, "mult", 2, "return a0 * a1;");
    EClassId x0 = test::var(g, 0), x1 = test::var(g, 1);
    EClassId term = test::call(g, mult, {test::call(g, mult, {x0, x1}), x0});
    g.rebuild();
    ShiftDuplication before = measureShiftDuplication(g);
    CHECK(before.groups == 1); // x0 and x1
    CHECK(before.duplicateClasses == 1);
    g.shift(term, 2);
    g.rebuild();
    ShiftDuplication after = measureShiftDuplication(g);
    // The shifted copy adds x2, x3, mult(x2, x3) and mult(mult(x2, x3), x2): x2 and x3 join the
    // variables' set, the two applications are copies of the originals.
    CHECK(after.classes == before.classes + 4);
    CHECK(after.groups == 3);
    CHECK(after.duplicateClasses == 3 + 1 + 1);
    CHECK(after.duplicateNodes == 5);
}

TEST_CASE("egopt saturate --shift-duplicates prints the measure of its saturated e-graph",
          "[egraph]") {
    const std::string ruleFile = std::string(EGOPT_SOURCE_DIR) + "/rules/core.rules";
    auto r = test::egopt("saturate " + test::example("nbody.lift") + " --rules " + ruleFile +
                         " --iterations 3 --shift-duplicates");
    INFO(r.out << r.err);
    REQUIRE(r.exitCode == 0);
    std::smatch m;
    REQUIRE(
        std::regex_search(r.out, m,
                          std::regex(R"(shift duplicates: (\d+) of (\d+) e-classes \([0-9.]+%; )"
                                     R"((\d+) open\) in (\d+) sets, (\d+) of (\d+) e-nodes)")));
    // The same saturation through the API.
    Library lib = Library::standard();
    lift::Program p = lift::parseFile(test::example("nbody.lift"));
    EGraph g;
    insertProgram(g, p);
    std::vector<Rule> rules = rules::loadRules(ruleFile, lib);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 3;
    runner.run();
    ShiftDuplication d = measureShiftDuplication(g);
    CHECK(std::stoul(m[1]) == d.duplicateClasses);
    CHECK(std::stoul(m[2]) == d.classes);
    CHECK(std::stoul(m[3]) == d.openClasses);
    CHECK(std::stoul(m[4]) == d.groups);
    CHECK(std::stoul(m[5]) == d.duplicateNodes);
    CHECK(std::stoul(m[6]) == d.nodes);
    CHECK(d.duplicateClasses > 0); // nbody's variables and the copies its fusions shift
}
