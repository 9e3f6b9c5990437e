// Equality saturation: iterations of (parallel search, apply in order, rebuild) under limits
// on iterations, e-nodes, memory and time, with a backoff scheduler that bans rules that match
// too much for growing periods (as egg's BackoffScheduler), and per-rule statistics.
//
// Determinism: the search runs in parallel (oneTBB) over rules and e-classes, but every match
// is stored at its (rule, class) position and applied in that order, so the e-graph after each
// iteration does not depend on the thread count. Right-hand sides may be planned in parallel
// (planApply); a plan is used only where it adds what building the side in order would. Only
// the time limit is inherently nondeterministic: it stops a search or apply phase where it is
// reached (the matches applied so far stay, the e-graph is rebuilt).
#pragma once

#include "egopt/egraph/direct_rhs.hpp"
#include "egopt/egraph/rewrite.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <string>
#include <vector>

namespace egopt::egraph {

namespace detail {
struct DeferredRule;
class ApplyJournal;
} // namespace detail

struct Limits {
    size_t iterations = 30;
    size_t nodes = 100'000;
    size_t memoryBytes = size_t(1) << 30;
    double seconds = 60.0;
};

// GoalReached: the runner's goal predicate held after an iteration (e.g. `prove` stops as soon
// as both roots share an e-class, before the rules blow the e-graph up).
enum class StopReason : uint8_t {
    Saturated,
    IterationLimit,
    NodeLimit,
    MemoryLimit,
    TimeLimit,
    GoalReached
};
std::string_view stopReasonName(StopReason r);

struct SchedulerConfig {
    size_t matchLimit = 1000; // matches per iteration before a rule is banned; 0: never
    size_t banLength = 5;     // iterations; both double with every ban
};

struct RuleStats {
    std::string name;
    // Matches enumerated. A semi-naive search (no backoff scheduler) leaves unchanged matches
    // that are sure to change nothing unenumerated, and they are not counted (docs/egraph.md,
    // "Unchanged matches").
    size_t matches = 0;
    size_t applications = 0; // matches that changed the e-graph
    size_t newNodes = 0;
    size_t timesBanned = 0;
    size_t unchangedSkipped = 0; // matches not applied: unchanged, and sure to change nothing
    size_t fromPlans = 0;        // matches applied as planned in parallel (Runner::planApply)
    size_t fromDirect = 0;       // matches applied through the compiled right-hand side
    // Matches of a planned window built in place (not planned, or the plan refused when applied).
    size_t inPlace = 0;
    // Semi-naive search: ranges of unchanged matches the search deferred, and those of them the
    // apply phase enumerated (their matches may have changed something; counted in `matches`).
    size_t deferred = 0;
    size_t deferredEnumerated = 0;
    size_t deferredMatches = 0; // the matches found in them
    double searchSeconds = 0;
    double applySeconds = 0;
};

struct IterationReport {
    size_t iteration = 0;
    size_t nodes = 0;
    size_t classes = 0;
    size_t bytes = 0;
    size_t applied = 0;
    double seconds = 0;
    // The phases' shares of `seconds`.
    double searchSeconds = 0;
    double applySeconds = 0;
    double rebuildSeconds = 0;
    // Parts of those: the search's tasks (parallel; the rest builds the operator index and the
    // function filters, cuts the tasks and collects their matches) and the planning of the
    // apply phase's windows (parallel; the rest applies in order).
    double searchTaskSeconds = 0;
    double planSeconds = 0;
    // The seconds of every search task and planned range added up (over all threads): against
    // the wall-clock seconds above times the threads, what waiting and imbalance cost.
    double searchTaskSum = 0;
    double planSum = 0;
};

struct RunReport {
    StopReason stop = StopReason::Saturated;
    std::vector<IterationReport> iterations;
    std::vector<RuleStats> rules;
};

// The applications of the rules that state a composition (`by a; b; ...`, a macro rule): the
// e-nodes of each right-hand side the runner instantiated (added or already present), one list
// per application in order, by rule, the rules in the order of their first application. A
// composition whose right-hand side uses OpenCL patterns (thread maps, sequential maps and
// reductions, address spaces) is a schedule: extraction's guided draws replay those
// (ExploreOptions::guides).
struct Applications {
    using Instances = std::vector<std::vector<ENodeId>>;
    struct Entry {
        std::string rule;
        bool schedule = false;
        Instances instances;
    };
    std::vector<Entry> rhs;
    const Instances& of(const std::string& rule) const; // empty: never applied
    void add(const Rule& rule, std::vector<ENodeId> nodes);
};

// The e-classes a run may rewrite (Runner::focus): those named, as their roots at each search,
// and every class created after `since` (an id at or above it), which a rewrite in focus made.
// A search that grows the e-graph around chosen terms instead of everywhere (the pipeline's
// search stages, docs/search.md).
struct Focus {
    std::vector<EClassId> classes;
    size_t since = 0;
};

class Runner {
public:
    // `ctx` holds what the rules read and write besides `g` (tuning variables, size facts, rule
    // names); it outlives the runner, since extraction and explanations read it afterwards.
    Runner(EGraph& g, const std::vector<Rule>& rules, const Library& lib, RewriteContext& ctx);
    ~Runner();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;
    Limits limits;
    SchedulerConfig scheduler;
    size_t threads = 1;
    // Checked before the first iteration and after every rebuild (the e-graph is clean then);
    // when it returns true the run stops with StopReason::GoalReached. Empty: no goal.
    std::function<bool(const EGraph&)> goal;
    // When set, the applications of rules with a stated composition are recorded here.
    Applications* applications = nullptr;
    // When set, rules match only at the focus's e-classes (Focus). Matches are then never skipped
    // as unchanged: a class can enter the focus after its rule last ran.
    const Focus* focus = nullptr;
    // Apply phase: with more than one thread, matches are planned in parallel in windows of this
    // many, then applied in order (docs/egraph.md, "Parallel apply"); otherwise, or when off,
    // each is built when it is applied. The e-graph is the same either way.
    bool planApply = true;
    size_t planWindowSize = 4096;
    // Semi-naive search: without the backoff scheduler (its bans count every match), rules
    // whose unchanged matches are skipped (skipsUnchangedMatches) leave them unenumerated where
    // they can tell (defersUnchangedMatches). The e-graph is the same either way.
    bool semiNaive = true;
    // Matches of a rule whose right-hand side compiles (DirectRhs) are applied through it when
    // not planned; the e-graph is the same either way.
    bool directRhs = true;
    // Applications in left-hand sides (`?f $ (...)`) are searched only among the members that
    // apply ?f's class, or a class its conditions allow (FunctionFilter); the matches are the
    // same either way.
    bool functionFilter = true;
    RunReport run(const std::function<void(const IterationReport&)>& onIteration = {});

private:
    struct RuleState {
        size_t bannedUntil = 0;
        size_t timesBanned = 0;
        // The epoch of the last apply phase that applied every match of the rule (0: none), and
        // whether its unchanged matches can be skipped (skipsUnchangedMatches).
        uint32_t appliedAt = 0;
        bool skipsUnchanged = false;
        std::unique_ptr<detail::DeferredRule> deferred; // set when it defers (semiNaive)
        std::optional<DirectRhs> direct;  // its right-hand side compiled, where it can be
        std::optional<FunctionPins> pins; // where FunctionFilter can narrow its search
    };
    // The matches of one search task (a chunk of one rule's classes): per match its class and
    // `width` slot classes in one flat array (a Subst per match, with its heap vector and map,
    // took about 100 bytes each and was most of the peak memory of an AC workload), and the
    // size bindings of the few that have any.
    // An entry is a match or a range of members whose matches the search deferred
    // (Deferral): a row of its root class and no slot classes, its path in `paths`.
    struct Matches {
        struct Deferred {
            uint32_t pathAt = 0, pathLen = 0, lo = 0, hi = 0;
        };
        size_t width = 0;
        size_t count = 0;            // entries
        size_t found = 0;            // matches
        std::vector<bool> unchanged; // by entry: Subst::unchanged (deferred: true)
        std::vector<EClassId> classes;
        std::vector<std::pair<size_t, std::map<std::string, arith::Size, std::less<>>>> sizes;
        std::vector<std::pair<size_t, Deferred>> deferred; // by entry
        std::vector<uint32_t> paths;
        void add(EClassId c, const Subst& s);
        void defer(EClassId root, std::span<const uint32_t> path, uint32_t lo, uint32_t hi);
        // Entry i into `out`, whose vector is reused from entry to entry; its range if deferred.
        const Deferred* at(size_t i, size_t& nextSizes, size_t& nextDeferred, Match& out) const;
    };
    // The matches of one rule: its tasks' matches in task order, hence class order, kept as the
    // tasks left them (concatenating them was a sequential copy of every match).
    struct RuleMatches {
        size_t count = 0;
        bool searched = false; // all matches found (not dropped by a ban)
        std::vector<Matches> parts;
    };
    std::vector<RuleMatches> search(size_t iteration, RunReport& report);
    // By canonical id, whether the focus holds the class (empty: no focus).
    std::vector<bool> focusedRoots() const;
    // Applies the matches in order (up to the e-node limit); false when it stopped at the memory
    // limit.
    bool apply(std::vector<RuleMatches>& matches, RunReport& report, size_t& applied);
    // Applies one match in order (planned when `plan` is given); false when a limit stopped
    // the phase before it (`stopped`: the memory limit).
    struct ApplyState {
        RunReport& report;
        size_t& applied;
        detail::ApplyJournal* journal = nullptr;
        size_t sinceCheck = 0;
        size_t sinceClock = 0; // matches since the time limit was last checked
        bool nodeLimit = false;
        bool stopped = false;
        bool record = false;
        // The rule's deferred ranges (applyDeferred): one resumption session per rule.
        Resumption resume{};
        const std::function<void(EClassId)>* resumeRun = nullptr;
        size_t deferredFound = 0;
        bool deferredStop = false;
        EClassId deferredRoot = kNoClass;
        // Direct right-hand sides: the lookaheads of the matches ahead (prefetchAhead), by
        // match index modulo their count, and the one of the match being applied.
        std::array<DirectRhs::Lookahead, 32> ahead{};
        const DirectRhs::Lookahead* current = nullptr;
    };
    bool applyOne(size_t r, Match& m, const PlannedMatch* plan, ApplyState& st);
    // The lookups of the matches after match i of `matches` (rule r), ahead of time; sets
    // st.current to match i's lookahead.
    void prefetchAhead(const Matches& matches, size_t r, size_t i, ApplyState& st) const;
    // The matches of a deferred range that may change the e-graph, applied in order.
    bool applyDeferred(size_t r, const Matches& part, const Matches::Deferred& d, EClassId root,
                       ApplyState& st);
    std::unique_ptr<detail::ApplyJournal> startJournal(const std::vector<RuleMatches>& matches);
    // Runs `applyRule` inside rule r's resumption session when it has deferred ranges.
    void withResumption(size_t r, const RuleMatches& matches, ApplyState& st,
                        const std::function<void()>& applyRule);
    bool deferring(size_t r) const;
    void planWindow(const Rule& rule, std::span<const Match> window, std::span<PlannedMatch> plans);
    bool goalReached() const { return goal && goal(g_); }
    // The function filter of rule r's search in this iteration, if any.
    const FunctionFilter* filterOf(size_t r) const {
        return r < filters_.size() && filters_[r].index ? &filters_[r] : nullptr;
    }

    EGraph& g_;
    const std::vector<Rule>& rules_;
    const Library& lib_;
    RewriteContext& ctx_;
    std::vector<RuleState> state_;
    // From the search to the end of the apply phase of an iteration: the search's operator
    // index and, by rule, its function filter (index null: none).
    std::unique_ptr<OpIndex> index_;
    std::vector<FunctionFilter> filters_;
    // The time limit, also checked inside an iteration: by each search task as it starts and
    // every few thousand matches applied; timedOut_ says that the iteration stopped there.
    std::chrono::steady_clock::time_point deadline_{};
    bool timedOut_ = false;
    // This iteration's seconds in search tasks and in planning (IterationReport).
    double taskSeconds_ = 0;
    double planSeconds_ = 0;
    double taskSum_ = 0;
    std::atomic<int64_t> planNanos_ = 0; // planSum, added to by the planning threads
    // The planning threads' type memos, each holding the types of the window it last planned
    // in (planWindow numbers the windows in plannedWindows_).
    std::unique_ptr<tbb::enumerable_thread_specific<PlanTypeMemo>> planMemos_;
    uint64_t plannedWindows_ = 0;
    bool pastDeadline() const { return std::chrono::steady_clock::now() > deadline_; }
};

} // namespace egopt::egraph
