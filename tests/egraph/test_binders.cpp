// Binder soundness: programs with nested lambdas that capture outer variables survive the
// round trip through the e-graph (insert, extract, interpret) unchanged in meaning.
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

void roundTrip(const std::string& file, const arith::Bindings& sizes) {
    lift::Program p = lift::parseFile(test::example(file));
    EGraph g;
    Inserted ins = insertProgram(g, p);
    g.rebuild();
    lift::Program back = extractProgram(g, ins.root, ins.signature);
    INFO(file << ": " << g.show(ins.root));
    for (uint64_t seed : {1u, 2u}) {
        interp::Value a = test::runProgram(p, sizes, seed);
        interp::Value b = test::runProgram(back, sizes, seed);
        CHECK(a.toJson() == b.toJson());
    }
}

} // namespace

TEST_CASE("mm, gemv and nbody round-trip through the e-graph", "[egraph]") {
    roundTrip("mm.lift", {{"M", 3}, {"N", 4}, {"K", 5}});
    roundTrip("gemv.lift", {{"M", 3}, {"N", 4}});
    roundTrip("nbody.lift", {{"N", 5}});
    roundTrip("asum.lift", {{"N", 8}});
}

TEST_CASE("alpha-equivalent lambdas share one class", "[egraph]") {
    auto parse = [](const char* body) {
        return lift::parseProgram(std::string("val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), "
                                              "xs => ") +
                                      body + ")",
                                  "t.lift");
    };
    lift::Program a = parse("Map(fun(x => add(x, x))) $ xs");
    lift::Program b = parse("Map(fun(y => add(y, y))) $ xs");
    EGraph g;
    EClassId ra = insertProgram(g, a).root;
    EClassId rb = insertProgram(g, b).root;
    CHECK(ra == rb);
}

TEST_CASE("captured variables keep their binder under shifting", "[egraph]") {
    lift::Program p = lift::parseFile(test::example("mm.lift"));
    EGraph g;
    Inserted ins = insertProgram(g, p);
    // The whole body uses both top-level parameters: free variables 0 (b) and 1 (a).
    CHECK(g.data(ins.root).freeVars == std::vector<int32_t>{0, 1});
    EClassId up = g.shift(ins.root, 2);
    CHECK(g.data(up).freeVars == std::vector<int32_t>{2, 3});
    CHECK(g.find(g.shift(up, -2)) == g.find(ins.root));
    CHECK_THROWS_AS(g.shift(ins.root, -1), TypeError);
}
