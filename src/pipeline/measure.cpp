// The device runs of tuning (stages.hpp: Work::measure) and the guards that keep them within the
// time budget: a run that cannot end before its deadline is not started, one that overruns it is
// abandoned, and a kernel already timed under another candidate is not timed again.
#include "jobs.hpp"
#include "stages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <tbb/parallel_for.h>

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
    bool doesNot = false;
    std::optional<double> p = predict(candidates.at(c), values, &doesNot);
    if (doesNot) {
        std::lock_guard lock(unfitMutex);
        unfit.emplace(c, values);
    }
    return p;
}

bool Work::doesNotFit(size_t c, const arith::Bindings& values) const {
    std::lock_guard lock(unfitMutex);
    return unfit.count({c, values}) > 0;
}

std::optional<double> Work::predict(const extract::Candidate& c, const arith::Bindings& values,
                                    bool* doesNotFit) {
    try {
        auto b = buildAt(c.program, values, sizes, codegen, assumed);
        if (!codegen::resourceProblem(b->code, sizes, bench().device()).empty()) {
            if (doesNotFit) {
                *doesNotFit = true;
            }
            return std::nullopt; // the search prefers values that fit (a smaller private chunk)
        }
        double t =
            model->predictSeconds(costmodel::computeFeatures(b->code, sizes, profile), profile);
        if (!std::isfinite(t)) {
            return std::nullopt; // the model rules it out (registers spilled on a GPU)
        }
        return t;
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
RunLimits limitsFor(const Options& o, double best, double left) {
    double slow = 1.0;
    if (best > 0) {
        slow = std::min(slow, o.tune.slowFactor * best);
    }
    double timeout = std::min(runtime::kDefaultTimeout.count() * 1e-3, left);
    return {std::min(slow, left / 3), std::min(o.tune.measureSeconds, left / 3), timeout};
}

// Why a measurement is not started: the time it needs (its overhead so far and one warm-up and
// one timed run at the predicted time) exceeds what is left; empty to start it.
std::string notStarted(const Budget& budget, double overhead, double predicted, double left) {
    double needs = overhead + 2 * predicted;
    if (budget.limited() && needs > left) {
        return fmt("not started: needs about %.2f s (%.3f s predicted per run), %.2f s left of "
                   "the time budget for it",
                   needs, predicted, std::max(0.0, left));
    }
    return {};
}

// What the device threads of one batch share, updated as runs end: the most a measurement took
// beyond its kernel runs, and the fastest time so far (which cuts slow configurations short).
struct Shared {
    std::mutex m;
    double overhead = 0;
    double best = 0;
};

// One configuration of a batch: generated on the calling thread (Job::prepare), timed on the
// thread of whichever device takes it (Job::time).
struct Job {
    Work::Key key;
    Work::Run run;
    std::unique_ptr<Built> built;
    costmodel::Features features;
    std::string kernel;            // source and launch: one kernel is timed once
    std::optional<size_t> sameJob; // an earlier job of the batch with the same kernel
    bool toRun = false;
    bool interrupted = false; // not started: the run was interrupted
    bool lost = false;        // lost twice with its worker processes (RemoteJobs::abandon)

    // Generates the kernel and predicts it (reads `w` only: the jobs of a batch generate in
    // parallel).
    void generate(const Work& w) {
        try {
            built = buildAt(w.candidates.at(key.first).program, key.second, w.sizes, w.codegen,
                            w.assumed);
            features = costmodel::computeFeatures(built->code, w.sizes, w.profile);
            run.predicted = w.model->predictSeconds(features, w.profile);
            if (!std::isfinite(run.predicted)) {
                run.predicted = 0; // ruled out by the model: no prediction to compare with
            }
            run.arithOps = features.total.arithOps;
            run.launchJson = built->code.launchJson();
            kernel = kernelKey(*built);
        } catch (const std::exception& e) {
            run.error = e.what();
            built.reset();
        }
    }

    // Whether the kernel runs, takes a timing made already, or is another job's (in order).
    void prepare(Work& w, std::map<std::string, size_t>& inBatch, size_t index) {
        if (!built) {
            return; // it failed to generate
        }
        {
            if (auto it = w.kernelRuns.find(kernel); it != w.kernelRuns.end()) {
                const Work::Run& timed = w.runs.at(it->second); // the same kernel, timed already
                run.timing = timed.timing;
                run.device = timed.device;
                run.rank = timed.rank;
                run.sameAs = it->second;
            } else if (auto same = inBatch.find(kernel); same != inBatch.end()) {
                sameJob = same->second;
            } else {
                toRun = true;
                inBatch.emplace(kernel, index);
            }
        }
    }

    // The limits of the job about to start, or nullopt when it does not start (interrupted, or
    // not enough time left: run.notStarted).
    std::optional<RunLimits> begin(const Work& w, Shared& shared) {
        double left = w.window(Stage::Tune);
        double overhead = 0, best = 0;
        {
            std::lock_guard lock(shared.m);
            overhead = shared.overhead;
            best = shared.best;
        }
        if (w.stopped()) {
            interrupted = true; // left out of the batch's outcome (Work::measure)
            return std::nullopt;
        }
        run.error = notStarted(w.budget, overhead, run.predicted, left);
        if (!run.error.empty()) {
            run.notStarted = true;
            return std::nullopt;
        }
        return limitsFor(w.options, best, left);
    }

    void time(const Work& w, Bench& bench, Shared& shared) {
        auto started = Budget::Clock::now();
        run.device = bench.device().index;
        if (std::optional<RunLimits> l = begin(w, shared)) {
            runTiming(bench, *built, w.options.tune.runs, *l, run);
            account(w, shared, secondsSince(started));
        }
    }

    // A job another process ran: its message, and its reply.
    std::optional<RemoteJobs::Message> remote(const Work& w, Shared& shared) {
        std::optional<RunLimits> l = begin(w, shared);
        if (!l) {
            return std::nullopt;
        }
        JobSpec spec;
        spec.candidate = w.candidates.at(key.first).program;
        spec.values = key.second;
        spec.kernel = kernel;
        spec.runs = w.options.tune.runs;
        spec.limits = *l;
        // A warm-up and the timed runs, each bounded by the time-out, and as long again for the
        // abandoned kernel to drain; the build and upload are bounded by kRemoteGrace.
        double seconds = kRemoteGrace + l->timeout * (w.options.tune.runs + 3);
        return RemoteJobs::Message{encodeJob(spec), seconds};
    }
    void takeReply(const Work& w, Shared& shared, const std::string& bytes, int rank) {
        JobReply reply = decodeReply(bytes);
        run.timing = std::move(reply.run.timing);
        run.error = std::move(reply.run.error);
        run.buildLog = std::move(reply.run.buildLog);
        run.device = reply.device;
        run.rank = rank;
        account(w, shared, reply.seconds);
    }

    void account(const Work& w, Shared& shared, double wall) {
        if (run.timing) {
            // What the measurement cost beyond its kernel runs (at most runs + 1 of them).
            double kernels = run.timing->seconds * (w.options.tune.runs + 1);
            std::lock_guard lock(shared.m);
            shared.overhead = std::max(shared.overhead, std::max(0.0, wall - kernels));
            double s = run.timing->seconds;
            shared.best = shared.best == 0 ? s : std::min(shared.best, s);
        }
    }

    // A job whose kernel an earlier job of the batch ran takes that run's outcome.
    void takeFrom(const Job& other) {
        run.timing = other.run.timing;
        run.device = other.run.device;
        run.rank = other.run.rank;
        if (run.timing) {
            run.sameAs = other.key;
        } else {
            run.error = other.run.error;
            run.notStarted = other.run.notStarted;
        }
    }
};

std::string describeRun(const Work& w, const Job& j) {
    const Work::Run& run = j.run;
    std::string where = w.options.remote       ? fmt(" on rank %d device %zu", run.rank, run.device)
                        : w.benches.size() > 1 ? fmt(" on device %zu", run.device)
                                               : "";
    if (!run.timing) {
        return "FAILED: " + run.error.substr(0, run.error.find('\n'));
    }
    return fmt("%.3f ms (predicted %.3f ms)%s%s", run.timing->seconds * 1e3, run.predicted * 1e3,
               where.c_str(),
               run.sameAs ? fmt(", the kernel of candidate %zu [%s]", run.sameAs->first,
                                showValues(run.sameAs->second).c_str())
                                .c_str()
                          : "");
}

} // namespace

std::vector<std::optional<double>> Work::measure(const std::vector<Key>& configs) {
    auto inTune = clock.enter(Stage::Tune);
    std::vector<Job> jobs(configs.size());
    std::map<std::string, size_t> inBatch;
    std::vector<size_t> toRun;
    tbb::parallel_for(size_t{0}, jobs.size(), [&](size_t i) {
        jobs[i].key = configs[i];
        jobs[i].generate(*this);
    });
    for (size_t i = 0; i < jobs.size(); ++i) {
        jobs[i].prepare(*this, inBatch, i);
        if (jobs[i].toRun) {
            toRun.push_back(i);
        }
    }
    // On one GPU the host compiles the batch's programs while the device runs the first ones
    // (a CPU device's runs would share the cores with the compiler and time slower, unless
    // compile workers were asked for).
    if (benches.size() == 1 && !options.remote &&
        (bench().device().type.find("CPU") == std::string::npos || bench().hasCompilerPool())) {
        for (size_t i : toRun) {
            bench().prebuild(*jobs[i].built);
        }
    }
    Shared shared;
    shared.overhead = overheadSeconds;
    shared.best = bestSeconds();
    // Each device's thread takes the next job when free; the outcomes are kept per job and
    // recorded below in the order given, so nothing recorded depends on which device ended first.
    auto line = [this](const Job& j) {
        return fmt("tune: candidate %zu [%s]: %s", j.key.first, showValues(j.key.second).c_str(),
                   describeRun(*this, j).c_str());
    };
    // A device run's line is shown as it ends (one thread at a time); the others' below.
    std::mutex shown;
    auto show = [&](const Job& j) {
        if (!j.interrupted) {
            std::lock_guard lock(shown);
            progress(line(j));
        }
    };
    std::optional<RemoteJobs> remote;
    if (options.remote) {
        remote.emplace(RemoteJobs{*options.remote,
                                  [&](size_t k) { return jobs[toRun[k]].remote(*this, shared); },
                                  [&](size_t k, const std::string& reply, int rank) {
                                      jobs[toRun[k]].takeReply(*this, shared, reply, rank);
                                      show(jobs[toRun[k]]);
                                  },
                                  [&](size_t k, const std::string& why) {
                                      jobs[toRun[k]].lost = true;
                                      jobs[toRun[k]].run.error = "lost twice: " + why;
                                      show(jobs[toRun[k]]);
                                  }});
    }
    forEachJob(
        toRun.size(), benches.size(),
        [&](size_t k, size_t device) {
            Job& j = jobs[toRun[k]];
            j.time(*this, *benches[device], shared);
            show(j);
        },
        remote ? &*remote : nullptr);
    reassignedJobs += remote ? remote->reassigned : 0;
    overheadSeconds = shared.overhead;
    std::vector<std::optional<double>> out;
    for (Job& j : jobs) {
        if (j.interrupted) {
            break; // the batch ends at its first job an interruption kept from starting
        }
        if (j.sameJob) {
            j.takeFrom(jobs[*j.sameJob]);
        } else if (j.toRun && j.run.timing) {
            kernelRuns.emplace(j.kernel, j.key);
        }
        if (j.toRun && !j.run.notStarted && !j.lost) {
            ++rankJobs[j.run.rank];
        }
        if (!j.toRun) {
            progress(line(j));
        }
        if (j.run.timing && !options.recordPath.empty()) {
            costmodel::Record r{profile.name,        sizes,           candidates[j.key.first].text,
                                j.features,          j.run.predicted, j.run.timing->seconds,
                                profile.deviceClass, options.file,    {}};
            costmodel::appendRecord(options.recordPath, r);
        }
        out.push_back(j.run.timing ? std::optional<double>(j.run.timing->seconds) : std::nullopt);
        runs[j.key] = std::move(j.run);
    }
    return out;
}

} // namespace egopt::pipeline
