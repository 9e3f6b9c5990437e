// The operator-indexed search (OpIndex, Runner::search): it finds exactly the matches a scan of
// every class finds, and saturation with it reaches the e-graph that the rules determine, for
// any thread count and with or without the backoff scheduler.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <sstream>

using namespace egopt;
using namespace egopt::egraph;

namespace {

std::vector<Rule> loadAll(const Library& lib, std::initializer_list<const char*> files) {
    std::vector<Rule> out;
    for (const char* f : files) {
        auto more = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/" + f, lib);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

std::string showMatches(const std::vector<Match>& ms) {
    std::ostringstream out;
    for (const Match& m : ms) {
        out << m.eclass << ":";
        for (EClassId c : m.subst.classes) {
            out << " " << c;
        }
        for (const auto& [name, size] : m.subst.sizes) {
            out << " " << name << "=" << size.toString();
        }
        out << "\n";
    }
    return out.str();
}

// Example `name` grown by `iterations` iterations of `rules` (up to 20,000 e-nodes) into `g`.
void grow(EGraph& g, RewriteContext& ctx, const char* name, const std::vector<Rule>& rules,
          const Library& lib, size_t iterations) {
    lift::Program p = lift::parseFile(test::example(name));
    insertProgram(g, p);
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = iterations;
    runner.limits.nodes = 20000;
    runner.run();
}

lift::Program arithSum(size_t n) {
    return lift::parseProgram(test::arithSumText(n), "sum.lift");
}

} // namespace

TEST_CASE("the operator index finds the matches a scan of every class finds", "[egraph]") {
    Library lib = Library::standard();
    auto rules =
        loadAll(lib, {"rules/core.rules", "rules/algorithmic.rules", "rules/opencl.rules"});
    for (const char* name : {"mm.lift", "asum.lift", "nbody.lift"}) {
        EGraph g;
        RewriteContext ctx;
        grow(g, ctx, name, rules, lib, 3);
        OpIndex index(g);
        size_t tried = 0, total = 0, skipped = 0;
        for (const Rule& rule : rules) {
            std::vector<Match> indexed, scanned;
            searchClasses(g, rule, lib, ctx.facts, index.candidates(rule.lhs), indexed);
            searchClasses(g, rule, lib, ctx.facts, g.classIds(), scanned);
            INFO(name << ", rule " << rule.name);
            CHECK(showMatches(indexed) == showMatches(scanned));
            tried += index.candidates(rule.lhs).size();
            total += g.numClasses();
            skipped += index.candidates(rule.lhs).empty() ? 1 : 0;
        }
        // The index must actually narrow the search (mm: 13% of the classes are tried): most
        // rules apply a pattern that few function classes hold, and some one that none holds.
        CHECK(index.all().size() == g.numClasses());
        CHECK(tried * 4 < total);
        CHECK(skipped > 0);
    }
}

TEST_CASE("an arithmetic sum saturates to the e-graph its rules determine", "[egraph]") {
    // With commutativity, associativity and distributivity the saturated e-graph of
    // sum_{i<n} x_i * y holds, for every subset S of the terms, the class of their sum (an add
    // per ordered split of S into two parts, and y * X_S both ways round) and the class X_S of
    // the sum of S's x's (an add per ordered split): 2 * 3^n - 2^(n+1) + n + 1 e-nodes in
    // 2^(n+1) - 1 classes (egglog's count for the same rules, scripts/bench-egraph), plus the
    // user functions add and mult.
    Library lib = Library::standard();
    auto rules = loadAll(lib, {"tests/egraph/data/sum.rules"});
    const size_t n = 6;
    const size_t pow3 = 729, pow2 = 64;
    for (size_t threads : {1u, 2u}) {
        for (size_t matchLimit : {0u, 1000u, 20u}) {
            EGraph g;
            lift::Program p = arithSum(n);
            insertProgram(g, p);
            RewriteContext ctx;
            Runner runner(g, rules, lib, ctx);
            runner.threads = threads;
            runner.scheduler.matchLimit = matchLimit;
            runner.limits.iterations = 200;
            RunReport r = runner.run();
            INFO(threads << " threads, match limit " << matchLimit);
            CHECK(r.stop == StopReason::Saturated);
            CHECK(g.numNodes() == 2 * pow3 - 2 * pow2 + n + 1 + 2);
            CHECK(g.numClasses() == 2 * pow2 - 1 + 2);
        }
    }
}

TEST_CASE("skipping unchanged matches builds the e-graph that applying them builds", "[egraph]") {
    // One runner skips the matches it applied in an earlier iteration where that is sure to
    // change nothing (docs/egraph.md, "Unchanged matches"); a fresh runner per iteration has
    // applied nothing before and applies every match. Both must give the same e-graph, ids
    // included, after every iteration, with the same per-rule statistics.
    Library lib = Library::standard();
    auto rules = loadAll(lib, {"tests/egraph/data/sum.rules"});
    // n = 6: the smallest sum where a skip without the apply-time check changes the e-graph.
    lift::Program onceProgram = arithSum(6);
    lift::Program freshProgram = arithSum(6);
    EGraph once;
    insertProgram(once, onceProgram);
    EGraph fresh;
    insertProgram(fresh, freshProgram);
    RewriteContext onceCtx, freshCtx;
    Runner runner(once, rules, lib, onceCtx);
    runner.scheduler.matchLimit = 0;
    runner.semiNaive = false; // every match enumerated and counted (test_seminaive.cpp: on)
    std::vector<std::string> onceGraphs, freshGraphs;
    // Per rule: matches, applications, new e-nodes.
    std::vector<std::array<size_t, 3>> onceStats(rules.size()), freshStats(rules.size());
    size_t skipped = 0;
    RunReport r =
        runner.run([&](const IterationReport&) { onceGraphs.push_back(test::structure(once)); });
    for (size_t i = 0; i < rules.size(); ++i) {
        onceStats[i] = {r.rules[i].matches, r.rules[i].applications, r.rules[i].newNodes};
        skipped += r.rules[i].unchangedSkipped;
    }
    for (bool changed = true; changed;) {
        Runner step(fresh, rules, lib, freshCtx);
        step.scheduler.matchLimit = 0;
        step.limits.iterations = 1;
        RunReport one = step.run();
        changed = one.iterations.at(0).applied > 0;
        freshGraphs.push_back(test::structure(fresh));
        for (size_t i = 0; i < rules.size(); ++i) {
            freshStats[i][0] += one.rules[i].matches;
            freshStats[i][1] += one.rules[i].applications;
            freshStats[i][2] += one.rules[i].newNodes;
            CHECK(one.rules[i].unchangedSkipped == 0);
        }
    }
    CHECK(r.stop == StopReason::Saturated);
    CHECK(skipped > 0);
    CHECK(onceStats == freshStats);
    REQUIRE(onceGraphs.size() == freshGraphs.size());
    for (size_t i = 0; i < onceGraphs.size(); ++i) {
        INFO("iteration " << i + 1);
        CHECK(onceGraphs[i] == freshGraphs[i]);
    }
}

TEST_CASE("a class's matches are those of its root members' ranges, in order", "[egraph]") {
    // The search splits large classes into ranges of root members (MemberRange), searched as
    // tasks of their own and read back in order: their matches, concatenated, must be the
    // class's.
    Library lib = Library::standard();
    auto rules =
        loadAll(lib, {"rules/core.rules", "rules/algorithmic.rules", "rules/opencl.rules"});
    EGraph g;
    RewriteContext ctx;
    grow(g, ctx, "mm.lift", rules, lib, 4);
    OpIndex index(g);
    auto show = [](std::vector<Match>& out) {
        return [&out](EClassId c, const Subst& s) { out.push_back({c, s}); };
    };
    size_t split = 0;
    for (const Rule& rule : rules) {
        if (!rootOp(rule.lhs)) {
            continue;
        }
        for (EClassId c : index.candidates(rule.lhs)) {
            size_t members = g.eclass(c).nodes.size();
            if (members < 16) {
                continue;
            }
            std::vector<Match> whole, ranges;
            std::span<const EClassId> one(&c, 1);
            searchClasses(g, rule, lib, ctx.facts, one, show(whole));
            for (uint32_t lo = 0; lo < members; lo += 5) {
                searchClasses(g, rule, lib, ctx.facts, one, show(ranges), 0, nullptr, nullptr,
                              MemberRange{lo, lo + 5});
            }
            INFO("rule " << rule.name << ", class " << c);
            CHECK(showMatches(ranges) == showMatches(whole));
            split += whole.empty() ? 0 : 1;
        }
    }
    CHECK(split > 0);
    // The index lists the classes a search splits: those of kLargeClass members or more.
    std::vector<EClassId> large;
    for (EClassId c : g.classIds()) {
        if (g.eclass(c).nodes.size() >= OpIndex::kLargeClass) {
            large.push_back(c);
        }
    }
    CHECK(std::vector<EClassId>(index.large().begin(), index.large().end()) == large);
}
