// egopt prove A.lift B.lift: inserts A and B, saturates until their roots share an e-class (or a
// limit), says whether they are equal and prints the derivation (each rule and each
// intermediate term).
#include "cli.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/pipeline/saturation.hpp"
#include "egopt/support/clock.hpp"
#include "options.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <sstream>

namespace egopt::cli {

namespace {

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
    egraph::EGraph g;
    g.explanations = true;
    egraph::Inserted ia = egraph::insertProgram(g, a);
    egraph::Inserted ib = egraph::insertProgram(g, b);
    pipeline::SaturationHooks hooks;
    hooks.goal = [&](const egraph::EGraph& eg) {
        return eg.findConst(ia.root) == eg.findConst(ib.root);
    };
    auto start = std::chrono::steady_clock::now();
    egraph::RewriteContext ctx;
    auto phases = pipeline::saturate(g, ctx, saturationFrom(args), false, hooks);
    double seconds = secondsSince(start);
    size_t iterations = 0;
    for (const auto& p : phases) {
        iterations += p.run.iterations.size();
    }
    std::printf("saturation: %s after %zu iterations, %zu e-nodes, %zu e-classes, %.2f s\n",
                std::string(egraph::stopReasonName(phases.back().run.stop)).c_str(), iterations,
                g.numNodes(), g.numClasses(), seconds);
    if (g.findConst(ia.root) != g.findConst(ib.root)) {
        std::printf("not proven equal\n");
        return kExitNoCandidate;
    }
    start = std::chrono::steady_clock::now();
    egraph::Explanation ex = egraph::explain(g, ctx.rules, ia.root, ib.root, ia.signature.names);
    std::printf("derivation: %zu steps, explained in %.2f s\n", ex.steps.size(),
                secondsSince(start));
    printDerivation(ex);
    return kExitOk;
}

} // namespace egopt::cli
