// The saturation loop.
#include "egopt/egraph/runner.hpp"

#include "egopt/support/clock.hpp"
#include "search_tasks.hpp"
#include "seminaive.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

namespace egopt::egraph {

namespace {

using Clock = std::chrono::steady_clock;

} // namespace

std::string_view stopReasonName(StopReason r) {
    switch (r) {
    case StopReason::Saturated:
        return "saturated";
    case StopReason::IterationLimit:
        return "iteration limit";
    case StopReason::NodeLimit:
        return "e-node limit";
    case StopReason::MemoryLimit:
        return "memory limit";
    case StopReason::TimeLimit:
        return "time limit";
    case StopReason::GoalReached:
        return "goal reached";
    }
    return "?";
}

Runner::Runner(EGraph& g, const std::vector<Rule>& rules, const Library& lib, RewriteContext& ctx)
    : g_(g), rules_(rules), lib_(lib), ctx_(ctx), state_(rules.size()) {
    for (size_t r = 0; r < rules.size(); ++r) {
        state_[r].skipsUnchanged = skipsUnchangedMatches(rules[r], lib);
        state_[r].direct = DirectRhs::compile(rules[r]);
        state_[r].pins = functionPins(rules[r], lib);
        if (defersUnchangedMatches(rules[r], lib)) {
            state_[r].deferred = std::make_unique<detail::DeferredRule>(rules[r]);
        }
    }
}

Runner::~Runner() = default;

bool Runner::deferring(size_t r) const {
    return semiNaive && scheduler.matchLimit == 0 && state_[r].deferred && !focus;
}

std::vector<bool> Runner::focusedRoots() const {
    if (!focus) {
        return {};
    }
    std::vector<bool> in(g_.numNodeIds(), false);
    for (EClassId c : focus->classes) {
        in[g_.findConst(c)] = true;
    }
    for (size_t id = focus->since; id < in.size(); ++id) {
        in[g_.findConst(EClassId(id))] = true;
    }
    return in;
}

std::vector<Runner::RuleMatches> Runner::search(size_t iteration, RunReport& report) {
    auto active = [&](size_t r) { return state_[r].bannedUntil <= iteration; };
    std::vector<bool> filtered(rules_.size(), false);
    for (size_t r = 0; r < rules_.size(); ++r) {
        filtered[r] = functionFilter && active(r) && state_[r].pins;
    }
    // Kept for the apply phase, whose deferred ranges are enumerated on the classes as they were.
    index_ = std::make_unique<OpIndex>(g_, std::find(filtered.begin(), filtered.end(), true) !=
                                               filtered.end());
    const OpIndex& index = *index_;
    filters_.assign(rules_.size(), FunctionFilter());
    std::vector<std::vector<EClassId>> roots(rules_.size());
    // Matches unchanged since the rule last had every match applied (0: not asked).
    std::vector<uint32_t> unchangedSince(rules_.size(), 0);
    for (size_t r = 0; r < rules_.size(); ++r) {
        bool recorded = applications && !rules_[r].composition.empty();
        if (state_[r].skipsUnchanged && !g_.explanations && !recorded) {
            unchangedSince[r] = state_[r].appliedAt;
        }
    }
    auto defers = [&](size_t r) { return unchangedSince[r] != 0 && deferring(r); };
    std::vector<detail::SearchTask> tasks;
    std::vector<bool> inFocus = focusedRoots();
    std::vector<std::vector<EClassId>> focused(inFocus.empty() ? 0 : rules_.size());
    for (size_t r = 0; r < rules_.size(); ++r) {
        if (!active(r)) {
            continue;
        }
        std::span<const EClassId> cands = index.candidates(rules_[r].lhs);
        if (filtered[r]) {
            filters_[r] = makeFunctionFilter(g_, rules_[r], lib_, ctx_.facts, *state_[r].pins,
                                             index, roots[r], cands);
        }
        if (!inFocus.empty()) {
            std::copy_if(cands.begin(), cands.end(), std::back_inserter(focused[r]),
                         [&](EClassId c) { return c < inFocus.size() && inFocus[c]; });
            cands = focused[r];
        }
        // A deferral's ranges would be cut at the tasks' bounds: its rules keep classes whole.
        bool split = rootOp(rules_[r].lhs).has_value() && !defers(r);
        detail::cutTasks(g_, r, cands, split ? index.large() : std::span<const EClassId>(), tasks);
    }
    std::vector<Matches> slots(tasks.size());
    std::vector<double> seconds(tasks.size(), 0.0);
    // The hot members of a deferring rule's classes, shared by its tasks on each thread: the
    // same classes are reached from the roots of many tasks.
    std::vector<std::unique_ptr<tbb::enumerable_thread_specific<HotMembers>>> hot(rules_.size());
    for (size_t r = 0; r < rules_.size(); ++r) {
        if (defers(r)) {
            hot[r] = std::make_unique<tbb::enumerable_thread_specific<HotMembers>>();
        }
    }
    std::atomic<bool> timedOut = false;
    auto searchTask = [&](size_t t) {
        if (timedOut.load(std::memory_order_relaxed) || pastDeadline()) {
            timedOut = true; // the iteration stops: its matches are dropped
            return;
        }
        auto start = Clock::now();
        size_t r = tasks[t].rule;
        const Rule& rule = rules_[r];
        // Filled here and moved to its slot at the end: the slots of tasks that run at the same
        // time on other threads lie next to it in memory (a shared cache line per match added).
        Matches found;
        found.width = rule.vars.names.size();
        // Semi-naive: the unchanged matches the search can tell before reaching them are left
        // for the apply phase, which enumerates those that may change something.
        std::optional<Deferral> deferral;
        if (defers(r)) {
            deferral.emplace();
            deferral->conditionSlot = state_[r].deferred->conditionSlot;
            deferral->hot = &hot[r]->local();
            deferral->onDeferred = [&](EClassId root, std::span<const uint32_t> path, uint32_t lo,
                                       uint32_t hi) { found.defer(root, path, lo, hi); };
        }
        searchClasses(
            g_, rule, lib_, ctx_.facts, tasks[t].classes,
            [&](EClassId c, const Subst& s) { found.add(c, s); }, unchangedSince[r],
            deferral ? &*deferral : nullptr, filterOf(r), tasks[t].roots);
        slots[t] = std::move(found);
        seconds[t] = secondsSince(start);
    };
    auto tasksStart = Clock::now();
    detail::runEachTask(tasks.size(), searchTask);
    taskSeconds_ = secondsSince(tasksStart);
    for (double t : seconds) {
        taskSum_ += t;
    }
    std::vector<RuleMatches> out(rules_.size());
    if (timedOut) {
        timedOut_ = true;
        return out;
    }
    for (size_t r = 0; r < rules_.size(); ++r) {
        out[r].searched = state_[r].bannedUntil <= iteration;
    }
    for (size_t t = 0; t < tasks.size(); ++t) {
        RuleMatches& rm = out[tasks[t].rule];
        rm.count += slots[t].found;
        report.rules[tasks[t].rule].deferred += slots[t].deferred.size();
        if (slots[t].count > 0) {
            rm.parts.push_back(std::move(slots[t]));
        }
        report.rules[tasks[t].rule].searchSeconds += seconds[t];
    }
    for (size_t r = 0; r < rules_.size(); ++r) {
        RuleStats& st = report.rules[r];
        st.matches += out[r].count;
        size_t threshold = scheduler.matchLimit << state_[r].timesBanned;
        if (scheduler.matchLimit > 0 && out[r].count > threshold) {
            state_[r].bannedUntil = iteration + (scheduler.banLength << state_[r].timesBanned);
            ++state_[r].timesBanned;
            ++st.timesBanned;
            out[r] = RuleMatches(); // not searched: its matches were dropped
        }
    }
    return out;
}

bool Runner::applyOne(size_t r, Match& m, const PlannedMatch* plan, ApplyState& st) {
    if (g_.numNodes() > limits.nodes) {
        st.nodeLimit = true; // counted, hence deterministic
        return false;
    }
    // The memory limit is checked every kMemoryCheck matches (memoryBytes visits every class):
    // counted, hence deterministic, as the e-node limit.
    constexpr size_t kMemoryCheck = 4096;
    if (++st.sinceCheck == kMemoryCheck) {
        st.sinceCheck = 0;
        if (g_.memoryBytes() > limits.memoryBytes) {
            st.stopped = true;
            return false;
        }
    }
    constexpr size_t kClockCheck = 1024;
    if (++st.sinceClock == kClockCheck) {
        st.sinceClock = 0;
        if (pastDeadline()) {
            timedOut_ = true;
            st.stopped = true;
            return false;
        }
    }
    RuleStats& stats = st.report.rules[r];
    if (m.subst.unchanged && unchangedMatchIsNoOp(g_, rules_[r], m.subst)) {
        ++stats.unchangedSkipped;
        return true; // applied when the rule last ran, and would change nothing now
    }
    std::vector<ENodeId> rhs;
    bool asPlanned = false;
    const std::optional<DirectRhs>& direct = state_[r].direct;
    bool changed = false;
    if (plan) {
        changed = applyPlanned(g_, rules_[r], lib_, ctx_, m, *plan, &asPlanned);
    } else if (direct && directRhs && !st.record && !g_.explanations) {
        changed = direct->apply(g_, rules_[r], ctx_, m, st.current);
        ++stats.fromDirect;
    } else {
        changed = applyMatchInPlace(g_, rules_[r], lib_, ctx_, m, st.record ? &rhs : nullptr);
    }
    stats.fromPlans += asPlanned ? 1 : 0;
    stats.inPlace += plan && !asPlanned ? 1 : 0;
    if (changed) {
        ++st.applied;
        ++stats.applications;
    }
    if (!rhs.empty()) {
        applications->add(rules_[r], std::move(rhs));
    }
    return true;
}

bool Runner::apply(std::vector<RuleMatches>& matches, RunReport& report, size_t& applied) {
    // Changes from here on are of a later epoch than the search saw; merges mark the classes
    // that unchanged matches check (unchangedMatchIsNoOp).
    g_.advanceEpoch();
    g_.trackAbsorbed(true);
    struct StopTracking {
        EGraph& g;
        ~StopTracking() {
            g.trackAbsorbed(false);
            g.trackDataChanges(false);
        }
    } stopTracking{g_};
    std::unique_ptr<detail::ApplyJournal> journal = startJournal(matches);
    ApplyState st{report, applied};
    st.journal = journal.get();
    // Matches are applied in windows: planned in parallel on the e-graph as the window begins,
    // then applied in order (applyPlanned: the same e-graph as applying them one by one). A
    // window holds no more entries than a rule has: its slots are built and freed each
    // iteration, which a small e-graph would otherwise pay for thousands of empty ones.
    size_t mostEntries = 0;
    for (const RuleMatches& rm : matches) {
        size_t entries = 0;
        for (const Matches& part : rm.parts) {
            entries += part.count;
        }
        mostEntries = std::max(mostEntries, entries);
    }
    const size_t windowSize = std::clamp<size_t>(mostEntries, 1, planWindowSize);
    std::vector<Match> window(windowSize);
    std::vector<PlannedMatch> plans(windowSize);
    std::vector<std::pair<Matches*, size_t>> where(windowSize);
    std::vector<const Matches::Deferred*> deferredAt(windowSize);
    for (size_t r = 0; r < rules_.size(); ++r) {
        auto start = Clock::now();
        size_t before = g_.numNodeIds();
        st.record = applications && !rules_[r].composition.empty();
        // A compiled right-hand side costs its lookups only: planning it would cost more.
        bool direct = directRhs && state_[r].direct;
        bool plan = planApply && threads > 1 && plannable(rules_[r]) && !direct &&
                    !g_.explanations && !st.record;
        std::vector<Matches>& parts = matches[r].parts;
        // The first entry not in a window yet.
        // Unplanned matches go one at a time through the window's first slot: filling a window
        // first would only spread them over as many substitutions in memory.
        const size_t span = plan ? windowSize : 1;
        // On a small e-graph, which the caches hold, the lookahead (making, hashing and
        // prefetching the keys of the matches ahead) costs more than the misses it saves.
        constexpr size_t kLookAheadNodes = size_t(1) << 15;
        const bool lookAhead = g_.numNodes() >= kLookAheadNodes;
        withResumption(r, matches[r], st, [&] {
            size_t part = 0, next = 0, nextSizes = 0, nextDeferred = 0, freed = 0;
            while (part < parts.size() && !st.stopped && !st.nodeLimit) {
                size_t n = 0;
                while (n < span && part < parts.size()) {
                    if (next == parts[part].count) {
                        ++part, next = 0, nextSizes = 0, nextDeferred = 0;
                        continue;
                    }
                    where[n] = {&parts[part], next};
                    deferredAt[n] = parts[part].at(next++, nextSizes, nextDeferred, window[n]);
                    ++n;
                }
                if (plan) {
                    auto planStart = Clock::now();
                    planWindow(rules_[r], std::span(window).first(n), std::span(plans).first(n));
                    planSeconds_ += secondsSince(planStart);
                }
                // The in-order part defers its hashcons inserts to batches (their cache misses
                // overlap); the next window's planners read the whole hashcons again.
                struct Batched {
                    EGraph& g;
                    bool on;
                    ~Batched() {
                        if (on) {
                            g.deferHashconsInserts(false);
                        }
                    }
                } batched{g_, plan};
                if (plan) {
                    g_.deferHashconsInserts(true);
                }
                for (size_t j = 0; j < n; ++j) {
                    if (deferredAt[j]) {
                        if (!applyDeferred(r, *where[j].first, *deferredAt[j], window[j].eclass,
                                           st)) {
                            break;
                        }
                        continue;
                    }
                    if (state_[r].skipsUnchanged && lookAhead) { // later matches' lookups
                        prefetchAhead(*where[j].first, r, where[j].second, st);
                    }
                    bool go = applyOne(r, window[j], plan ? &plans[j] : nullptr, st);
                    st.current = nullptr;
                    if (!go) {
                        break;
                    }
                }
                for (; freed < part; ++freed) {
                    parts[freed] = Matches(); // applied: its memory goes back
                }
            }
        });
        if (matches[r].searched && !st.stopped && !st.nodeLimit && !focus) {
            state_[r].appliedAt = g_.epoch(); // every match found was applied
        }
        matches[r] = RuleMatches();
        report.rules[r].newNodes += g_.numNodeIds() - before;
        report.rules[r].applySeconds += secondsSince(start);
        if (st.stopped) {
            return false;
        }
        if (st.nodeLimit) {
            break; // the run stops if rebuilding leaves it above the limit
        }
    }
    return true;
}

RunReport Runner::run(const std::function<void(const IterationReport&)>& onIteration) {
    RunReport report;
    for (const Rule& r : rules_) {
        report.rules.push_back({r.name});
    }
    auto start = Clock::now();
    // The first iteration always runs whole, so that every run makes its first round of
    // rewrites (a pipeline phase under a spent budget still lowers the program); the limit stops
    // later iterations where it is reached.
    const Clock::time_point deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(std::min(limits.seconds, 1e9)));
    deadline_ = Clock::time_point::max();
    timedOut_ = false;
    // More threads than cores only adds contention (and a TBB warning); results are the same.
    auto cores = static_cast<size_t>(std::max(1, tbb::info::default_concurrency()));
    tbb::task_arena arena(static_cast<int>(std::clamp<size_t>(threads, 1, cores)));
    arena.execute([&] { g_.rebuild(); });
    if (goalReached()) {
        report.stop = StopReason::GoalReached;
        return report;
    }
    for (size_t it = 0;; ++it) {
        if (it >= limits.iterations) {
            report.stop = StopReason::IterationLimit;
            break;
        }
        auto iterStart = Clock::now();
        if (it == 1) {
            deadline_ = deadline;
        }
        std::vector<RuleMatches> matches;
        taskSeconds_ = planSeconds_ = taskSum_ = 0;
        planNanos_ = 0;
        arena.execute([&] { matches = search(it, report); });
        auto applyStart = Clock::now();
        size_t applied = 0;
        bool complete = false; // in the arena: its memory checks sum in parallel
        if (!timedOut_) {
            arena.execute([&] { complete = apply(matches, report, applied); });
        }
        filters_.clear();
        index_.reset();
        auto rebuildStart = Clock::now();
        arena.execute([&] { g_.rebuild(); }); // its analysis rounds run on the same threads
        IterationReport ir{it + 1,           g_.numNodes(), g_.numClasses(),
                           g_.memoryBytes(), applied,       secondsSince(iterStart)};
        ir.searchSeconds = std::chrono::duration<double>(applyStart - iterStart).count();
        ir.applySeconds = std::chrono::duration<double>(rebuildStart - applyStart).count();
        ir.rebuildSeconds = ir.seconds - ir.searchSeconds - ir.applySeconds;
        ir.searchTaskSeconds = taskSeconds_;
        ir.planSeconds = planSeconds_;
        ir.searchTaskSum = taskSum_;
        ir.planSum = static_cast<double>(planNanos_.load()) * 1e-9;
        report.iterations.push_back(ir);
        if (onIteration) {
            onIteration(ir);
        }
        if (goalReached()) {
            report.stop = StopReason::GoalReached;
            break;
        }
        bool banned = false;
        for (const RuleState& s : state_) {
            banned = banned || s.bannedUntil > it + 1;
        }
        if (timedOut_) {
            report.stop = StopReason::TimeLimit;
            break;
        }
        if (g_.numNodes() > limits.nodes) {
            report.stop = StopReason::NodeLimit;
            break;
        }
        if (ir.bytes > limits.memoryBytes || !complete) {
            report.stop = StopReason::MemoryLimit;
            break;
        }
        if (applied == 0 && !banned) {
            report.stop = StopReason::Saturated;
            break;
        }
        if (applied == 0) { // only banned rules could still change something: lift the bans
            for (RuleState& s : state_) {
                s.bannedUntil = 0;
            }
        }
        if (secondsSince(start) > limits.seconds) {
            report.stop = StopReason::TimeLimit;
            break;
        }
    }
    return report;
}

} // namespace egopt::egraph
