// The small parts of matching and analysis that the per-match cost depends on: the apply
// journal's class snapshots (indexed by class id), a BindFilter's slot mask, and free variables
// united as a bit set (with the list union for indices of 64 and more).
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;
using egopt::test::call;
using egopt::test::floatFun;
using egopt::test::var;

TEST_CASE("class snapshots are found by class id and stay in place as others are added",
          "[egraph]") {
    ClassSnapshot snap;
    CHECK(snap.find(5) == nullptr);
    CHECK_FALSE(snap.has(0));
    ClassSnapshot::Entry& first = snap.add(7);
    first.members = {1, 2, 3};
    first.opMask = 42;
    const ClassSnapshot::Entry* before = snap.find(7);
    REQUIRE(before == &first);
    for (EClassId c = 10; c < 5000; c += 3) { // grows the index and the entries many times
        snap.add(c).members = {c};
    }
    CHECK(snap.find(7) == before); // the same entry, where it was
    CHECK(before->members == std::vector<ENodeId>{1, 2, 3});
    CHECK(before->opMask == 42);
    CHECK(&snap.add(7) == before); // adding it again finds it
    REQUIRE(snap.find(4996) != nullptr);
    CHECK(snap.find(4996)->members == std::vector<ENodeId>{4996});
    CHECK_FALSE(snap.has(11));
    CHECK_FALSE(snap.has(100000));
    snap.clear();
    CHECK_FALSE(snap.has(7));
    CHECK(snap.find(4996) == nullptr);
}

TEST_CASE("a bind filter is asked only about the slots it names", "[egraph]") {
    Subst s;
    std::vector<uint32_t> asked;
    BindFilter none;
    CHECK_FALSE(static_cast<bool>(none));
    BindFilter all;
    all.fn = [&](const Subst&, uint32_t slot) {
        asked.push_back(slot);
        return slot != 2;
    };
    CHECK(all(s, 0));
    CHECK_FALSE(all(s, 2));
    CHECK(asked == std::vector<uint32_t>{0, 2});
    asked.clear();
    BindFilter some = all;
    some.slots = {false, false, true};
    CHECK(some(s, 0)); // not named: kept without a call
    CHECK(some(s, 1));
    CHECK_FALSE(some(s, 2));
    CHECK(asked == std::vector<uint32_t>{2});
}

TEST_CASE("free variables are united as a bit set and as lists from index 64 on", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 2, "{ return a0 + a1; }");
    // Below 64: the bit set; a sum of five variables needs more than the three inline values.
    EClassId sum = var(g, 4);
    for (int32_t v : {0, 9, 2, 63}) {
        sum = call(g, f, {sum, var(g, v)});
    }
    auto freeOf = [&](EClassId c) {
        const auto& fv = g.data(c).freeVars;
        return std::vector<int32_t>(fv.begin(), fv.end());
    };
    CHECK(freeOf(sum) == std::vector<int32_t>{0, 2, 4, 9, 63});
    // From 64 on: the list union, the same sorted set.
    EClassId wide = call(g, f, {sum, var(g, 70)});
    CHECK(freeOf(wide) == std::vector<int32_t>{0, 2, 4, 9, 63, 70});
    EClassId wider = call(g, f, {var(g, 64), wide});
    CHECK(freeOf(wider) == std::vector<int32_t>{0, 2, 4, 9, 63, 64, 70});
    // Merged classes unite theirs as before.
    g.merge(call(g, f, {var(g, 1), var(g, 3)}), call(g, f, {var(g, 3), var(g, 1)}), {});
    g.rebuild();
    CHECK(freeOf(call(g, f, {var(g, 1), var(g, 3)})) == std::vector<int32_t>{1, 3});
}
