// Compiled direct right-hand sides (docs/egraph.md, "Patterns and rules"): the
// rules whose right-hand side is added node by node are applied through DirectRhs, and the
// e-graph, ids included, and every rule's applications and new e-nodes must be those of the
// generic path after every iteration, on 1 and 2 threads.
#include "egopt/egraph/direct_rhs.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "same_runs.hpp"
#include "sanitizer_run.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

using namespace egopt;
using namespace egopt::egraph;

namespace {

struct DirectRun {
    std::vector<std::string> graphs; // after each iteration
    RunReport report;
    size_t fromDirect = 0;
};

struct DirectOptions {
    bool direct = true;
    size_t threads = 1;
    size_t nodes = 200'000;
    size_t matchLimit = 0; // 0: no backoff
};

DirectRun saturateWith(const std::string& program, const std::vector<Rule>& rules,
                       const Library& lib, const DirectOptions& o) {
    EGraph g;
    lift::Program p = lift::parseProgram(program, "direct.lift");
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.scheduler.matchLimit = o.matchLimit;
    runner.directRhs = o.direct;
    runner.threads = o.threads;
    runner.planWindowSize = 64; // several windows per rule on 2 threads
    runner.limits.iterations = 100;
    runner.limits.nodes = o.nodes;
    DirectRun run;
    run.report =
        runner.run([&](const IterationReport&) { run.graphs.push_back(test::structure(g)); });
    for (const RuleStats& st : run.report.rules) {
        run.fromDirect += st.fromDirect;
    }
    return run;
}

void checkSameAsGeneric(const DirectRun& generic, const DirectRun& direct) {
    CHECK(generic.fromDirect == 0);
    test::checkSameRuns(generic.report, generic.graphs, direct.report, direct.graphs, {});
}

} // namespace

TEST_CASE("the rules of an AC sum compile to direct right-hand sides", "[egraph]") {
    Library lib = Library::standard();
    for (const Rule& rule : test::loadSourceRules(lib, "tests/egraph/data/sum.rules")) {
        INFO(rule.name);
        CHECK(DirectRhs::compile(rule).has_value());
    }
    // Binders, sizes and C++ appliers take the generic path.
    size_t compiled = 0, rules = 0;
    for (const Rule& rule : test::loadSourceRules(lib, "rules/core.rules")) {
        compiled += DirectRhs::compile(rule) ? 1 : 0;
        ++rules;
    }
    CHECK(compiled < rules);
}

TEST_CASE("direct right-hand sides build the e-graph of the generic path", "[egraph]") {
    Library lib = Library::standard();
    auto sum = test::loadSourceRules(lib, "tests/egraph/data/sum.rules");
    const size_t terms = testenv::unlessSanitized(7, 5);
    for (size_t threads : {1u, 2u}) {
        for (size_t matchLimit : {0u, 1000u}) {
            INFO("arith-" << terms << ", " << threads << " threads, match limit " << matchLimit);
            DirectOptions o{true, threads, 200'000, matchLimit};
            DirectRun direct = saturateWith(test::arithSumText(terms), sum, lib, o);
            o.direct = false;
            DirectRun generic = saturateWith(test::arithSumText(terms), sum, lib, o);
            checkSameAsGeneric(generic, direct);
            CHECK(direct.fromDirect > 0);
        }
    }
    // Right-hand sides that are a variable (x·1 => x), literals, one inner e-node; stopped by
    // the e-node limit inside an iteration.
    auto arith = test::loadSourceRules(lib, "tests/egraph/data/arith.rules");
    const std::string program =
        "fun(Float, Float, Float, (a, b, c) => add(mult(neg(sub(a, b)), add(c, 0.0f)), "
        "mult(mult(a, 1.0f), neg(neg(add(b, c))))))";
    const size_t limit = testenv::unlessSanitized(6000, 2500);
    for (size_t threads : {1u, 2u}) {
        INFO("arith.rules, " << threads << " threads");
        DirectRun direct = saturateWith(program, arith, lib, {true, threads, limit, 0});
        DirectRun generic = saturateWith(program, arith, lib, {false, threads, limit, 0});
        checkSameAsGeneric(generic, direct);
        CHECK(direct.fromDirect > 0);
    }
}

TEST_CASE("direct right-hand sides beside the Lift rules", "[egraph]") {
    // mm with the core rules: most right-hand sides have binders; those without are direct.
    Library lib = Library::standard();
    auto rules = test::loadSourceRules(lib, "rules/core.rules");
    std::ifstream in(test::example("mm.lift"));
    std::string mm((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t limit = testenv::unlessSanitized(4000, 1500);
    DirectRun direct = saturateWith(mm, rules, lib, {true, 1, limit, 1000});
    DirectRun generic = saturateWith(mm, rules, lib, {false, 1, limit, 1000});
    checkSameAsGeneric(generic, direct);
}
