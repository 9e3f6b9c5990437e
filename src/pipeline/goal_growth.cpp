// Goal-directed growth without macros (docs/search-goal.md, "Growing the shared reductions"): the
// rewrites that block a sharing map's elements (a bounded block of accumulators) and those that
// fuse a shared reduction's operands into its loop, each run only around its goal's terms.
#include "egopt/rules/composite.hpp"
#include "egopt/rules/loader.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <optional>
#include <set>

namespace egopt::pipeline {

namespace {

// Growth runs per stage, each towards the goal property the first shared reduction lacks (the
// goal is detected again after each run: a run's rewrites make new shared reductions, which the
// next one takes further).
constexpr size_t kGrowthRounds = 4;

// Each goal property's run: the rule files' group of steps towards it (docs/search-goal.md,
// "Growing the shared reductions"; data, like the rules) and the run's name in the report,
// indexed by GrowthGoal.
struct GrowthRunNames {
    const char* group;
    const char* name;
};
constexpr GrowthRunNames kGrowthRunNames[] = {
    {"goal-vector-steps", "vector"},                // GrowthGoal::Vector
    {"goal-blocking-steps", "blocking"},            // GrowthGoal::Bounded
    {"goal-fusion-steps", "fusion"},                // GrowthGoal::Fused
    {"goal-parallel-steps", "parallel"},            // GrowthGoal::Parallel
    {"goal-local-steps", "local"},                  // GrowthGoal::Local
    {"goal-interchange-steps", "interchange"},      // GrowthGoal::Interchange
    {"goal-blocking-steps", "blocking of vectors"}, // GrowthGoal::VectorBlocking
    {"goal-fusion-steps", "fusion of vectors"},     // GrowthGoal::VectorFusion
    {"goal-parallel-steps", "parallel of vectors"}, // GrowthGoal::VectorParallel
};

// The file of the local run's own step (stage-local), which no phase loads: beside the phases'
// opencl.rules, whose copies and lowerings the run also takes.
constexpr const char* kStagingFile = "staging.rules";

const GrowthRunNames& runOf(GrowthGoal goal) {
    return kGrowthRunNames[static_cast<size_t>(goal)];
}

} // namespace

// The classes above `roots` (those with a member that has one of them as a child, and so on up
// to the program's root, breadth first), at most `maxClasses`, into `out`: where the maps
// around a shared reduction are.
void classesAbove(const egraph::EGraph& g, const std::vector<egraph::EClassId>& roots,
                  size_t maxClasses, std::set<egraph::EClassId>& out, egraph::EClassId below) {
    std::deque<egraph::EClassId> queue(roots.begin(), roots.end());
    while (!queue.empty() && out.size() < maxClasses) {
        egraph::EClassId c = g.findConst(queue.front());
        queue.pop_front();
        if (c >= below || !out.insert(c).second) {
            continue;
        }
        for (egraph::ENodeId p : g.eclass(c).parents) {
            queue.push_back(g.findConst(p));
        }
    }
}

// The classes up to `levels` parents above `roots` (theirs included), at most `maxClasses`, into
// `out`: the maps that hold a sharing map in their lambda.
void parentsWithin(const egraph::EGraph& g, const std::vector<egraph::EClassId>& roots,
                   size_t levels, size_t maxClasses, std::set<egraph::EClassId>& out) {
    std::vector<egraph::EClassId> level(roots.begin(), roots.end());
    for (size_t l = 0; l <= levels && !level.empty(); ++l) {
        std::vector<egraph::EClassId> next;
        for (egraph::EClassId root : level) {
            egraph::EClassId c = g.findConst(root);
            if (out.size() >= maxClasses) {
                return;
            }
            out.insert(c);
            for (egraph::ENodeId p : g.eclass(c).parents) {
                next.push_back(g.findConst(p));
            }
        }
        level = std::move(next);
    }
}

// The classes of a term: `root`'s, and below it those of each class's smallest term. The growth
// rewrites the goal's own term (and the forms it creates, which join the focus as they are
// made), not every alternative below it.
void termClasses(const egraph::EGraph& g, std::vector<egraph::EClassId> stack, size_t maxClasses,
                 std::set<egraph::EClassId>& out) {
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

namespace {

// Where a run towards `goal` rewrites. Fused: the first shared reductions' terms (the
// application's class, then its children's smallest terms), the bounded ones first
// (sharedReductions), so that a block's loop is the one fused. Bounded: the sharing maps'
// terms, the newest first, where blocking the map's elements makes a shared reduction over
// a block.
std::set<egraph::EClassId> growthRegion(const egraph::EGraph& g, GrowthGoal goal,
                                        const GrowthLimits& limits) {
    std::set<egraph::EClassId> region;
    if (goal == GrowthGoal::Parallel || goal == GrowthGoal::Local) {
        // The first shared reductions' accumulators (their initial values' terms, for an address
        // space) and every class above them (the maps around the loop).
        // Above scalar ones only the classes from before the vector run (scalarMapsBelow).
        std::vector<egraph::EClassId> above;
        std::vector<egraph::EClassId> aboveScalar;
        for (const auto& found : sharedReductions(g, limits.reductions, true)) {
            (vectorReduction(g, found.back()) ? above : aboveScalar)
                .push_back(g.findConst(found.back()));
            termClasses(g, {g.node(found.back()).children[1]}, limits.classes, region);
        }
        classesAbove(g, above, limits.classes, region);
        // The local run stages the blocks around every grown loop, the blocking run's too.
        classesAbove(g, aboveScalar, limits.classes, region,
                     goal == GrowthGoal::Local ? std::numeric_limits<egraph::EClassId>::max()
                                               : limits.scalarMapsBelow);
        return region;
    }
    if (goal == GrowthGoal::Fused) {
        for (const auto& found : sharedReductions(g, limits.reductions, true)) {
            std::vector<egraph::EClassId> stack{g.findConst(found.back())};
            for (egraph::EClassId child : g.node(found.back()).children) {
                stack.push_back(child);
            }
            termClasses(g, std::move(stack), limits.classes, region);
        }
        return region;
    }
    std::vector<egraph::EClassId> classes = g.classIds();
    std::vector<egraph::EClassId> maps;
    if (goal == GrowthGoal::Vector) {
        // The oldest sharing maps (the program's own maps of reductions, before the stages split
        // the reductions), with the maps around them: reading a map's columns as vectors makes
        // reductions over vectors in its lambda, which the map around it interchanges into a
        // sharing map of vector reductions.
        for (size_t i = 0; i < classes.size() && maps.size() < limits.reductions; ++i) {
            if (isSharingMap(g, classes[i])) {
                maps.push_back(classes[i]);
                termClasses(g, {classes[i]}, limits.classes, region);
            }
        }
        constexpr size_t kLevelsAbove = 4; // Apply, Map, Lambda, Apply
        parentsWithin(g, maps, kLevelsAbove, limits.classes, region);
        return region;
    }
    // The newest first; of those the vector run made, only the sharing maps of vector
    // reductions (limits.scalarMapsBelow).
    for (size_t i = classes.size(); i-- > 0 && maps.size() < limits.reductions;) {
        if (classes[i] < limits.mapsBelow && isSharingMap(g, classes[i]) &&
            (classes[i] < limits.scalarMapsBelow || isVectorSharingMap(g, classes[i]))) {
            termClasses(g, {classes[i]}, limits.classes, region);
            maps.push_back(classes[i]);
        }
    }
    return region;
}

// The goal property the first shared reduction lacks (bounded before fused, as
// sharedReductions ranks them); nullopt when it has both.
std::optional<GrowthGoal> nextGoal(const egraph::EGraph& g) {
    auto found = sharedReductions(g, 1, true);
    if (found.empty() || !boundedReduction(g, found.front().back())) {
        return GrowthGoal::Bounded;
    }
    if (!fusedReduction(g, found.front().back())) {
        return GrowthGoal::Fused;
    }
    return std::nullopt;
}

} // namespace

std::vector<egraph::Rule> goalGrowthRules(const std::vector<Phase>& phases,
                                          const egraph::Library& lib, GrowthGoal goal) {
    Phase all; // every phase's files, in load order
    for (const Phase& phase : phases) {
        all.ruleFiles.insert(all.ruleFiles.end(), phase.ruleFiles.begin(), phase.ruleFiles.end());
    }
    if (goal == GrowthGoal::Local) {
        addBeside(all, "opencl.rules", {kStagingFile});
    }
    std::vector<egraph::Rule> loaded;
    std::vector<rules::RuleGroup> groups;
    for (const std::string& file : all.ruleFiles) {
        rules::RuleFile f = rules::loadRuleFile(file, lib);
        for (egraph::Rule& r : rules::primitiveRules(std::move(f.rules))) {
            loaded.push_back(std::move(r));
        }
        for (rules::RuleGroup& g : f.groups) {
            if (g.name == runOf(goal).group) {
                groups.push_back(std::move(g));
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
                       size_t threads, GrowthGoal goal) {
    return growRegion(g, ctx, rules, limits, threads, growthRegion(g, goal, limits));
}

GrowthResult growRegion(egraph::EGraph& g, egraph::RewriteContext& ctx,
                        const std::vector<egraph::Rule>& rules, const GrowthLimits& limits,
                        size_t threads, const std::set<egraph::EClassId>& region) {
    GrowthResult out;
    auto start = std::chrono::steady_clock::now();
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
    for (const auto& found : sharedReductions(g, limits.reductions, true, limits.counted)) {
        out.fused += fusedReduction(g, found.back());
        out.bounded += boundedReduction(g, found.back());
        out.vector += vectorReduction(g, found.back());
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

egraph::ENodeId growTowardsGoal(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                const std::vector<Phase>& phases, size_t threads,
                                const GrowthRun& ran) {
    egraph::Library lib = egraph::Library::standard();
    GrowthLimits limits;
    auto run = [&](GrowthGoal goal) {
        std::vector<egraph::Rule> rules = goalGrowthRules(phases, lib, goal);
        GrowthResult grown = growGoals(g, ctx, rules, limits, threads, goal);
        if (ran) {
            ran(goal, rules, grown);
        }
    };
    // A block of vectors first, from the program's own maps (before the other runs rewrite
    // them: after those the vector steps no longer reach vector columns in 12 iterations): the
    // vector run writes sharing maps of vector reductions (not shared reductions), the blocking
    // run blocks them (sharedReductions ranks bounded vector ones first) and the fusion run fuses
    // their loops. The classes the vector run makes are then left out of the scalar blocks'
    // runs' focus (limits.scalarMapsBelow): the scalar sharing maps among them are the
    // program's maps interchanged on the way to vector columns, which would take those runs'
    // e-nodes and focus.
    auto beforeVector = static_cast<egraph::EClassId>(g.numNodeIds());
    run(GrowthGoal::Vector);
    std::vector<egraph::EClassId> vectorMaps = g.classIds();
    std::erase_if(vectorMaps, [&](egraph::EClassId c) { return !isVectorSharingMap(g, c); });
    // The 2-D blocks' interchange (goal_vectors.cpp), whose maps the other runs leave out.
    limits.mapsBelow = interchangeVectorMaps(g, ctx, phases, threads, ran, vectorMaps);
    if (!vectorMaps.empty()) {
        run(GrowthGoal::Bounded);
        run(GrowthGoal::Fused);
    }
    limits.scalarMapsBelow = beforeVector;
    // Then a block of the program's outputs: each run towards the property the first shared
    // reduction lacks, until it has both.
    for (size_t round = 0; round < kGrowthRounds; ++round) {
        std::optional<GrowthGoal> goal = nextGoal(g);
        if (!goal) {
            break;
        }
        run(*goal);
    }
    // The last run lowers the maps around the grown loops.
    run(GrowthGoal::Parallel);
    // Then the blocks those maps share, staged in local memory once per work-group.
    run(GrowthGoal::Local);
    return growVectorBlocks(g, ctx, phases, threads, ran);
}

egraph::ENodeId growGoalStage(egraph::EGraph& g, egraph::RewriteContext& ctx,
                              const Options& options, bool gpu, Result& result,
                              const Progress& progress) {
    auto ran = [&](GrowthGoal goal, const std::vector<egraph::Rule>& rules, GrowthResult& grown) {
        PhaseResult pr{fmt("stage %zu goal growth (%s)", result.searchStages + 1, runOf(goal).name),
                       {},
                       {},
                       std::move(grown.run),
                       g.numNodes(),
                       g.numClasses(),
                       grown.seconds};
        for (const egraph::Rule& r : rules) {
            pr.rules.push_back(r.name);
        }
        progress(fmt("saturate %s: %zu e-classes in focus, %zu e-nodes added, then of the first "
                     "%zu shared reductions: %zu bounded, %zu with vector accumulators, %zu "
                     "fused, %.2f s",
                     pr.name.c_str(), grown.regionClasses, grown.added, GrowthLimits{}.reductions,
                     grown.bounded, grown.vector, grown.fused, grown.seconds));
        result.phases.push_back(std::move(pr));
    };
    return growTowardsGoal(g, ctx, resolvePhases(options.saturation, gpu, true),
                           options.saturation.threads, ran);
}

} // namespace egopt::pipeline
