// Congruence and rebuild invariants (test_invariants.hpp) on classic examples: the
// Nelson-Oppen f^5(a) = a, f^3(a) = a puzzle, random merges compared with a naive congruence
// closure, and real saturations with lambdas after every iteration.
#include "test_invariants.hpp"

#include "egopt/egraph/explain.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <set>

using namespace egopt;
using namespace egopt::egraph;
using egopt::test::call;
using egopt::test::floatFun;
using egopt::test::var;

namespace {

EClassId power(EGraph& g, uint32_t f, EClassId x, int n) {
    for (int i = 0; i < n; ++i) {
        x = call(g, f, {x});
    }
    return x;
}

// Terms over three variables with a unary f and a binary h, sharing subterms (a DAG), the
// e-graph's view of them (gid) and a naive congruence closure over the same terms.
struct RandomTerms {
    struct T {
        int op; // 0 variable, 1 f, 2 h
        std::vector<size_t> kids;
    };
    std::vector<T> terms;
    std::vector<EClassId> gid;
    std::vector<std::pair<size_t, size_t>> merges;
    std::mt19937 rng;
    EGraph g;
    RuleNames rules; // names the merges below
    uint32_t f, h;

    RandomTerms(uint32_t seed, bool explanations) : rng(seed) {
        g.explanations = explanations;
        f = floatFun(g, "f", 1, "{ return a0; }");
        h = floatFun(g, "h", 2, "{ return a0; }");
        for (int i = 0; i < 3; ++i) {
            terms.push_back({0, {}});
            gid.push_back(var(g, i));
        }
    }

    size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

    void addTerms(size_t n) {
        for (size_t i = 0; i < n; ++i) {
            T t{pick(2) == 0 ? 1 : 2, {pick(terms.size())}};
            if (t.op == 2) {
                t.kids.push_back(pick(terms.size()));
            }
            gid.push_back(t.op == 1 ? call(g, f, {gid[t.kids[0]]})
                                    : call(g, h, {gid[t.kids[0]], gid[t.kids[1]]}));
            terms.push_back(std::move(t));
        }
    }

    void addMerges(size_t n) {
        for (size_t i = 0; i < n; ++i) {
            merges.emplace_back(pick(terms.size()), pick(terms.size()));
            g.merge(gid[merges.back().first], gid[merges.back().second],
                    {Justification::Kind::Rule, rules.id("given")});
        }
    }

    // Union-find over term indices: the merges, then congruence to a fixpoint.
    std::vector<size_t> closure() const {
        std::vector<size_t> uf(terms.size());
        std::iota(uf.begin(), uf.end(), 0);
        auto find = [&](size_t x) {
            while (uf[x] != x) {
                x = uf[x];
            }
            return x;
        };
        for (auto [a, b] : merges) {
            uf[find(a)] = find(b);
        }
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t i = 0; i < terms.size(); ++i) {
                for (size_t j = i + 1; j < terms.size(); ++j) {
                    if (find(i) != find(j) && congruent(terms[i], terms[j], find)) {
                        uf[find(i)] = find(j);
                        changed = true;
                    }
                }
            }
        }
        for (size_t i = 0; i < uf.size(); ++i) {
            uf[i] = find(i);
        }
        return uf;
    }

    template <class Find>
    static bool congruent(const T& a, const T& b, Find& find) {
        if (a.op != b.op || a.op == 0) {
            return false;
        }
        for (size_t k = 0; k < a.kids.size(); ++k) {
            if (find(a.kids[k]) != find(b.kids[k])) {
                return false;
            }
        }
        return true;
    }
};

// Explains every pair of equal terms: each chain, made of the given merges applied inside
// the first term, must end exactly at the second term. Returns the number of chains checked.
// (At most 200 pairs, to keep the test fast when merges collapse most terms into one class.)
size_t explanationsEndAtTheirTarget(const RandomTerms& t, const std::vector<size_t>& uf) {
    size_t checked = 0;
    for (size_t i = 0; i < uf.size() && checked < 200; ++i) {
        for (size_t j = 0; j < uf.size() && checked < 200; ++j) {
            if (i == j || uf[i] != uf[j]) {
                continue;
            }
            Explanation ex = explain(t.g, t.rules, t.gid[i], t.gid[j]);
            std::string target = explain(t.g, t.rules, t.gid[j], t.gid[j]).start;
            INFO(ex.start << " -> " << target);
            REQUIRE(ex.equal);
            CHECK((ex.steps.empty() ? ex.start : ex.steps.back().term) == target);
            CHECK(std::all_of(ex.steps.begin(), ex.steps.end(),
                              [](const ExplanationStep& s) { return s.rule == "given"; }));
            ++checked;
        }
    }
    return checked;
}

} // namespace

