// The state rewriting keeps beside the e-graph (rewrite_context.hpp): tuning variables memoized
// per key (and scratch spaces over them), size facts deciding divisibility (and remembering it
// per thread), rule names interned to stable ids.
#include "egopt/egraph/rewrite_context.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <thread>
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

TEST_CASE("a scratch tuning space finds the base's variables and numbers new ones after them",
          "[egraph]") {
    TuningSpace base;
    arith::Size n = arith::Size::var("N");
    arith::Size v1 = base.splitVariable(n);
    TuningSpace scratch = TuningSpace::over(base);
    CHECK(scratch.splitVariable(n) == v1); // the base's, not a new one
    CHECK(scratch.numConstraints() == 1);
    arith::Size m = arith::Size::var("M");
    TuningSpace copy = base; // what a copy would number it
    CHECK(scratch.splitVariable(m) == copy.splitVariable(m));
    CHECK(scratch.splitVariable(m) == arith::Size::var("v__2"));
    CHECK(scratch.numConstraints() == 2);
    REQUIRE(scratch.constraints().size() == 1); // its own only
    CHECK(scratch.constraints()[0].divides == m);
    CHECK(base.constraints().size() == 1); // the base is unchanged
    CHECK(base.variable("split M", m) == arith::Size::var("v__2"));
}

TEST_CASE("size facts give the same answers from their memo on any thread, and a new fact "
          "starts afresh",
          "[egraph]") {
    SizeFacts facts;
    std::vector<std::pair<arith::Size, arith::Size>> questions;
    for (int64_t d : {2, 3, 4, 8, 16}) {
        for (const char* v : {"N", "M"}) {
            questions.emplace_back(arith::Size(d), arith::Size::var(v) * arith::Size(4));
        }
    }
    auto answers = [&] {
        std::string out;
        for (const auto& [d, n] : questions) {
            out += facts.divides(d, n) ? '1' : '0';
        }
        return out;
    };
    std::string first = answers();
    CHECK(first == "1100110000"); // 2 and 4 divide 4N and 4M; 3, 8 and 16 do not
    CHECK(answers() == first);    // from the memo
    std::vector<std::string> byThread(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < byThread.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                byThread[t] = answers();
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    for (const std::string& a : byThread) {
        CHECK(a == first);
    }
    facts.assumeDivides(arith::Size(4), arith::Size::var("N")); // 8 and 16 now divide 4N
    CHECK(answers() == "1100111010");
}
