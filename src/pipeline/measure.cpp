// The device runs of tuning (stages.hpp: Work::measure) and the guards that keep them within the
// time budget: a run that cannot end before its deadline is not started, one that overruns it is
// abandoned, and a kernel already timed under another candidate is not timed again.
#include "stages.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace egopt::pipeline {

std::string fmt(const char* format, ...) {
    char buf[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

std::string showValues(const arith::Bindings& b) {
    std::string out;
    for (const auto& [k, v] : b) {
        out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
    }
    return out.empty() ? "-" : out;
}

double Work::window(Stage s) const {
    return budget.leftUntil(anyValid() ? s : Stage::Validate);
}

bool Work::anyValid() const {
    return std::any_of(validated.begin(), validated.end(),
                       [](const auto& v) { return v.second.why.empty(); });
}

double Work::bestSeconds() const {
    double best = 0;
    for (const auto& [key, run] : runs) {
        if (run.timing && (best == 0 || run.timing->seconds < best)) {
            best = run.timing->seconds;
        }
    }
    return best;
}

void Work::stageDone(std::string_view stage, double seconds, std::string summary) const {
    if (options.stageDone) {
        StageEvent e{std::string(stage), seconds,          elapsed(),
                     budget.left(),      budget.limited(), std::move(summary)};
        options.stageDone(e);
    }
}

std::optional<double> Work::predict(size_t c, const arith::Bindings& values) {
    return predict(candidates.at(c), values);
}

std::optional<double> Work::predict(const extract::Candidate& c, const arith::Bindings& values) {
    try {
        auto b = buildAt(c.program, values, sizes, options.codegen, assumed);
        if (!codegen::resourceProblem(b->code, sizes, bench->device()).empty()) {
            return std::nullopt; // the search prefers values that fit (a smaller private chunk)
        }
        return model->predictSeconds(costmodel::computeFeatures(b->code, sizes, profile), profile);
    } catch (const Error&) {
        return std::nullopt;
    }
}

std::optional<double> Work::predictAtDefaults(const extract::Candidate& c) {
    return predict(c, Space(c.tuning, sizes).initial(kDefaultTuningValue));
}

namespace {

// The limits of one measurement within `left` seconds: the first run stops the timing when it
// exceeds `slowFactor` times the best so far (or a third of what is left), and the timed runs
// stop once they add up to a third of it, so a measurement ends within `left` even when every
// run is as slow as the time-out allows.
struct RunLimits {
    double slow, budget, timeout;
};

RunLimits limitsFor(const Work& w, double left) {
    double slow = 1.0;
    if (double best = w.bestSeconds(); best > 0) {
        slow = std::min(slow, w.options.slowFactor * best);
    }
    double timeout = std::min(runtime::kDefaultTimeout.count() * 1e-3, left);
    return {std::min(slow, left / 3), std::min(w.options.measureSeconds, left / 3), timeout};
}

// Why a measurement is not started: the time it needs (its overhead so far and one warm-up and
// one timed run at the predicted time) exceeds what is left; empty to start it.
std::string notStarted(const Work& w, double predicted, double left) {
    double needs = w.overheadSeconds + 2 * predicted;
    if (w.budget.limited() && needs > left) {
        return fmt("not started: needs about %.2f s (%.3f s predicted per run), %.2f s left of "
                   "the time budget for it",
                   needs, predicted, std::max(0.0, left));
    }
    return {};
}

} // namespace

std::optional<double> Work::measure(size_t c, const arith::Bindings& values) {
    auto inTune = clock.enter(Stage::Tune);
    auto started = Budget::Clock::now();
    double left = window(Stage::Tune);
    Run run;
    std::unique_ptr<Built> b;
    costmodel::Features f;
    std::string kernelKey;
    try {
        b = buildAt(candidates.at(c).program, values, sizes, options.codegen, assumed);
        f = costmodel::computeFeatures(b->code, sizes, profile);
        run.predicted = model->predictSeconds(f, profile);
        run.arithOps = f.total.arithOps;
        run.launchJson = b->code.launchJson();
        kernelKey = b->code.source + '\n' + run.launchJson;
        if (auto it = kernelRuns.find(kernelKey); it != kernelRuns.end()) {
            run.timing = runs.at(it->second).timing; // the same kernel, timed already
            run.sameAs = it->second;
        } else if (std::string why = notStarted(*this, run.predicted, left); !why.empty()) {
            run.error = why;
            run.notStarted = true;
        } else {
            RunLimits l = limitsFor(*this, left);
            run.timing = bench->time(*b, options.runs, false, l.slow, l.budget, l.timeout);
        }
    } catch (const runtime::KernelTimeout& e) {
        run.error = std::string("timed out: ") + e.what();
    } catch (const runtime::BuildError& e) {
        run.error = e.what();
        run.buildLog = e.log();
    } catch (const std::exception& e) {
        run.error = e.what();
    }
    double wall = std::chrono::duration<double>(Budget::Clock::now() - started).count();
    if (run.timing && !run.sameAs) {
        // What the measurement cost beyond its kernel runs (at most runs + 1 of them).
        double kernels = run.timing->seconds * (options.runs + 1);
        overheadSeconds = std::max(overheadSeconds, std::max(0.0, wall - kernels));
        kernelRuns.emplace(kernelKey, std::make_pair(c, values));
    }
    progress(fmt("tune: candidate %zu [%s]: %s", c, showValues(values).c_str(),
                 run.timing
                     ? fmt("%.3f ms (predicted %.3f ms)%s", run.timing->seconds * 1e3,
                           run.predicted * 1e3,
                           run.sameAs ? fmt(", the kernel of candidate %zu [%s]", run.sameAs->first,
                                            showValues(run.sameAs->second).c_str())
                                            .c_str()
                                      : "")
                           .c_str()
                     : ("FAILED: " + run.error.substr(0, run.error.find('\n'))).c_str()));
    if (run.timing && !options.recordPath.empty()) {
        costmodel::Record r{profile.name,        sizes,
                            candidates[c].text,  f,
                            run.predicted,       run.timing->seconds,
                            profile.deviceClass, options.file};
        costmodel::appendRecord(options.recordPath, r);
    }
    std::optional<double> s;
    if (run.timing) {
        s = run.timing->seconds;
    }
    runs[{c, values}] = std::move(run);
    return s;
}

} // namespace egopt::pipeline
