// Congruence, rebuilding and analysis invariants on classic examples.
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;
using egopt::test::call;
using egopt::test::floatFun;
using egopt::test::var;

TEST_CASE("hashcons shares equal nodes", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 1, "{ return a0; }");
    EClassId a = var(g, 0);
    EClassId fa1 = call(g, f, {a});
    EClassId fa2 = call(g, f, {a});
    CHECK(fa1 == fa2);
    CHECK(g.numClasses() == 3); // a, the user function f, f(a)
}

TEST_CASE("merging restores congruence after rebuild", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 1, "{ return a0; }");
    EClassId a = var(g, 0);
    EClassId b = var(g, 1);
    EClassId fa = call(g, f, {a});
    EClassId fb = call(g, f, {b});
    EClassId ffa = call(g, f, {fa});
    EClassId ffb = call(g, f, {fb});
    REQUIRE(g.find(fa) != g.find(fb));
    CHECK(g.merge(a, b, {}));
    CHECK_FALSE(g.merge(a, b, {}));
    g.rebuild();
    CHECK(g.clean());
    CHECK(g.find(fa) == g.find(fb));
    CHECK(g.find(ffa) == g.find(ffb));
    // The hashcons holds only canonical nodes and each class lists each form once.
    for (EClassId c : g.classIds()) {
        for (ENodeId n : g.eclass(c).nodes) {
            CHECK(g.lookup(g.node(n)) == c);
        }
    }
    // Free variables are the union over the members.
    CHECK(g.data(fa).freeVars == std::vector<int32_t>{0, 1});
}

TEST_CASE("a cycle of equalities: f(x) = x", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 1, "{ return a0; }");
    EClassId x = var(g, 0);
    EClassId fx = call(g, f, {x});
    g.merge(fx, x, {});
    g.rebuild();
    EClassId ffx = call(g, f, {fx});
    CHECK(g.find(ffx) == g.find(x));
    CHECK(g.data(x).cost == 1); // the smallest member is x itself
    CHECK(g.show(ffx) == "free0");
}

TEST_CASE("merging classes of different types is a type error", "[egraph]") {
    EGraph g;
    EClassId x = var(g, 0);
    ENode n;
    n.op = lift::Op::Param;
    n.ival = 1;
    n.attr = g.internAttr({{}, {g.types.intType()}});
    EClassId y = g.add(n);
    CHECK_THROWS_AS(g.merge(x, y, {}), TypeError);
    CHECK(g.find(x) != g.find(y)); // nothing changed
}

TEST_CASE("analyses stay consistent with a recomputation after merges", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 2, "{ return a0 + a1; }");
    std::vector<EClassId> xs;
    for (int i = 0; i < 4; ++i) {
        xs.push_back(var(g, i));
    }
    EClassId t1 = call(g, f, {xs[0], xs[1]});
    EClassId t2 = call(g, f, {xs[2], xs[3]});
    EClassId t3 = call(g, f, {t1, t2});
    g.merge(t1, xs[0], {});
    g.merge(t3, xs[3], {});
    g.rebuild();
    for (EClassId c : g.classIds()) {
        const ClassData& d = g.data(c);
        uint64_t best = UINT64_MAX;
        std::vector<int32_t> fv;
        for (ENodeId n : g.eclass(c).nodes) {
            uint64_t cost = 1;
            for (EClassId ch : g.node(n).children) {
                cost += g.data(ch).cost;
                const auto& cf = g.data(ch).freeVars;
                fv.insert(fv.end(), cf.begin(), cf.end());
            }
            if (g.node(n).op == lift::Op::Param) {
                fv.push_back(g.node(n).ival);
            }
            best = std::min(best, cost);
        }
        std::sort(fv.begin(), fv.end());
        fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
        CHECK(d.cost == best);
        CHECK(d.freeVars == fv);
    }
}

// A class keeps its cost in 32 bits and a larger one aside: either way it reads the same.
TEST_CASE("smallest-term costs past 32 bits are exact through merges", "[egraph]") {
    EGraph g;
    uint32_t add = floatFun(g, "add", 2, "{ return a0 + a1; }");
    std::vector<EClassId> chain{var(g, 0)};
    std::vector<uint64_t> costs{1};
    for (int k = 0; k < 40; ++k) { // x(k+1) = add(x(k), x(k)): the application, add, two x(k)
        chain.push_back(call(g, add, {chain.back(), chain.back()}));
        costs.push_back(2 + 2 * costs.back());
    }
    for (size_t k = 0; k < chain.size(); ++k) {
        CHECK(g.data(chain[k]).cost == costs[k]);
    }
    REQUIRE(costs[40] > (uint64_t(1) << 40));
    CHECK(g.merge(chain[40], chain[39], {})); // two large costs: the smaller stays
    g.rebuild();
    CHECK(g.data(chain[40]).cost == costs[39]);
    CHECK(g.merge(chain[39], var(g, 1), {})); // a small one replaces it
    g.rebuild();
    CHECK(g.data(chain[40]).cost == 1);
    CHECK(g.data(chain[33]).cost == costs[33]);
    CHECK(g.memoryParts().total() == g.memoryBytes());
}

TEST_CASE("an inline list moves to the heap and back", "[egraph]") {
    InlineVec<uint32_t> v{1, 2, 3};
    CHECK(v.heapBytes() == 0);
    v.push_back(4);
    v.push_back(5);
    CHECK(v.heapBytes() > 0);
    InlineVec<uint32_t> copy = v;
    CHECK(copy == v);
    CHECK(std::vector<uint32_t>(v.begin(), v.end()) == std::vector<uint32_t>{1, 2, 3, 4, 5});
    v.truncate(2);
    CHECK(v.heapBytes() == 0);
    CHECK(std::vector<uint32_t>(v.begin(), v.end()) == std::vector<uint32_t>{1, 2});
    uint32_t more[] = {7, 8, 9, 10};
    v.appendExact(more, 4);
    CHECK(v.capacity() == 6);
    CHECK(v.back() == 10);
    CHECK(copy.size() == 5);
}

TEST_CASE("duplicates read their owner's node and give their storage back", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 1, "{ return a0; }");
    constexpr int kVars = 3000;
    std::vector<EClassId> vars;
    std::vector<EClassId> calls;
    for (int i = 0; i < kVars; ++i) {
        vars.push_back(var(g, i));
        calls.push_back(call(g, f, {vars.back()}));
    }
    size_t idsBefore = g.numNodeIds();
    for (int i = 1; i < kVars; ++i) {
        g.merge(vars[0], vars[static_cast<size_t>(i)], {});
    }
    g.rebuild();
    CHECK(g.numNodeIds() == idsBefore); // ids stay
    CHECK(g.find(calls.front()) == g.find(calls.back()));
    CHECK(g.eclass(calls.back()).nodes.size() == 1); // one f(x) is left
    // Every f(x_i), owner or duplicate, reads the same node.
    for (EClassId c : calls) {
        CHECK(g.node(c) == g.node(calls.front()));
    }
    // kVars - 1 of the stored nodes were freed and compacted away.
    EGraph::MemoryParts m = g.memoryParts();
    CHECK(m.total() == g.memoryBytes());
    CHECK(m.nodes < (g.numNodes() + 1024) * sizeof(StoredNode));
    CHECK(g.numNodes() == static_cast<size_t>(kVars) + 2);
}
