// The state rewriting keeps beside the e-graph (rewrite_context.hpp): tuning variables memoized
// per key, size facts deciding divisibility, rule names interned to stable ids.
#include "egopt/egraph/rewrite_context.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace egopt;
using namespace egopt::egraph;

TEST_CASE("a tuning space gives one variable per key, with the length it was created for",
          "[egraph]") {
    TuningSpace t;
    arith::Size n = arith::Size::var("N");
    arith::Size v1 = t.variable("split N", n);
    CHECK(v1 == arith::Size::var("v__1"));
    CHECK(t.variable("split N", arith::Size(8)) == v1); // memoized: the length is not replaced
    arith::Size rest = exactDiv(n, v1);
    arith::Size v2 = t.variable("split " + rest.toString(), rest);
    CHECK(v2 == arith::Size::var("v__2"));
    REQUIRE(t.constraints().size() == 2);
    CHECK(t.constraints()[0].var == "v__1");
    CHECK(t.constraints()[0].divides == n);
    CHECK(t.constraints()[1].var == "v__2");
    CHECK(t.constraints()[1].divides == rest); // mentions only the earlier variable
}

TEST_CASE("a tuning variable that divides several lengths has a constraint for each", "[egraph]") {
    TuningSpace t;
    std::vector<arith::Size> lengths{arith::Size::var("M"), arith::Size::var("N")};
    arith::Size v = t.variable("split all M N", lengths);
    CHECK(t.variable("split all M N", lengths) == v);
    REQUIRE(t.constraints().size() == 2);
    CHECK(t.constraints()[0].divides == lengths[0]);
    CHECK(t.constraints()[1].divides == lengths[1]);
    CHECK(t.constraints()[1].var == t.constraints()[0].var);
}

TEST_CASE("size facts decide constants alone and symbolic sizes from what was assumed",
          "[egraph]") {
    SizeFacts none;
    CHECK(none.divides(arith::Size(4), arith::Size(12)));
    CHECK_FALSE(none.divides(arith::Size(5), arith::Size(12)));
    CHECK_FALSE(none.divides(arith::Size(0), arith::Size(12)));
    CHECK_FALSE(none.divides(arith::Size(2), arith::Size::var("N")));
    SizeFacts facts;
    facts.assumeDivides(arith::Size(16), arith::Size::var("N"));
    CHECK(facts.divides(arith::Size(4), arith::Size::var("N")));
    CHECK(facts.divides(arith::Size(16), arith::Size::var("N")));
    CHECK_FALSE(facts.divides(arith::Size(32), arith::Size::var("N")));
    CHECK_FALSE(facts.divides(arith::Size(2), arith::Size::var("M")));
}

TEST_CASE("rule names keep one id per name, in first-use order", "[egraph]") {
    RuleNames names;
    RuleId fusion = names.id("map-fusion");
    RuleId beta = names.id("beta");
    CHECK(fusion != beta);
    CHECK(names.id("map-fusion") == fusion);
    CHECK(names.name(fusion) == "map-fusion");
    CHECK(names.name(beta) == "beta");
    CHECK_THROWS(names.name(beta + 1));
}
