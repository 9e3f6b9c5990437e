// Saturation in rule phases, as `egopt PROGRAM`, `egopt saturate` and `egopt prove` all run it
// (docs/pipeline.md, "Saturation options"): each phase saturates its rule files together under
// its limits, and the phases run in order on one e-graph. The command line's saturation options
// (--rules, --iterations, --node-limit, --time-limit, --memory-limit, --match-limit, --threads)
// fill a SaturationOptions the same way for the three commands.
#pragma once

#include "egopt/egraph/runner.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace egopt::pipeline {

class StopToken;

// One saturation phase: rule files and the limits it runs under.
struct Phase {
    std::string name;
    std::vector<std::string> ruleFiles;
    egraph::Limits limits;
};

// The default phases: core + algorithmic rules, then the OpenCL lowering rules (docs/design.md §6:
// all at once blows up on mm), found beside rules::defaultRulesPath(); only core.rules when the
// catalogue is missing. For a GPU target the lowering phase also loads gpu.rules (work-group
// trees in local memory, which only pay on a GPU and crowd a CPU's candidates).
std::vector<Phase> defaultPhases(bool gpu = false);

// A phase given on the command line (`--rules a,b`), named by its position ("1", "2", ...):
// its files, the runner's default limits.
Phase phaseOf(std::vector<std::string> ruleFiles, size_t position);

// Limits given for every phase; unset ones keep each phase's own. `seconds` is the time of all
// phases together: each phase gets an even share of what the earlier ones left.
struct LimitOverrides {
    std::optional<size_t> iterations;
    std::optional<size_t> nodes;
    std::optional<size_t> memoryBytes;
    std::optional<double> seconds;
    std::optional<size_t> matchLimit; // the backoff scheduler's (egraph::SchedulerConfig)
};

struct SaturationOptions {
    std::vector<Phase> phases; // empty: defaultPhases(gpu)
    LimitOverrides limits;
    size_t threads = 1; // search threads (the e-graph is the same for any count)
    // Every phase without its composite rules (rules::isComposite, `--no-macros`): the
    // primitive catalogue only (docs/search.md).
    bool noMacros = false;
};

// The phases to run: the given ones or the defaults, with the overrides applied (all but the
// shared time, which saturate() hands out as the phases end). `flatteningSteps`: as
// SaturationHooks::flatteningSteps.
std::vector<Phase> resolvePhases(const SaturationOptions& options, bool gpu,
                                 bool flatteningSteps = false);

struct PhaseResult {
    std::string name;
    std::vector<std::string> ruleFiles;
    std::vector<std::string> rules; // the rules loaded (without composites under --no-macros)
    egraph::RunReport run;
    size_t nodes = 0, classes = 0;
    double seconds = 0;
};

struct SaturationHooks {
    // After every iteration of every phase.
    std::function<void(const Phase&, const egraph::IterationReport&)> iteration;
    // Checked after every iteration: true ends the phase (StopReason::GoalReached) and the run.
    std::function<bool(const egraph::EGraph&)> goal;
    const StopToken* stop = nullptr; // checked between phases
    // Where the runner records the applications of composite rules (egraph::Runner::
    // applications), for exploration's guided draws; null: not recorded.
    egraph::Applications* applications = nullptr;
    std::optional<double> secondsLeft; // a time budget for all phases
    // Rewrite only around these e-classes (egraph::Focus, a later search stage); each phase's
    // e-node limit then counts the e-nodes it adds, not the e-graph's.
    const egraph::Focus* focus = nullptr;
    // With SaturationOptions::noMacros: the phases that load algorithmic.rules also load
    // flattening.rules and equalities.rules (the pipeline sets it for a program with a map of
    // reductions sharing an operand, docs/search.md "A shape goal").
    bool flatteningSteps = false;
};

// Saturates `g` phase by phase. Every phase runs at least one iteration (the runner checks its
// time limit after each), so a lowering phase still lowers when the time is short. All phases
// share `ctx`: its size facts (state them first), one tuning space (a length split in two
// phases gets one variable) and one table of rule names (explanations span the phases).
std::vector<PhaseResult> saturate(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                  const SaturationOptions& options, bool gpu,
                                  const SaturationHooks& hooks = {});

} // namespace egopt::pipeline
