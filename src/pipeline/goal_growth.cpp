// Goal-directed growth without macros (docs/search.md, "Growing the shared reductions"): the
// rewrites that fuse a shared reduction's operands into its loop, run only around the shared
// reductions.
#include "egopt/rules/composite.hpp"
#include "egopt/rules/loader.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <set>

namespace egopt::pipeline {

namespace {

// Growth runs per stage: each focuses on the newest shared reductions after the last (the
// first run's rewrites make new ones, fused further by the second).
constexpr size_t kGrowthRounds = 2;

// The rule files' group of fusion steps (docs/search.md, "Growing the shared reductions").
constexpr const char* kFusionGroup = "goal-fusion-steps";

// The classes of a shared reduction's term: its application's, and below it those of each
// class's smallest term. The growth rewrites the reduction's own term (and the forms it
// creates, which join the focus as they are made), not every alternative below it.
void termClasses(const egraph::EGraph& g, egraph::ENodeId application, size_t maxClasses,
                 std::set<egraph::EClassId>& out) {
    std::vector<egraph::EClassId> stack{g.findConst(application)};
    for (egraph::EClassId child : g.node(application).children) {
        stack.push_back(child);
    }
    while (!stack.empty() && out.size() < maxClasses) {
        egraph::EClassId c = g.findConst(stack.back());
        stack.pop_back();
        if (!out.insert(c).second) {
            continue;
        }
        for (egraph::EClassId child : g.node(g.data(c).best).children) {
            stack.push_back(child);
        }
    }
}

} // namespace

std::vector<egraph::Rule> goalGrowthRules(const std::vector<Phase>& phases,
                                          const egraph::Library& lib) {
    std::vector<egraph::Rule> loaded;
    std::vector<rules::RuleGroup> groups;
    for (const Phase& phase : phases) {
        for (const std::string& file : phase.ruleFiles) {
            rules::RuleFile f = rules::loadRuleFile(file, lib);
            for (egraph::Rule& r : rules::primitiveRules(std::move(f.rules))) {
                loaded.push_back(std::move(r));
            }
            for (rules::RuleGroup& g : f.groups) {
                if (g.name == kFusionGroup) {
                    groups.push_back(std::move(g));
                }
            }
        }
    }
    // In the order the phases load them (the runner applies rules in order).
    std::set<std::string, std::less<>> members;
    for (const rules::RuleGroup& g : groups) {
        members.insert(g.members.begin(), g.members.end());
    }
    std::vector<egraph::Rule> out;
    std::set<std::string> names;
    for (egraph::Rule& r : loaded) {
        if (members.count(r.name) && names.insert(r.name).second) {
            out.push_back(std::move(r));
        }
    }
    return out;
}

GrowthResult growGoals(egraph::EGraph& g, egraph::RewriteContext& ctx,
                       const std::vector<egraph::Rule>& rules, const GrowthLimits& limits,
                       size_t threads) {
    GrowthResult out;
    auto start = std::chrono::steady_clock::now();
    std::set<egraph::EClassId> region;
    for (const auto& goal : sharedReductions(g, limits.reductions)) {
        termClasses(g, goal.back(), limits.classes, region);
    }
    if (region.empty()) {
        return out;
    }
    egraph::Focus focus;
    focus.classes.assign(region.begin(), region.end());
    focus.since = g.numNodeIds();
    size_t before = g.numNodes();
    egraph::Library lib = egraph::Library::standard();
    egraph::Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = limits.iterations;
    runner.limits.nodes = before + limits.nodes;
    runner.limits.seconds = limits.seconds;
    runner.threads = std::max<size_t>(1, threads);
    runner.focus = &focus;
    out.run = runner.run();
    out.regionClasses = focus.classes.size();
    out.added = g.numNodes() > before ? g.numNodes() - before : 0; // merges remove e-nodes
    for (const auto& goal : sharedReductions(g, limits.reductions)) {
        out.fused += fusedReduction(g, goal.back());
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

void growGoalStage(egraph::EGraph& g, egraph::RewriteContext& ctx, const Options& options, bool gpu,
                   Result& result, const Progress& progress) {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rules =
        goalGrowthRules(resolvePhases(options.saturation, gpu, true), lib);
    for (size_t round = 0; round < kGrowthRounds; ++round) {
        GrowthResult grown = growGoals(g, ctx, rules, GrowthLimits{}, options.saturation.threads);
        PhaseResult pr{fmt("stage %zu goal growth", result.searchStages + 1),
                       {},
                       {},
                       std::move(grown.run),
                       g.numNodes(),
                       g.numClasses(),
                       grown.seconds};
        for (const egraph::Rule& r : rules) {
            pr.rules.push_back(r.name);
        }
        progress(fmt("saturate %s: %zu e-classes of the newest shared reductions' terms, %zu "
                     "e-nodes added, %zu of them fused, %.2f s",
                     pr.name.c_str(), grown.regionClasses, grown.added, grown.fused,
                     grown.seconds));
        result.phases.push_back(std::move(pr));
    }
}

} // namespace egopt::pipeline
