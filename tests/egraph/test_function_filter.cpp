// Applications narrowed by their applied function (FunctionFilter, docs/egraph.md, "Patterns
// and rules"): `?f $ (...)` is searched only among the members that apply ?f's class, or a class
// a condition such as isFun(?f, "mult") allows. The matches, and so the e-graph after every
// iteration, ids included, must be those of the search without it, on 1 and 2 threads.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "same_runs.hpp"
#include "sanitizer_run.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

struct FilterRun {
    std::vector<std::string> graphs; // after each iteration
    RunReport report;
};

struct FilterOptions {
    bool filter = true;
    size_t threads = 1;
    size_t matchLimit = 0;
    size_t iterations = 100;
};

FilterRun saturateFiltered(EGraph& g, const std::vector<Rule>& rules, const Library& lib,
                           const FilterOptions& o) {
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.scheduler.matchLimit = o.matchLimit;
    runner.functionFilter = o.filter;
    runner.threads = o.threads;
    runner.limits.iterations = o.iterations;
    runner.limits.nodes = 200'000;
    FilterRun run;
    run.report =
        runner.run([&](const IterationReport&) { run.graphs.push_back(test::structure(g)); });
    return run;
}

FilterRun saturateFiltered(const std::string& program, const std::vector<Rule>& rules,
                           const Library& lib, const FilterOptions& o) {
    EGraph g;
    lift::Program p = lift::parseProgram(program, "filter.lift");
    insertProgram(g, p);
    return saturateFiltered(g, rules, lib, o);
}

// The same e-graphs and statistics; only how the semi-naive search splits the unchanged
// matches it leaves unenumerated (deferred ranges) may differ, since the filter tells more
// members apart as matching nothing.
void checkSameAsUnfiltered(const FilterRun& plain, const FilterRun& filtered, bool deferring) {
    test::checkSameRuns(plain.report, plain.graphs, filtered.report, filtered.graphs,
                        {.matches = !deferring});
}

} // namespace

TEST_CASE("the function filter builds the e-graph of the unfiltered search", "[egraph]") {
    Library lib = Library::standard();
    auto sum = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    const size_t terms = testenv::unlessSanitized(7, 5);
    for (size_t threads : {1u, 2u}) {
        for (size_t matchLimit : {0u, 1000u}) {
            INFO("arith-" << terms << ", " << threads << " threads, match limit " << matchLimit);
            FilterOptions o{true, threads, matchLimit};
            FilterRun filtered = saturateFiltered(test::arithSumText(terms), sum, lib, o);
            o.filter = false;
            FilterRun plain = saturateFiltered(test::arithSumText(terms), sum, lib, o);
            checkSameAsUnfiltered(plain, filtered, matchLimit == 0);
        }
    }
    // Conditions on literals and user functions, and variables that isFun does not pin.
    auto arith = test::loadSourceRules(lib, "tests/egraph/data/arith.rules");
    const std::string program =
        "fun(Float, Float, Float, (a, b, c) => add(mult(neg(sub(a, b)), add(c, 0.0f)), "
        "mult(mult(a, 1.0f), neg(neg(add(b, c))))))";
    for (size_t threads : {1u, 2u}) {
        INFO("arith.rules, " << threads << " threads");
        FilterOptions o{true, threads, 0, testenv::unlessSanitized(size_t(8), size_t(5))};
        FilterRun filtered = saturateFiltered(program, arith, lib, o);
        o.filter = false;
        FilterRun plain = saturateFiltered(program, arith, lib, o);
        checkSameAsUnfiltered(plain, filtered, true);
    }
}

