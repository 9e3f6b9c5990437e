// Confirmation (docs/design.md §9, docs/pipeline.md): each candidate's fastest measured
// configurations are validated against the interpreter at small sizes; the fastest valid candidate
// wins after a cross-check of its output at the real sizes against another valid candidate's.
#include "egopt/egraph/explain.hpp"
#include "jobs.hpp"
#include "stages.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

namespace egopt::pipeline {

namespace {

using Status = CandidateResult::Status;
constexpr size_t kConfigsToValidate = 3; // fastest configurations tried per candidate
constexpr double kTolerance = 1e-3;      // as codegen::RunOptions::tolerance
constexpr const char* kNoSmallSizes =
    "no sizes small enough for the interpreter at which this configuration generates";

// The successful measurements of candidate c, fastest first.
std::vector<std::pair<double, arith::Bindings>> fastest(const Work& w, size_t c) {
    std::vector<std::pair<double, arith::Bindings>> out;
    for (const auto& [key, run] : w.runs) {
        if (key.first == c && run.timing) {
            out.emplace_back(run.timing->seconds, key.second);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

CandidateResult describe(const Work& w, size_t c) {
    CandidateResult cr;
    const extract::Candidate& cand = w.candidates[c];
    cr.index = c;
    cr.text = cand.text;
    cr.extractCost = cand.cost;
    cr.explored = cand.explored;
    cr.secondView = cand.secondView;
    cr.guided = cand.guided;
    cr.tuning = cand.tuning;
    for (const auto& [key, run] : w.runs) {
        if (key.first == c) {
            Measurement m{key.second,    run.timing.has_value(),
                          run.error,     run.timing ? run.timing->seconds : 0,
                          run.predicted, run.device,
                          run.rank};
            cr.measured.push_back(std::move(m));
            if (!run.timing && cr.reason.empty()) {
                cr.reason = firstLine(run.error);
            }
            if (!run.buildLog.empty() && cr.buildLog.empty()) {
                cr.buildLog = buildLogExcerpt(run.buildLog);
            }
        }
    }
    bool anyStarted = false;
    for (const auto& [key, run] : w.runs) {
        anyStarted = anyStarted || (key.first == c && !run.notStarted);
    }
    cr.status = anyStarted ? Status::Failed : Status::Unmeasured;
    if (cr.measured.empty()) {
        cr.reason = "not measured (tuning budget spent, time budget spent or interrupted)";
    }
    return cr;
}

// The small sizes at which configuration (c, values) validates (nullopt: none).
std::optional<arith::Bindings> smallSizes(const Work& w, size_t c, const arith::Bindings& values) {
    WorkEstimate calls = [&w](const Built& b) {
        costmodel::KernelFeatures total =
            costmodel::computeFeatures(b.code, b.sizes, w.profile).total;
        return interpreterWork(total.userFunCalls, total.arithOps);
    };
    return validationSizes(w.candidates[c].program, w.candidates[c].tuning, values, w.sizes,
                           w.codegen, w.assumed, double(1 << 22), calls);
}

// Validates one configuration at small sizes on `bench`'s device, its kernels abandoned after
// `timeout` seconds. Reads `w` only, so that the devices' threads can run it at once.
Validation validateAt(const Work& w, size_t c, const arith::Bindings& values, double timeout,
                      Bench& bench) {
    auto small = smallSizes(w, c, values);
    if (!small) {
        return {kNoSmallSizes, {}, 0, {}};
    }
    return runValidation(bench, *w.references, w.candidates[c].program, values, *small, w.codegen,
                         w.assumed, w.options.seed, timeout);
}

// Fills the chosen configuration's numbers (time, rates, source, plan).
void choose(Work& w, size_t c, const arith::Bindings& values, CandidateResult& cr) {
    const Work::Run& run = w.runs.at({c, values});
    cr.status = Status::Valid;
    cr.reason.clear();
    cr.values = values;
    cr.seconds = run.timing->seconds;
    cr.predicted = run.predicted;
    cr.gbPerSec = double(run.timing->bytes) / cr.seconds * 1e-9;
    cr.launchJson = run.launchJson;
    auto b = buildAt(w.candidates[c].program, values, w.sizes, w.codegen, w.assumed);
    cr.source = b->code.source;
    cr.lowered = b->program.show(b->program.root);
}

// Whether the validation of configuration (c, values) may start: the longest one so far fits in
// what is left, with the interpreter's run at its sizes when no candidate was validated at them
// yet (the first validation only needs some time left).
bool timeToValidate(const Work& w, size_t c, const arith::Bindings& values) {
    if (!w.budget.limited()) {
        return true;
    }
    double interpreting = 0;
    if (auto small = smallSizes(w, c, values)) {
        interpreting = w.references->secondsToInterpret(*small);
    }
    return w.window(Stage::Validate) > w.validateSeconds + interpreting;
}

void confirmCandidate(Work& w, size_t c, CandidateResult& cr) {
    size_t attempts = 0;
    bool skipped = false;
    for (const auto& [seconds, values] : fastest(w, c)) {
        // Without time for another validation, a slower configuration validated already (the
        // early confirmation during tuning) still counts.
        if (!w.validated.count({c, values}) && !timeToValidate(w, c, values)) {
            skipped = true;
            continue;
        }
        const Validation& v = w.validate(c, values);
        cr.validationSizes = v.sizes;
        cr.validationError = v.maxError;
        if (cr.buildLog.empty()) {
            cr.buildLog = v.buildLog;
        }
        if (v.why.empty()) {
            choose(w, c, values, cr);
            break;
        }
        cr.status = Status::Invalid;
        cr.reason = v.why;
        // Configurations without small validation sizes do not count as attempts.
        if (v.why != kNoSmallSizes && ++attempts == kConfigsToValidate) {
            break;
        }
    }
    if (skipped && cr.status == Status::Failed) {
        cr.status = Status::Unconfirmed;
        cr.reason = "measured but not validated: time budget spent";
    }
    w.progress("confirm: candidate " + std::to_string(c) + ": " +
               std::string(statusName(cr.status)) +
               (cr.status == Status::Valid ? " " + std::to_string(cr.seconds * 1e3) + " ms, " +
                                                 std::to_string(cr.gbPerSec) + " GB/s"
                                           : ": " + firstLine(cr.reason)));
}

// The real-size output of a valid candidate's chosen configuration (empty if not floats).
std::vector<float> outputOf(Work& w, const CandidateResult& cr) {
    auto b = buildAt(w.candidates[cr.index].program, cr.values, w.sizes, w.codegen, w.assumed);
    return w.bench().time(*b, 1, true).output;
}

// The fastest valid candidate whose real-size output agrees with another valid candidate's
// (docs/pipeline.md); a candidate that disagrees with every other checked one is invalid.
void pickBest(Work& w, Result& result) {
    std::vector<size_t> valid;
    for (size_t i = 0; i < result.candidates.size(); ++i) {
        if (result.candidates[i].status == Status::Valid) {
            valid.push_back(i);
        }
    }
    std::stable_sort(valid.begin(), valid.end(), [&](size_t a, size_t b) {
        return result.candidates[a].seconds < result.candidates[b].seconds;
    });
    for (size_t i = 0; i < valid.size(); ++i) {
        CandidateResult& top = result.candidates[valid[i]];
        std::vector<size_t> others(valid.begin() + long(i) + 1,
                                   valid.begin() + long(std::min(valid.size(), i + 3)));
        // Each output run builds and runs one kernel at the real sizes.
        double needs = double(others.size() + 1) * (w.overheadSeconds + 2 * top.seconds);
        bool noTime = w.budget.limited() && w.window(Stage::Time) < needs;
        if (others.empty() || w.stopped() || noTime) {
            result.best = valid[i];
            result.crossCheck = others.empty() ? "not possible: no other valid candidate"
                                : w.stopped()  ? "skipped: interrupted"
                                               : "skipped: not enough of the time budget left";
            return;
        }
        try {
            std::vector<float> mine = outputOf(w, top);
            std::string log;
            for (size_t o : others) {
                double d = maxRelativeDifference(mine, outputOf(w, result.candidates[o]));
                log += (log.empty() ? "" : "; ") + std::string("candidate ") + std::to_string(o) +
                       ": largest relative difference " + std::to_string(d);
                if (mine.empty() || d <= kTolerance) {
                    result.best = valid[i];
                    result.crossCheck =
                        mine.empty() ? "skipped: output is not float data" : "agrees with " + log;
                    return;
                }
            }
            top.status = Status::Invalid;
            top.reason =
                "disagrees at the real sizes with the other valid candidates (" + log + ")";
        } catch (const std::exception& e) {
            top.status = Status::Invalid;
            top.reason = "real-size cross-check failed: " + firstLine(e.what());
        }
        w.progress("confirm: candidate " + std::to_string(top.index) + ": " + top.reason);
    }
}

} // namespace

std::string buildLogExcerpt(const std::string& log, size_t maxLines, size_t maxBytes) {
    size_t end = 0;
    for (size_t lines = 0; end < log.size() && lines < maxLines && end < maxBytes; ++lines) {
        size_t next = log.find('\n', end);
        end = next == std::string::npos ? log.size() : next + 1;
    }
    end = std::min(end, maxBytes); // one very long line is cut too
    std::string out = log.substr(0, end);
    if (end < log.size()) {
        auto left = std::count(log.begin() + long(end), log.end(), '\n') + (log.back() != '\n');
        out += (out.empty() || out.back() == '\n' ? "" : "\n") + std::string("... (") +
               std::to_string(left) + (left == 1 ? " more line, " : " more lines, ") +
               std::to_string(log.size() - end) + " bytes)\n";
    }
    return out;
}

const Validation& Work::validate(size_t c, const arith::Bindings& values) {
    auto key = std::make_pair(c, values);
    if (auto it = validated.find(key); it != validated.end()) {
        return it->second;
    }
    auto inValidate = clock.enter(Stage::Validate);
    auto started = Budget::Clock::now();
    double timeout = std::clamp(window(Stage::Validate), 1e-3, 10.0);
    Validation v = validateAt(*this, c, values, timeout, bench());
    if (options.remote) {
        ++rankJobs[0];
    }
    validateSeconds = std::max(validateSeconds, secondsSince(started));
    return validated[key] = std::move(v);
}

void Work::validate(const std::vector<Key>& configs) {
    auto inValidate = clock.enter(Stage::Validate);
    std::vector<Key> todo;
    std::copy_if(configs.begin(), configs.end(), std::back_inserter(todo),
                 [&](const Key& k) { return !validated.count(k); });
    double timeout = std::clamp(window(Stage::Validate), 1e-3, 10.0);
    std::vector<std::optional<Validation>> done(todo.size());
    std::vector<double> seconds(todo.size(), 0.0);
    std::vector<int> ranOn(todo.size(), -1); // the rank that validated it (-1: nobody)
    // Started only while the longest validation before this batch still fits.
    auto mayStart = [&](size_t k) {
        return !stopped() && timeToValidate(*this, todo[k].first, todo[k].second);
    };
    std::optional<RemoteJobs> remote;
    if (options.remote) {
        remote.emplace(
            RemoteJobs{*options.remote,
                       [&](size_t k) -> std::optional<RemoteJobs::Message> {
                           if (!mayStart(k)) {
                               return std::nullopt;
                           }
                           auto small = smallSizes(*this, todo[k].first, todo[k].second);
                           if (!small) {
                               done[k] = Validation{kNoSmallSizes, {}, 0, {}};
                               return std::nullopt;
                           }
                           JobSpec spec;
                           spec.kind = JobSpec::Kind::Validate;
                           spec.candidate = candidates[todo[k].first].program;
                           spec.values = todo[k].second;
                           spec.small = *small;
                           spec.timeout = timeout;
                           // The interpreter's run is bounded by validationSizes' work limit.
                           return RemoteJobs::Message{encodeJob(spec), kRemoteGrace + 3 * timeout};
                       },
                       [&](size_t k, const std::string& bytes, int rank) {
                           JobReply reply = decodeReply(bytes);
                           done[k] = std::move(reply.validation);
                           seconds[k] = reply.seconds;
                           ranOn[k] = rank;
                       },
                       [&](size_t k, const std::string& why) {
                           done[k] = Validation{"validation lost twice: " + why, {}, 0, {}};
                       }});
    }
    forEachJob(
        todo.size(), benches.size(),
        [&](size_t k, size_t device) {
            if (!mayStart(k)) {
                return;
            }
            auto started = Budget::Clock::now();
            done[k] = validateAt(*this, todo[k].first, todo[k].second, timeout, *benches[device]);
            seconds[k] = secondsSince(started);
            ranOn[k] = 0;
        },
        remote ? &*remote : nullptr);
    reassignedJobs += remote ? remote->reassigned : 0;
    for (size_t k = 0; k < todo.size(); ++k) {
        if (ranOn[k] >= 0 && options.remote) {
            ++rankJobs[ranOn[k]];
        }
        if (done[k]) {
            validateSeconds = std::max(validateSeconds, seconds[k]);
            validated[todo[k]] = std::move(*done[k]);
        }
    }
}

namespace {

// A measured candidate left unvalidated because enough faster ones are valid: its fastest
// measurement, for the table and the correlations.
void leaveUnconfirmed(const Work& w, size_t c, CandidateResult& cr) {
    auto f = fastest(w, c);
    const Work::Run& run = w.runs.at({c, f.front().second});
    cr.status = Status::Unconfirmed;
    cr.reason = "measured, not validated: " + std::to_string(w.options.tune.validate) +
                " faster candidates are valid (--tune.validate)";
    cr.values = f.front().second;
    cr.seconds = run.timing->seconds;
    cr.predicted = run.predicted;
    cr.gbPerSec = double(run.timing->bytes) / cr.seconds * 1e-9;
}

size_t validCount(const Result& result) {
    return size_t(
        std::count_if(result.candidates.begin(), result.candidates.end(),
                      [](const CandidateResult& c) { return c.status == Status::Valid; }));
}

} // namespace

void confirm(Work& w, const TuneResult& tuned, Result& result) {
    for (size_t c = 0; c < w.candidates.size(); ++c) {
        result.candidates.push_back(describe(w, c));
    }
    for (size_t c : tuned.leftOut) {
        result.candidates[c].reason =
            fmt("not measured: predicted over %g times slower than the best candidate "
                "(--tune.far-ratio)",
                w.options.tune.farRatio);
    }
    // Fastest first, so that an interruption still leaves the most promising one confirmed.
    std::vector<size_t> order;
    for (size_t c = 0; c < tuned.best.size(); ++c) {
        if (tuned.best[c]) {
            order.push_back(c);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return *tuned.trials[*tuned.best[a]].seconds < *tuned.trials[*tuned.best[b]].seconds;
    });
    size_t wanted = w.options.tune.validate == 0 ? order.size() : w.options.tune.validate;
    if ((w.benches.size() > 1 || w.options.remote) && !w.stopped()) {
        // The fastest configurations of the first candidates at once, over the devices; the
        // loop below finds them validated and goes on to slower ones only where one is invalid.
        std::vector<Work::Key> first;
        for (size_t c : order) {
            if (auto f = fastest(w, c); !f.empty() && first.size() < wanted) {
                first.emplace_back(c, f.front().second);
            }
        }
        w.validate(first);
    }
    // Validate until `wanted` are valid, choose; when the real-size cross-check rejects one,
    // validate the next ones and choose again.
    size_t next = 0;
    do {
        for (; next < order.size() && validCount(result) < wanted; ++next) {
            size_t c = order[next];
            if (validCount(result) > 0 && w.stopped()) {
                result.candidates[c].status = Status::Unconfirmed;
                result.candidates[c].reason = "measured but not validated: interrupted";
                continue;
            }
            confirmCandidate(w, c, result.candidates[c]);
        }
        auto inTime = w.clock.enter(Stage::Time);
        pickBest(w, result);
    } while (!result.best && next < order.size() && !w.stopped());
    for (; next < order.size(); ++next) {
        leaveUnconfirmed(w, order[next], result.candidates[order[next]]);
    }
    if (std::any_of(result.candidates.begin(), result.candidates.end(),
                    [](const CandidateResult& c) {
                        return c.status == Status::Unconfirmed &&
                               c.reason.find("time budget") != std::string::npos;
                    })) {
        result.overBudget = true;
        result.notes.push_back("confirmation stopped at the time budget");
    }
    {
        auto inTime = w.clock.enter(Stage::Time);
        usefulRates(w, result);
    }
    correlations(w, result);
}

std::vector<std::string> derivation(egraph::EGraph& g, const egraph::RuleNames& rules,
                                    const egraph::Inserted& input,
                                    const extract::Candidate& chosen) {
    lift::Program p = chosen.program;
    egraph::Inserted mine = egraph::insertProgram(g, p);
    g.rebuild();
    egraph::Explanation ex =
        egraph::explain(g, rules, input.root, mine.root, input.signature.names);
    std::vector<std::string> out;
    if (!ex.equal) {
        return {"(no derivation: the chosen term is not equal to the input in the e-graph)"};
    }
    out.push_back(ex.start);
    for (const auto& s : ex.steps) {
        out.push_back(s.rule + (s.forward ? "" : " (reversed)") + ": " + s.term);
    }
    return out;
}

} // namespace egopt::pipeline
