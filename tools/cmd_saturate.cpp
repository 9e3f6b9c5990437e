// egopt saturate FILE: equality saturation with rule files, printing the e-graph size per
// iteration, the stop reason, and with --stats per-rule statistics.
#include "cli.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/dump.hpp"
#include "egopt/lift/frontend.hpp"
#include "saturate_common.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace egopt::cli {

namespace {

void printStats(const egraph::RunReport& report) {
    std::printf("%-22s %9s %9s %9s %6s %9s\n", "rule", "matches", "applied", "new nodes", "bans",
                "time (s)");
    for (const auto& r : report.rules) {
        std::printf("%-22s %9zu %9zu %9zu %6zu %9.3f\n", r.name.c_str(), r.matches, r.applications,
                    r.newNodes, r.timesBanned, r.searchSeconds + r.applySeconds);
    }
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
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rules = loadRuleOptions(args, lib);
    egraph::EGraph g;
    egraph::Inserted ins = egraph::insertProgram(g, program);
    egraph::Runner runner(g, rules, lib);
    configureRunner(runner, args);
    std::printf("start: %zu e-nodes, %zu e-classes\n", g.numNodes(), g.numClasses());
    egraph::RunReport report = runner.run([](const egraph::IterationReport& it) {
        std::printf("iteration %zu: %zu e-nodes, %zu e-classes, %zu bytes, %zu applied, %.3f s\n",
                    it.iteration, it.nodes, it.classes, it.bytes, it.applied, it.seconds);
        std::fflush(stdout);
    });
    std::printf("stop: %s\nfinal: %zu e-nodes, %zu e-classes\n",
                std::string(egraph::stopReasonName(report.stop)).c_str(), g.numNodes(),
                g.numClasses());
    for (const auto& c : g.constraints()) {
        std::printf("tuning variable %s divides %s\n", c.var.c_str(), c.divides.toString().c_str());
    }
    if (args.has("stats")) {
        printStats(report);
    }
    if (auto path = args.value("dump-egraph")) {
        dump(g, ins.root, *path);
    }
    return kExitOk;
}

} // namespace egopt::cli
