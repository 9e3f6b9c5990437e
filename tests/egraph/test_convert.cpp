// Programs into the e-graph (convert.cpp): Lift's length-changing Iterate, which no single
// e-class can type, is inserted as its steps.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

lift::Program halvingProgram(const std::string& body) {
    return lift::parseProgram("val N = SizeVar(\"N\")\n"
                              "val halve = Join() o Map(Reduce(add, 0.0f)) o Split(2)\n"
                              "fun(ArrayType(Float, N), xs => " +
                                  body + ")",
                              "t.lift");
}

bool hasIterate(const EGraph& g) {
    for (EClassId c : g.classIds()) {
        for (ENodeId n : g.eclass(c).nodes) {
            if (g.node(n).op == lift::Op::Iterate) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

TEST_CASE("a length-changing Iterate is inserted as its steps", "[egraph]") {
    lift::Program iterated = halvingProgram("Reduce(add, 0.0f) o Iterate(3)(halve) $ xs");
    lift::Program written = halvingProgram("Reduce(add, 0.0f) o halve o halve o halve $ xs");
    EGraph g;
    EClassId a = insertProgram(g, iterated).root;
    CHECK_FALSE(hasIterate(g));
    // Each step is the function applied to the previous value: beta makes it the written form.
    Library lib = Library::standard();
    auto rules = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/core.rules", lib);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 4;
    runner.run();
    EClassId b = insertProgram(g, written).root;
    g.rebuild();
    CHECK(g.find(a) == g.find(b));
    // Extracted and run, it means what the program means.
    lift::Program back = extractProgram(g, a, insertProgram(g, iterated).signature);
    arith::Bindings sizes{{"N", 64}};
    CHECK(test::runProgram(back, sizes, 5).elems().at(0).asFloat() ==
          Approx(test::runProgram(iterated, sizes, 5).elems().at(0).asFloat()).epsilon(1e-5));
}

TEST_CASE("an Iterate that keeps the length stays one e-node", "[egraph]") {
    lift::Program p = halvingProgram("Iterate(3)(Map(abs)) $ xs");
    EGraph g;
    insertProgram(g, p);
    CHECK(hasIterate(g));
}
