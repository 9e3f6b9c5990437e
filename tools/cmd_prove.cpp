// egopt prove A.lift B.lift: inserts A and B, saturates until their roots share an e-class (or a
// limit), says whether they are equal and prints the derivation (each rule and each
// intermediate term).
#include "cli.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/lift/frontend.hpp"
#include "saturate_common.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <sstream>

namespace egopt::cli {

std::vector<egraph::Rule> loadRuleOptions(const Args& args, const egraph::Library& lib) {
    std::vector<std::string> files;
    for (const auto& list : args.values("rules")) {
        std::stringstream ss(list);
        for (std::string f; std::getline(ss, f, ',');) {
            if (!f.empty()) {
                files.push_back(f);
            }
        }
    }
    if (files.empty()) {
        files.push_back(rules::defaultRulesPath());
    }
    std::vector<egraph::Rule> out;
    for (const auto& f : files) {
        auto more = rules::loadRules(f, lib);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

namespace {} // namespace

void configureRunner(egraph::Runner& runner, const Args& args) {
    runner.threads = static_cast<size_t>(nonNegativeNumber(args, "threads", 1));
    runner.limits.iterations = static_cast<size_t>(
        nonNegativeNumber(args, "iterations", double(runner.limits.iterations)));
    runner.limits.nodes =
        static_cast<size_t>(nonNegativeNumber(args, "node-limit", double(runner.limits.nodes)));
    runner.limits.seconds = nonNegativeNumber(args, "time-limit", runner.limits.seconds);
    runner.limits.memoryBytes = static_cast<size_t>(
        nonNegativeNumber(args, "memory-limit", double(runner.limits.memoryBytes >> 20)) * 1024 *
        1024);
    runner.scheduler.matchLimit = static_cast<size_t>(
        nonNegativeNumber(args, "match-limit", double(runner.scheduler.matchLimit)));
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void printDerivation(const egraph::Explanation& ex) {
    std::printf("equal\n  %s\n", ex.start.c_str());
    for (const auto& s : ex.steps) {
        std::printf("= by %s%s\n  %s\n", s.rule.c_str(), s.forward ? "" : " (reversed)",
                    s.term.c_str());
    }
}

} // namespace

// Both programs go into one e-graph before saturating, so rules rewrite each towards the other
// (meet in the middle); the run stops as soon as the roots share an e-class, before the rules
// grow the e-graph further.
int runProve(const Args& args) {
    lift::Program a = lift::parseFile(args.positional.at(0));
    lift::Program b = lift::parseFile(args.positional.at(1));
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rules = loadRuleOptions(args, lib);
    egraph::EGraph g;
    g.explanations = true;
    egraph::Inserted ia = egraph::insertProgram(g, a);
    egraph::Inserted ib = egraph::insertProgram(g, b);
    egraph::Runner runner(g, rules, lib);
    configureRunner(runner, args);
    runner.goal = [&](const egraph::EGraph& eg) {
        return eg.findConst(ia.root) == eg.findConst(ib.root);
    };
    auto start = std::chrono::steady_clock::now();
    egraph::RunReport report = runner.run();
    double seconds = secondsSince(start);
    std::printf("saturation: %s after %zu iterations, %zu e-nodes, %zu e-classes, %.2f s\n",
                std::string(egraph::stopReasonName(report.stop)).c_str(), report.iterations.size(),
                g.numNodes(), g.numClasses(), seconds);
    if (g.findConst(ia.root) != g.findConst(ib.root)) {
        std::printf("not proven equal\n");
        return kExitNoCandidate;
    }
    start = std::chrono::steady_clock::now();
    egraph::Explanation ex = egraph::explain(g, ia.root, ib.root, ia.signature.names);
    std::printf("derivation: %zu steps, explained in %.2f s\n", ex.steps.size(),
                secondsSince(start));
    printDerivation(ex);
    return kExitOk;
}

} // namespace egopt::cli