TEST_CASE("the function filter narrows the roots and members of a search", "[egraph]") {
    // arith-6 after three iterations: many classes hold both add and mult applications.
    Library lib = Library::standard();
    auto sum = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    EGraph g;
    lift::Program p = lift::parseProgram(test::arithSumText(6), "filter.lift");
    insertProgram(g, p);
    saturateFiltered(g, sum, lib, {true, 1, 0, 3});
    OpIndex index(g, true);
    SizeFacts facts;
    size_t narrowed = 0;
    for (const Rule& rule : sum) {
        INFO(rule.name);
        std::optional<FunctionPins> pins = functionPins(rule, lib);
        REQUIRE(pins.has_value());
        std::vector<EClassId> roots;
        std::span<const EClassId> cands;
        FunctionFilter filter = makeFunctionFilter(g, rule, lib, facts, *pins, index, roots, cands);
        std::span<const EClassId> all = index.candidates(rule.lhs);
        CHECK(cands.size() <= all.size());
        narrowed += cands.size() < all.size() ? 1 : 0;
        // Every rule pins its root's function to one class: add's or mult's.
        int32_t slot = filter.fnSlot[rule.lhs.root];
        REQUIRE(slot >= 0);
        CHECK(filter.pinned[static_cast<size_t>(slot)]);
        CHECK(filter.pins[static_cast<size_t>(slot)].size() == 1);
        // Fewer members admitted at the root than the classes hold.
        size_t members = 0, admitted = 0;
        for (EClassId c : all) {
            auto keys = index.appliedFunctions(c, g.eclass(c).nodes.size());
            members += keys.size();
            admitted += static_cast<size_t>(std::count_if(keys.begin(), keys.end(), [&](auto k) {
                return k != kNoClass && filter.admits(static_cast<uint32_t>(slot), k);
            }));
        }
        CHECK(admitted < members);
        // The same matches, in the same order, on the narrowed roots as on all of them.
        std::vector<Match> plainMatches, filteredMatches;
        searchClasses(g, rule, lib, facts, all, plainMatches);
        searchClasses(
            g, rule, lib, facts, cands,
            [&](EClassId c, const Subst& s) {
                filteredMatches.push_back({c, s});
            },
            0, nullptr, &filter);
        REQUIRE(filteredMatches.size() == plainMatches.size());
        for (size_t i = 0; i < plainMatches.size(); ++i) {
            CHECK(filteredMatches[i].eclass == plainMatches[i].eclass);
            CHECK(filteredMatches[i].subst.classes == plainMatches[i].subst.classes);
        }
    }
    CHECK(narrowed > 0); // the mult rules' roots: the classes that hold a product
}

TEST_CASE("the time limit stops an iteration inside its search or apply phase", "[egraph]") {
    // arith-9 without backoff: its sixth to eighth iterations take most of the run. A limit
    // reached early in the longest one stops it there, far before it would end, and leaves a
    // rebuilt e-graph.
    Library lib = Library::standard();
    auto sum = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    const std::string program = test::arithSumText(testenv::unlessSanitized(9, 7));
    FilterRun full = saturateFiltered(program, sum, lib, {});
    REQUIRE(full.report.stop == StopReason::Saturated);
    size_t longest = 0;
    double before = 0;
    for (size_t i = 0; i < full.report.iterations.size(); ++i) {
        if (full.report.iterations[i].seconds > full.report.iterations[longest].seconds) {
            longest = i;
        }
    }
    for (size_t i = 0; i < longest; ++i) {
        before += full.report.iterations[i].seconds;
    }
    const double t = full.report.iterations[longest].seconds;
    INFO("iteration " << longest + 1 << " takes " << t << " s after " << before << " s");
    EGraph g;
    lift::Program p = lift::parseProgram(program, "filter.lift");
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, sum, lib, ctx);
    runner.scheduler.matchLimit = 0;
    runner.limits.iterations = 100;
    runner.limits.nodes = 200'000;
    runner.limits.seconds = before + t / 10;
    RunReport limited = runner.run();
    CHECK(limited.stop == StopReason::TimeLimit);
    REQUIRE(!limited.iterations.empty());
    double total = 0;
    for (const IterationReport& ir : limited.iterations) {
        total += ir.seconds;
    }
    // It stops soon after the limit, well before the iteration would have ended (under
    // sanitizers, whose iterations are short next to the granularity of the checks, a search
    // task and 1,024 applications, within most of it). The last iteration's own time depends
    // on how fast the ones before it ran in this run.
    const double overshoot = t * testenv::unlessSanitized(0.4, 0.8);
    CHECK(total < runner.limits.seconds + overshoot);
    // Rebuilt: a further rebuild finds nothing to do.
    std::string structure = test::structure(g);
    g.rebuild();
    CHECK(test::structure(g) == structure);
    CHECK(limited.iterations.back().nodes == g.numNodes());
}

TEST_CASE("a rule whose ?f is neither pinned nor applied twice takes no function filter",
          "[egraph]") {
    Library lib = Library::standard();
    size_t some = 0;
    for (const Rule& rule : test::loadSourceRules(lib, "rules/opencl.rules")) {
        if (rule.name.starts_with("vectorize-map-capture")) { // Map(fun(x => ?f $ (?a, x))) $ ?xs
            INFO(rule.name);
            CHECK_FALSE(functionPins(rule, lib).has_value());
            ++some;
        }
    }
    CHECK(some > 0);
    for (const Rule& rule : test::loadSourceRules(lib, "tests/egraph/data/sum.rules")) {
        INFO(rule.name);
        CHECK(functionPins(rule, lib).has_value()); // pinned by isFun
    }
}
