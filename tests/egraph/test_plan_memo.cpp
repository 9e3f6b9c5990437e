// Planning's shortcuts for many threads (docs/egraph.md, "Parallel apply"): the per-thread type
// memo (PlanTypeMemo) and the scratch tuning spaces over the real one (TuningSpace::over) must
// give every match the plan that planning without them gives.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

using namespace egopt;
using namespace egopt::egraph;

namespace {

// A plan as text: whether it was made, the predicted sizes and every part of the term plan.
// Not drewTuning, which also says whether an earlier match of the same scratch space created a
// variable (compared separately).
std::string planText(const PlannedMatch& p) {
    std::string out = p.ok ? "ok" : "not planned";
    if (!p.ok) {
        return out;
    }
    for (const auto& [var, size] : p.sizes) {
        out += " " + var + "=" + size.toString();
    }
    out += "\nsteps:";
    for (size_t i = 0; i < p.plan.steps.size(); ++i) {
        const ENode& e = p.plan.steps[i];
        out += " " + std::to_string(static_cast<int>(e.op)) + "/" + std::to_string(e.ival) + "/" +
               std::to_string(e.attr) + "(";
        for (EClassId c : e.children) {
            out += std::to_string(c) + ",";
        }
        out +=
            ")t" + std::to_string(p.plan.types.at(i)) + "h" + std::to_string(p.plan.hashes.at(i));
    }
    auto list = [&](const char* name, const std::vector<EClassId>& ids) {
        out += std::string("\n") + name + ":";
        for (EClassId c : ids) {
            out += " " + std::to_string(c);
        }
    };
    list("roots", p.plan.roots);
    list("settled", p.plan.settled);
    return out + "\nroot " + std::to_string(p.plan.root);
}

} // namespace

TEST_CASE("plans made on 2 threads with type memos and scratch tuning spaces are the plans "
          "made without them",
          "[egraph]") {
    Library lib = Library::standard();
    std::string dir = std::string(EGOPT_SOURCE_DIR) + "/rules/";
    std::vector<Rule> rules;
    for (const char* file : {"core.rules", "algorithmic.rules", "opencl.rules"}) {
        auto more = rules::loadRules(dir + file, lib);
        rules.insert(rules.end(), more.begin(), more.end());
    }
    lift::Program p = lift::parseFile(test::example("mm.lift"));
    EGraph g;
    insertProgram(g, p);
    RewriteContext ctx;
    {
        Runner runner(g, rules, lib, ctx);
        runner.threads = 1;
        runner.scheduler.matchLimit = 0;
        runner.limits.iterations = 4;
        runner.limits.nodes = 20000;
        runner.run();
    }
    // The next iteration's matches, planned as the runner plans a window: on a frozen e-graph.
    std::vector<EClassId> classes = g.classIds();
    g.settleVarTypes();
    g.types.freeze(true);
    size_t planned = 0, memoized = 0, drew = 0;
    for (const Rule& rule : rules) {
        if (!plannable(rule)) {
            continue;
        }
        std::vector<Match> matches;
        searchClasses(g, rule, lib, ctx.facts, classes, matches);
        const size_t known = ctx.tuning.constraints().size();
        // Without memo, one copy of the whole tuning space for every match, in order.
        std::vector<std::string> expected;
        std::vector<bool> expectDrew;
        for (const Match& m : matches) {
            TuningSpace copy = ctx.tuning;
            PlannedMatch out;
            TermArena terms;
            planMatch(g, rule, lib, copy, known, m, out, terms);
            expected.push_back(planText(out));
            expectDrew.push_back(out.ok && out.drewTuning);
            planned += out.ok ? 1 : 0;
            drew += out.drewTuning ? 1 : 0;
        }
        // With them, in ranges of 4 on 2 threads: each thread's memo serves many matches.
        std::vector<PlannedMatch> plans(matches.size());
        tbb::enumerable_thread_specific<PlanTypeMemo> memos;
        tbb::task_arena arena(2);
        arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<size_t>(0, matches.size(), 4),
                              [&](const tbb::blocked_range<size_t>& range) {
                                  TuningSpace scratch = TuningSpace::over(ctx.tuning);
                                  TermArena terms;
                                  for (size_t j = range.begin(); j < range.end(); ++j) {
                                      planMatch(g, rule, lib, scratch, known, matches[j], plans[j],
                                                terms, &memos.local());
                                  }
                              });
        });
        for (const PlanTypeMemo& memo : memos) {
            memoized += memo.types.size();
        }
        for (size_t j = 0; j < matches.size(); ++j) {
            INFO(rule.name << ", match " << j);
            CHECK(planText(plans[j]) == expected[j]);
            // A match that creates a variable is marked so in a shared scratch space too (and
            // so are the later matches of its range): its plan's sizes are drawn again.
            CHECK((!expectDrew[j] || plans[j].drewTuning));
        }
    }
    g.types.freeze(false);
    CHECK(planned > 1000); // real plans, not refusals
    CHECK(memoized > 50);  // the memos were used
    CHECK(drew > 10);      // generators that created variables in the scratch spaces
}

TEST_CASE("a planning thread's type memo holds the types of one window only", "[egraph]") {
    // The applying thread no longer empties the memos before a window: each thread's memo must
    // empty itself when first used in another window, and keep what it holds within one (a
    // type worked out against an earlier window's e-graph may be wrong in this one).
    PlanTypeMemo memo;
    memo.forWindow(1).types.emplace(std::vector<uint32_t>{1, 2, 3}, TypeId(7));
    CHECK(memo.forWindow(1).types.size() == 1); // the same window: kept
    CHECK(memo.forWindow(2).types.empty());     // a later window: emptied
    memo.types.emplace(std::vector<uint32_t>{4}, TypeId(8));
    CHECK(memo.forWindow(2).types.size() == 1);
    CHECK(memo.window == 2);
    CHECK(memo.forWindow(5).types.empty()); // windows this thread planned nothing in skipped
}
