// Saturation in rule phases (docs/design.md §6: algorithmic rules, then lowering; each limited).
#include "egopt/pipeline/saturation.hpp"

#include "egopt/pipeline/pipeline.hpp"
#include "egopt/rules/composite.hpp"
#include "egopt/rules/loader.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <initializer_list>

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

Phase phaseOf(std::vector<std::string> ruleFiles, size_t position) {
    return {std::to_string(position + 1), std::move(ruleFiles), egraph::Limits{}};
}

void addBeside(Phase& phase, const char* anchor, std::initializer_list<const char*> extra) {
    namespace fs = std::filesystem;
    auto loaded = [&](const char* name) {
        return std::find_if(phase.ruleFiles.begin(), phase.ruleFiles.end(),
                            [&](const std::string& r) { return fs::path(r).filename() == name; });
    };
    auto at = loaded(anchor);
    if (at == phase.ruleFiles.end()) {
        return;
    }
    fs::path dir = fs::path(*at).parent_path();
    for (const char* name : extra) {
        if (fs::exists(dir / name) && loaded(name) == phase.ruleFiles.end()) {
            phase.ruleFiles.push_back((dir / name).string());
        }
    }
}

namespace {

// Without macros, a phase that loads gpu.rules also loads workgroups.rules and stencils.rules
// beside it: the primitive steps that build the work-group trees gpu.rules' macros write in one
// step (with the macros loaded they would only add other ways to write the same schedules), and
// a stencil's overlapped tiles staged in local memory (no rule applies to a program without
// Slide, so the other programs' e-graphs stay as they are).
void addPrimitiveSteps(Phase& phase) {
    addBeside(phase, "gpu.rules", {"workgroups.rules", "stencils.rules"});
}

// Without macros, for a GPU, a phase that loads algorithmic.rules also loads stencils.rules:
// its tiles are algorithmic steps, and a 2-D tile of the grid is three of them (the blocks of
// rows, each block's stencil over its columns, their overlapped tiles) before copy-view and the
// local copy, more than the lowering phase's iterations hold.
void addStencilTiles(std::vector<Phase>& phases) {
    namespace fs = std::filesystem;
    bool gpu = std::any_of(phases.begin(), phases.end(), [](const Phase& p) {
        return std::any_of(p.ruleFiles.begin(), p.ruleFiles.end(), [](const std::string& r) {
            return fs::path(r).filename() == "gpu.rules";
        });
    });
    for (Phase& p : phases) {
        if (gpu) {
            addBeside(p, "algorithmic.rules", {"stencils.rules"});
        }
    }
}

// Without macros, for a program with a map of reductions sharing an operand (the pipeline's
// SaturationHooks::flatteningSteps), a phase that loads algorithmic.rules also loads
// flattening.rules and equalities.rules beside it:
// register-block's derivation needs their map distribution, transposes of zips and eta
// expansion (docs/search-goal.md, "A shape goal"). Other programs have no register block to build;
// with the macros loaded the rules would only add other ways to write the macros' schedules.
void addFlatteningSteps(Phase& phase) {
    addBeside(phase, "algorithmic.rules", {"flattening.rules", "equalities.rules"});
}

} // namespace

std::vector<Phase> resolvePhases(const SaturationOptions& options, bool gpu, bool flatteningSteps) {
    std::vector<Phase> phases = options.phases.empty() ? defaultPhases(gpu) : options.phases;
    for (Phase& p : phases) {
        if (options.noMacros) {
            addPrimitiveSteps(p);
        }
        if (options.noMacros && flatteningSteps) {
            addFlatteningSteps(p);
        }
        const LimitOverrides& o = options.limits;
        p.limits.iterations = o.iterations.value_or(p.limits.iterations);
        p.limits.nodes = o.nodes.value_or(p.limits.nodes);
        p.limits.memoryBytes = o.memoryBytes.value_or(p.limits.memoryBytes);
    }
    if (options.noMacros) {
        addStencilTiles(phases);
    }
    return phases;
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

std::vector<PhaseResult> saturate(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                  const SaturationOptions& options, bool gpu,
                                  const SaturationHooks& hooks) {
    std::vector<Phase> phases = resolvePhases(options, gpu, hooks.flatteningSteps);
    egraph::Library lib = egraph::Library::standard();
    std::optional<double> shared = options.limits.seconds;
    std::optional<double> budget = hooks.secondsLeft;
    std::vector<PhaseResult> results;
    for (size_t i = 0; i < phases.size(); ++i) {
        Phase& phase = phases[i];
        double remaining = double(phases.size() - i);
        // An even share of what is left: a phase that stops early leaves time to later ones.
        if (shared) {
            phase.limits.seconds = *shared / remaining;
        }
        if (budget) {
            phase.limits.seconds =
                std::min(phase.limits.seconds, std::max(0.0, *budget) / remaining);
        }
        std::vector<egraph::Rule> rules = loadAll(phase.ruleFiles, lib);
        if (options.noMacros) {
            rules = rules::primitiveRules(rules);
        }
        egraph::Runner runner(g, rules, lib, ctx);
        runner.applications = hooks.applications;
        runner.limits = phase.limits;
        runner.threads = std::max<size_t>(1, options.threads);
        runner.scheduler.matchLimit =
            options.limits.matchLimit.value_or(runner.scheduler.matchLimit);
        runner.goal = hooks.goal;
        runner.focus = hooks.focus;
        if (hooks.focus) {
            runner.limits.nodes += g.numNodes();
        }
        auto start = std::chrono::steady_clock::now();
        PhaseResult pr{phase.name, phase.ruleFiles, {}, {}, 0, 0, 0};
        for (const egraph::Rule& r : rules) {
            pr.rules.push_back(r.name);
        }
        pr.run = runner.run([&](const egraph::IterationReport& it) {
            if (hooks.iteration) {
                hooks.iteration(phase, it);
            }
        });
        pr.seconds = secondsSince(start);
        pr.nodes = g.numNodes();
        pr.classes = g.numClasses();
        if (shared) {
            shared = std::max(0.0, *shared - pr.seconds);
        }
        if (budget) {
            budget = *budget - pr.seconds;
        }
        bool done = pr.run.stop == egraph::StopReason::GoalReached;
        results.push_back(std::move(pr));
        if (done || (hooks.stop && hooks.stop->requested())) {
            break;
        }
    }
    return results;
}

} // namespace egopt::pipeline
