#include "options.hpp"

#include "egopt/support/diagnostic.hpp"

#include <map>
#include <sstream>

namespace egopt::cli {

namespace {

const egraph::Limits kRunnerLimits;             // the defaults of a phase named by --rules
const egraph::SchedulerConfig kRunnerScheduler; // the backoff scheduler's defaults

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

template <typename T>
std::optional<T> optionalNumber(const Args& args, const std::string& name, double scale = 1) {
    if (!args.has(name)) {
        return std::nullopt;
    }
    return static_cast<T>(nonNegativeNumber(args, name, 0) * scale);
}

} // namespace

const std::vector<OptionSpec>& saturationOptionSpecs() {
    static const std::vector<OptionSpec> specs{
        {"rules", true,
         "comma-separated rule files saturated together as one phase; repeat for more phases, "
         "run in order (default: core+algorithmic, then opencl; for a GPU also gpu)",
         "saturation"},
        {"iterations", true,
         "iteration limit of every phase (default: each default phase's own; " +
             std::to_string(kRunnerLimits.iterations) + " for a --rules phase)",
         "saturation"},
        {"node-limit", true,
         "e-node limit of every phase (default: each default phase's own; " +
             std::to_string(kRunnerLimits.nodes) + " for a --rules phase)",
         "saturation"},
        {"time-limit", true,
         "saturation seconds of all phases together, shared out as they end (default: each "
         "phase's own, " +
             number(kRunnerLimits.seconds) + " for a --rules phase)",
         "saturation"},
        {"memory-limit", true,
         "bytes of e-graph data per phase, or with a unit K, M, G, T (2G); saturation stops "
         "there with the e-graph so far (default " +
             std::to_string(kRunnerLimits.memoryBytes >> 30) + "G)",
         "saturation"},
        {"match-limit", true,
         "matches per iteration before the backoff scheduler bans a rule (default " +
             std::to_string(kRunnerScheduler.matchLimit) + "; 0: never ban)",
         "saturation"},
        {"threads", true, "search threads; the e-graph is the same for any count (default 1)",
         "saturation"},
        {"no-macros", false,
         "leave out every composite rule (a stated composition `by ...` or more than 12 "
         "operators on a side): the primitive catalogue only (docs/search.md)",
         "saturation"},
    };
    return specs;
}

pipeline::SaturationOptions saturationFrom(const Args& args) {
    pipeline::SaturationOptions o;
    for (const auto& list : args.values("rules")) {
        o.phases.push_back(pipeline::phaseOf(splitCommas(list), o.phases.size()));
        if (o.phases.back().ruleFiles.empty()) {
            badInput("--rules expects rule files separated by commas, found '" + list + "'");
        }
    }
    o.limits.iterations = optionalNumber<size_t>(args, "iterations");
    o.limits.nodes = optionalNumber<size_t>(args, "node-limit");
    o.limits.seconds = optionalNumber<double>(args, "time-limit");
    o.limits.memoryBytes = byteCount(args, "memory-limit");
    o.limits.matchLimit = optionalNumber<size_t>(args, "match-limit");
    o.threads = std::max<size_t>(1, static_cast<size_t>(nonNegativeNumber(args, "threads", 1)));
    o.noMacros = args.has("no-macros");
    return o;
}

const std::vector<OptionSpec>& searchOptionSpecs() {
    const pipeline::SearchOptions d;
    static const std::vector<OptionSpec> specs{
        {"search.target", true,
         "what extraction optimises for: auto (gpu for a GPU device), gpu or cpu (default auto)",
         "search"},
        {"search.draws", true,
         "exploration: random terms drawn from the e-graph and ranked by the cost model "
         "(default " +
             std::to_string(d.draws) + "; 0: none)",
         "search"},
        {"search.keep", true,
         "drawn terms the cost model predicts fastest that join the candidates (default " +
             std::to_string(d.keep) + ")",
         "search"},
        {"search.keep-guided", true,
         "and before them, guided draws' terms (composite rules' schedules) (default " +
             std::to_string(d.keepGuided) + ")",
         "search"},
        {"search.refine", true,
         "refinement rounds: neighbours of the best-predicted terms, one lowering choice "
         "changed (default " +
             std::to_string(d.refineRounds) + "; 0: none)",
         "search"},
        {"search.stages", true,
         "search stages: each after the first saturates again around the beam's terms and "
         "extracts again (default 1, with --no-macros " +
             std::to_string(pipeline::kNoMacroStages) + "; docs/search.md)",
         "search"},
        {"search.shapes", true,
         "on: extraction keeps the best term of each shape (its loops, thread maps and "
         "reductions; views aside), off: of each term (default off; docs/search.md)",
         "search"},
        {"search.beam", true,
         "the candidates predicted fastest whose terms a later stage rewrites (default " +
             std::to_string(d.beam) + ")",
         "search"},
    };
    return specs;
}

pipeline::SearchOptions searchFrom(const Args& args) {
    pipeline::SearchOptions o;
    o.candidates = static_cast<size_t>(nonNegativeNumber(args, "candidates", double(o.candidates)));
    if (auto t = args.value("search.target")) {
        auto target = pipeline::parseExtractTarget(*t);
        if (!target) {
            badInput("--search.target expects auto, gpu or cpu, found '" + *t + "'");
        }
        o.target = *target;
    }
    auto count = [&](const char* name, size_t fallback) {
        return static_cast<size_t>(nonNegativeNumber(args, name, double(fallback)));
    };
    o.draws = count("search.draws", o.draws);
    o.keep = count("search.keep", o.keep);
    o.keepGuided = count("search.keep-guided", o.keepGuided);
    o.refineRounds = count("search.refine", o.refineRounds);
    if (args.has("search.stages")) {
        o.stages = std::max<size_t>(1, count("search.stages", 1));
    }
    o.beam = std::max<size_t>(1, count("search.beam", o.beam));
    if (auto s = args.value("search.shapes")) {
        if (*s != "on" && *s != "off") {
            badInput("--search.shapes expects on or off, found '" + *s + "'");
        }
        o.distinctShapes = *s == "on";
    }
    return o;
}

const std::vector<OptionSpec>& tuneOptionSpecs() {
    const pipeline::TuneOptions d;
    static const std::vector<OptionSpec> specs{
        {"tune.budget", true, "measured configurations in all (default 3 x candidates)", "tune"},
        {"tune.strategy", true, "guided (default) or random (the baseline; docs/tuning.md)",
         "tune"},
        {"tune.runs", true,
         "timed runs per measurement after one warm-up (default " + std::to_string(d.runs) + ")",
         "tune"},
        {"tune.slow-factor", true,
         "a measurement's first run slower than this many times the fastest so far ends its "
         "timing (default " +
             number(d.slowFactor) + ")",
         "tune"},
        {"tune.far-ratio", true,
         "candidates predicted over this many times slower than the best are not measured "
         "(default " +
             number(d.farRatio) + "; 0: all measured)",
         "tune"},
        {"tune.validate", true,
         "candidates validated, fastest first, before the choice: the chosen one and its "
         "cross-check's (default " +
             std::to_string(d.validate) + "; 0: every measured one)",
         "tune"},
    };
    return specs;
}

pipeline::TuneOptions tuneFrom(const Args& args) {
    pipeline::TuneOptions o;
    o.budget = static_cast<size_t>(nonNegativeNumber(args, "tune.budget", 0));
    if (auto t = args.value("tune.strategy")) {
        auto tuner = pipeline::parseTuner(*t);
        if (!tuner) {
            badInput("--tune.strategy expects guided or random, found '" + *t + "'");
        }
        o.tuner = *tuner;
    }
    o.runs = std::max(1, static_cast<int>(nonNegativeNumber(args, "tune.runs", o.runs)));
    o.slowFactor = nonNegativeNumber(args, "tune.slow-factor", o.slowFactor);
    if (o.slowFactor < 1) {
        badInput("--tune.slow-factor expects a number >= 1, found " + number(o.slowFactor));
    }
    o.farRatio = nonNegativeNumber(args, "tune.far-ratio", o.farRatio);
    o.validate = static_cast<size_t>(nonNegativeNumber(args, "tune.validate", double(o.validate)));
    return o;
}

std::optional<std::string> renamedOption(const std::string& name) {
    static const std::map<std::string, std::string> renamed{
        {"explore", "search.draws"},
        {"explored", "search.keep"},
        {"guided", "search.keep-guided"},
        {"refine", "search.refine"},
        {"extract-cost", "search.target"},
        {"tune-budget", "tune.budget"},
        {"tuner", "tune.strategy"},
        {"slow-factor", "tune.slow-factor"},
        {"runs", "tune.runs"},
    };
    auto it = renamed.find(name);
    return it == renamed.end() ? std::nullopt : std::optional<std::string>(it->second);
}

} // namespace egopt::cli