TEST_CASE("f^5(a) = a and f^3(a) = a give f(a) = a", "[egraph]") {
    EGraph g;
    uint32_t f = floatFun(g, "f", 1, "{ return a0; }");
    EClassId a = var(g, 0);
    g.merge(power(g, f, a, 5), a, {});
    g.merge(power(g, f, a, 3), a, {});
    g.rebuild();
    CHECK(g.find(call(g, f, {a})) == g.find(a));
    CHECK(g.numClasses() == 2); // a = f(a) = f(f(a)) = ..., and the function f
    test::checkInvariants(g);
}

TEST_CASE("rebuilding agrees with a naive congruence closure", "[egraph]") {
    for (bool explanations : {false, true}) {
        for (uint32_t seed = 1; seed <= 20; ++seed) {
            RandomTerms t(seed, explanations);
            for (int round = 0; round < 2; ++round) { // duplicates survive across rebuilds
                t.addTerms(25);
                t.addMerges(2);
                t.addTerms(15); // inserted while merges wait for a rebuild
                t.addMerges(2);
                t.g.rebuild();
            }
            std::vector<size_t> uf = t.closure();
            INFO("seed " << seed << (explanations ? " with explanations" : ""));
            size_t mismatches = 0;
            std::set<size_t> classes(uf.begin(), uf.end());
            for (size_t i = 0; i < uf.size(); ++i) {
                for (size_t j = i + 1; j < uf.size(); ++j) {
                    mismatches += (uf[i] == uf[j]) != (t.g.find(t.gid[i]) == t.g.find(t.gid[j]));
                }
            }
            CHECK(mismatches == 0);
            CHECK(t.g.numClasses() == classes.size() + 2); // + the classes of f and h
            test::checkInvariants(t.g);
            if (explanations) {
                CHECK(explanationsEndAtTheirTarget(t, uf) > 0);
            }
        }
    }
}

TEST_CASE("invariants hold after every iteration of saturating mm and asum", "[egraph]") {
    Library lib = Library::standard();
    auto rules = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/core.rules", lib);
    for (const char* file : {"mm.lift", "asum.lift", "nbody.lift"}) {
        INFO(file);
        lift::Program p = lift::parseFile(test::example(file));
        EGraph g;
        insertProgram(g, p);
        RewriteContext ctx;
        Runner runner(g, rules, lib, ctx);
        runner.limits.iterations = 4;
        runner.limits.nodes = 5000;
        size_t checked = 0;
        runner.run([&](const IterationReport&) {
            test::checkInvariants(g);
            ++checked;
        });
        CHECK(checked > 0);
    }
}

TEST_CASE("invariants hold after every iteration of arithmetic saturation", "[egraph]") {
    // Associativity, commutativity and distributivity create many congruent duplicates: the
    // situation in which rebuilding once revived nodes that parent lists had dropped (this
    // test then failed from the fourth iteration on, at 267 e-nodes).
    Library lib = Library::standard();
    addUserFunConditions(lib);
    auto rules =
        rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/tests/egraph/data/arith.rules", lib);
    EGraph g;
    for (const char* body :
         {"mult(add(a, b), add(c, neg(a)))", "add(mult(a, add(b, c)), mult(neg(b), sub(a, c)))",
          "mult(mult(a, b), add(add(c, 1.0f), mult(a, 0.0f)))"}) {
        lift::Program p = lift::parseProgram(
            std::string("fun(Float, Float, Float, (a, b, c) => ") + body + ")", "t.lift");
        insertProgram(g, p);
    }
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 8;
    runner.limits.nodes = 4000;
    size_t checked = 0;
    runner.run([&](const IterationReport& it) {
        INFO("iteration " << it.iteration << ": " << it.nodes << " e-nodes");
        test::checkInvariants(g);
        ++checked;
    });
    CHECK(checked > 3);
}
