// Saturation in rule phases (docs/design.md §6: algorithmic rules, then lowering; each limited).
#include "egopt/rules/composite.hpp"
#include "egopt/rules/loader.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace egopt::pipeline {

std::vector<Phase> defaultPhases(bool gpu) {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(rules::defaultRulesPath()).parent_path();
    auto file = [&](const char* name) { return (dir / name).string(); };
    if (!fs::exists(dir / "algorithmic.rules") || !fs::exists(dir / "opencl.rules")) {
        return {{"core", {file("core.rules")}, {}}};
    }
    // The algorithmic phase creates the split-join variants (each split factor a tuning
    // variable, so a handful of iterations suffice); lowering then offers a few choices per map
    // and reduction, which multiplies the e-graph by a small factor.
    Phase algorithmic{"algorithmic", {file("core.rules"), file("algorithmic.rules")}, {}};
    algorithmic.limits.iterations = 6;
    algorithmic.limits.nodes = 8'000;
    algorithmic.limits.seconds = 20;
    Phase lowering{"lowering", {file("opencl.rules")}, {}};
    if (gpu && fs::exists(dir / "gpu.rules")) {
        lowering.ruleFiles.push_back(file("gpu.rules"));
    }
    lowering.limits.iterations = 4;
    lowering.limits.nodes = 40'000;
    lowering.limits.seconds = 30;
    return {algorithmic, lowering};
}

namespace {

std::vector<egraph::Rule> loadAll(const std::vector<std::string>& files,
                                  const egraph::Library& lib) {
    std::vector<egraph::Rule> out;
    for (const auto& f : files) {
        auto more = rules::loadRules(f, lib);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

} // namespace

void saturatePhases(egraph::EGraph& g, const Options& options, bool gpu, double secondsLeft,
                    Result& result, const Progress& progress, egraph::Applications& applications) {
    std::vector<Phase> phases = options.phases.empty() ? defaultPhases(gpu) : options.phases;
    egraph::Library lib = egraph::Library::standard();
    double timeLeft = options.timeLimit;
    for (size_t i = 0; i < phases.size(); ++i) {
        Phase& phase = phases[i];
        if (options.nodeLimit) {
            phase.limits.nodes = options.nodeLimit;
        }
        if (options.timeLimit > 0) {
            // An even share of what is left: a phase that stops early leaves time to later ones.
            phase.limits.seconds = timeLeft / double(phases.size() - i);
        }
        // The same for the time budget's share. Every phase runs at least one iteration (the
        // runner checks its time limit after each), so the lowering phase still lowers.
        phase.limits.seconds =
            std::min(phase.limits.seconds, std::max(0.0, secondsLeft) / double(phases.size() - i));
        std::vector<egraph::Rule> rules = loadAll(phase.ruleFiles, lib);
        if (options.noMacros) {
            rules = rules::primitiveRules(rules);
        }
        egraph::Runner runner(g, rules, lib);
        runner.applications = &applications;
        runner.limits = phase.limits;
        runner.threads = std::max<size_t>(1, options.threads);
        auto start = std::chrono::steady_clock::now();
        PhaseResult pr{phase.name, phase.ruleFiles, {}, {}, 0, 0, 0};
        for (const egraph::Rule& r : rules) {
            pr.rules.push_back(r.name);
        }
        pr.run = runner.run([&](const egraph::IterationReport& it) {
            progress(fmt("saturate %s: iteration %zu: %zu e-nodes, %zu e-classes, %zu applied, "
                         "%.2f s",
                         phase.name.c_str(), it.iteration, it.nodes, it.classes, it.applied,
                         it.seconds));
        });
        pr.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        pr.nodes = g.numNodes();
        pr.classes = g.numClasses();
        timeLeft = std::max(0.0, timeLeft - pr.seconds);
        secondsLeft -= pr.seconds;
        progress(fmt("saturate %s: stop (%s), %zu e-nodes, %zu e-classes, %.2f s",
                     phase.name.c_str(), std::string(egraph::stopReasonName(pr.run.stop)).c_str(),
                     pr.nodes, pr.classes, pr.seconds));
        result.phases.push_back(std::move(pr));
        if (options.stop && options.stop->requested()) {
            result.notes.push_back("interrupted during saturation");
            return;
        }
    }
}

} // namespace egopt::pipeline
