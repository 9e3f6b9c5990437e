// egopt saturate FILE: equality saturation with rule files, printing the e-graph size per
// iteration, the stop reason, with --stats per-rule statistics, with --memory where the e-graph's
// bytes are and the process's peak memory, and with --shift-duplicates the e-graph's
// duplication up to shifting (egraph/alpha.hpp).
#include "cli.hpp"
#include "egopt/egraph/alpha.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/dump.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/pipeline/saturation.hpp"
#include "options.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sys/resource.h>

namespace egopt::cli {

namespace {

void printStats(const egraph::RunReport& report) {
    std::printf("%-22s %9s %9s %9s %6s %9s\n", "rule", "matches", "applied", "new nodes", "bans",
                "time (s)");
    size_t deferred = 0, enumerated = 0, matches = 0, planned = 0, inPlace = 0;
    for (const auto& r : report.rules) {
        std::printf("%-22s %9zu %9zu %9zu %6zu %9.3f\n", r.name.c_str(), r.matches, r.applications,
                    r.newNodes, r.timesBanned, r.searchSeconds + r.applySeconds);
        deferred += r.deferred;
        enumerated += r.deferredEnumerated;
        matches += r.deferredMatches;
        planned += r.fromPlans;
        inPlace += r.inPlace;
    }
    if (planned + inPlace > 0) { // parallel apply (docs/egraph.md, "Parallel apply")
        std::printf("planned windows: %zu matches applied from plans, %zu built in place\n",
                    planned, inPlace);
    }
    if (deferred > 0) { // semi-naive search (docs/egraph.md, "Unchanged matches")
        std::printf("deferred: %zu ranges of unchanged matches, %zu enumerated when applying "
                    "(%zu matches)\n",
                    deferred, enumerated, matches);
    }
}

// The saturation's seconds (its iterations'), EGraph::memoryBytes by part and the peak RSS.
void printMemory(const egraph::EGraph& g, const std::vector<pipeline::PhaseResult>& phases) {
    double seconds = 0, search = 0, apply = 0, rebuild = 0, tasks = 0, planning = 0;
    double taskSum = 0, planSum = 0;
    size_t iterations = 0;
    for (const auto& p : phases) {
        for (const auto& it : p.run.iterations) {
            seconds += it.seconds;
            search += it.searchSeconds;
            apply += it.applySeconds;
            rebuild += it.rebuildSeconds;
            tasks += it.searchTaskSeconds;
            planning += it.planSeconds;
            taskSum += it.searchTaskSum;
            planSum += it.planSum;
            ++iterations;
        }
    }
    std::printf("saturation: %zu iterations, %.3f s (search %.3f, apply %.3f, rebuild %.3f; "
                "search tasks %.3f, planning %.3f; summed over threads: search tasks %.3f, "
                "planning %.3f)\n",
                iterations, seconds, search, apply, rebuild, tasks, planning, taskSum, planSum);
    egraph::EGraph::MemoryParts m = g.memoryParts();
    double perNode = g.numNodes() ? static_cast<double>(m.total()) / g.numNodes() : 0.0;
    std::printf(
        "memory: %zu bytes, %.1f per e-node (nodes %zu, ids %zu, classes %zu, hashcons %zu, "
        "members %zu, parents %zu, other %zu)\n",
        m.total(), perNode, m.nodes, m.ids, m.classes, m.hashcons, m.members, m.parents, m.other);
    // The type arena is the program's as well as the e-graph's, and not in memoryBytes; where
    // classes have types of their own it is the size of a part.
    std::printf("types: %zu types, %zu bytes (not in memoryBytes)\n", g.types.size(),
                g.types.bytes());
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS: %.1f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
}

void printShiftDuplicates(const egraph::EGraph& g) {
    egraph::ShiftDuplication d = egraph::measureShiftDuplication(g);
    auto percent = [](size_t part, size_t whole) { return whole ? 100.0 * part / whole : 0.0; };
    std::printf("shift duplicates: %zu of %zu e-classes (%.1f%%; %zu open) in %zu sets, "
                "%zu of %zu e-nodes (%.1f%%)\n",
                d.duplicateClasses, d.classes, percent(d.duplicateClasses, d.classes),
                d.openClasses, d.groups, d.duplicateNodes, d.nodes,
                percent(d.duplicateNodes, d.nodes));
}

void dump(const egraph::EGraph& g, egraph::EClassId root, const std::string& path) {
    std::ofstream out(path);
    if (!out) {
        badInput("cannot write '" + path + "'");
    }
    if (path.ends_with(".dot")) {
        egraph::dumpDot(g, out);
    } else if (path.ends_with(".json")) {
        egraph::dumpJson(g, {root}, out);
    } else {
        badInput("--dump-egraph expects a file ending in .json or .dot, found '" + path + "'");
    }
}

} // namespace

int runSaturate(const Args& args) {
    lift::Program program = lift::parseFile(args.positional.at(0));
    egraph::EGraph g;
    egraph::Inserted ins = egraph::insertProgram(g, program);
    std::printf("start: %zu e-nodes, %zu e-classes\n", g.numNodes(), g.numClasses());
    pipeline::SaturationOptions options = saturationFrom(args);
    // With several phases, a line names each phase and its files as it starts.
    const bool several = pipeline::resolvePhases(options, false).size() > 1;
    pipeline::SaturationHooks hooks;
    const pipeline::Phase* shown = nullptr;
    hooks.iteration = [&](const pipeline::Phase& phase, const egraph::IterationReport& it) {
        if (several && shown != &phase) {
            shown = &phase;
            std::printf("phase %s:", phase.name.c_str());
            for (const auto& f : phase.ruleFiles) {
                std::printf(" %s", f.c_str());
            }
            std::printf("\n");
        }
        std::printf("iteration %zu: %zu e-nodes, %zu e-classes, %zu bytes, %zu applied, %.6f s\n",
                    it.iteration, it.nodes, it.classes, it.bytes, it.applied, it.seconds);
        std::fflush(stdout);
    };
    egraph::RewriteContext ctx;
    auto phases = pipeline::saturate(g, ctx, options, false, hooks);
    for (const auto& p : phases) {
        std::string reason(egraph::stopReasonName(p.run.stop));
        if (phases.size() > 1) {
            reason += " (phase " + p.name + ")";
        }
        std::printf("stop: %s\n", reason.c_str());
    }
    std::printf("final: %zu e-nodes, %zu e-classes\n", g.numNodes(), g.numClasses());
    for (const auto& c : ctx.tuning.constraints()) {
        std::printf("tuning variable %s divides %s\n", c.var.c_str(), c.divides.toString().c_str());
    }
    if (args.has("stats")) {
        for (const auto& p : phases) {
            if (several) {
                std::printf("phase %s\n", p.name.c_str());
            }
            printStats(p.run);
        }
    }
    if (args.has("memory")) {
        printMemory(g, phases);
    }
    if (args.has("shift-duplicates")) {
        printShiftDuplicates(g);
    }
    if (auto path = args.value("dump-egraph")) {
        dump(g, ins.root, *path);
    }
    return kExitOk;
}

} // namespace egopt::cli
