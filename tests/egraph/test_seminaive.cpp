// Semi-naive search (docs/egraph.md, "Unchanged matches"): without the backoff scheduler, the
// search leaves the unchanged matches it can tell apart unenumerated, and the apply phase
// enumerates those of them that may change something. The e-graph must be the one the full
// search builds, ids included, after every iteration, on 1 and 2 threads.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "same_runs.hpp"
#include "sanitizer_run.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <sstream>

using namespace egopt;
using namespace egopt::egraph;

namespace {

struct SemiNaiveRun {
    std::vector<std::string> graphs; // after each iteration
    RunReport report;
    size_t matches = 0, applications = 0, newNodes = 0, deferred = 0, enumerated = 0;
};

SemiNaiveRun saturateSemiNaive(const std::string& program, const std::vector<Rule>& rules,
                               const Library& lib, bool semiNaive, size_t threads,
                               size_t nodes = 200'000) {
    EGraph g;
    lift::Program p = lift::parseProgram(program, "seminaive.lift");
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.scheduler.matchLimit = 0;
    runner.semiNaive = semiNaive;
    runner.threads = threads;
    runner.limits.iterations = 100;
    runner.limits.nodes = nodes;
    SemiNaiveRun run;
    run.report =
        runner.run([&](const IterationReport&) { run.graphs.push_back(test::structure(g)); });
    for (const RuleStats& st : run.report.rules) {
        run.matches += st.matches;
        run.applications += st.applications;
        run.newNodes += st.newNodes;
        run.deferred += st.deferred;
        run.enumerated += st.deferredEnumerated;
    }
    return run;
}

void checkSameAsFull(const SemiNaiveRun& full, const SemiNaiveRun& semi) {
    CHECK(full.deferred == 0);
    test::checkSameRuns(full.report, full.graphs, semi.report, semi.graphs,
                        {.matches = false, .skipsAndBans = false});
}

} // namespace

TEST_CASE("semi-naive search builds the e-graph of the full search from fewer matches",
          "[egraph]") {
    Library lib = Library::standard();
    auto rules = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    for (size_t n : testenv::sanitizerRun() ? std::vector<size_t>{6} : std::vector<size_t>{6, 7}) {
        for (size_t threads : {1u, 2u}) {
            INFO("arith-" << n << ", " << threads << " threads");
            SemiNaiveRun full =
                saturateSemiNaive(test::arithSumText(n), rules, lib, false, threads);
            SemiNaiveRun semi = saturateSemiNaive(test::arithSumText(n), rules, lib, true, threads);
            CHECK(full.report.stop == StopReason::Saturated);
            checkSameAsFull(full, semi);
            // Fewer matches enumerated; some deferred ranges were enumerated at apply time
            // (a merge of the phase reached them) and most were not.
            CHECK(semi.matches * 10 < full.matches * 6);
            CHECK(semi.deferred > 0);
            CHECK(semi.enumerated > 0);
            CHECK(semi.enumerated * 2 < semi.deferred);
        }
    }
}

TEST_CASE("semi-naive search agrees with the full search on the arithmetic rules", "[egraph]") {
    // Negation, subtraction, x·1 and x+0 besides the AC rules: rules with one or no inner
    // right-hand e-node, literal conditions, right-hand sides that are a variable.
    Library lib = Library::standard();
    auto rules = test::loadSourceRules(lib, "tests/egraph/data/arith.rules");
    const std::string program =
        "fun(Float, Float, Float, (a, b, c) => add(mult(neg(sub(a, b)), add(c, 0.0f)), "
        "mult(mult(a, 1.0f), neg(neg(add(b, c))))))";
    for (size_t threads : {1u, 2u}) {
        INFO(threads << " threads");
        // Stopped by the e-node limit inside an iteration, after a few saturating ones.
        const size_t limit = testenv::unlessSanitized(6000, 2500);
        SemiNaiveRun full = saturateSemiNaive(program, rules, lib, false, threads, limit);
        SemiNaiveRun semi = saturateSemiNaive(program, rules, lib, true, threads, limit);
        checkSameAsFull(full, semi);
        CHECK(semi.matches < full.matches);
        CHECK(semi.deferred > 0);
    }
}

TEST_CASE("semi-naive search is off with the backoff scheduler", "[egraph]") {
    // Bans count every match, so a search that leaves some unenumerated would ban later.
    Library lib = Library::standard();
    auto rules = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    EGraph g;
    lift::Program p = lift::parseProgram(test::arithSumText(6), "seminaive.lift");
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 100;
    RunReport r = runner.run();
    for (const RuleStats& st : r.rules) {
        CHECK(st.deferred == 0);
    }
}
