// The saturation loop.
#include "egopt/egraph/runner.hpp"

#include <algorithm>
#include <chrono>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

namespace egopt::egraph {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

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
    : g_(g), rules_(rules), lib_(lib), ctx_(ctx), state_(rules.size()) {}

std::vector<std::vector<Match>> Runner::search(size_t iteration, RunReport& report) {
    OpIndex index(g_);
    // Tasks of at most kChunk candidate classes of one rule, grouped by rule in class order;
    // each task has its own result slot, and the flattening below reads them in task order,
    // so the matches do not depend on how the tasks were scheduled.
    constexpr size_t kChunk = 256;
    struct Task {
        size_t rule;
        std::span<const EClassId> classes;
    };
    std::vector<Task> tasks;
    for (size_t r = 0; r < rules_.size(); ++r) {
        if (state_[r].bannedUntil > iteration) {
            continue;
        }
        std::span<const EClassId> cands = index.candidates(rules_[r].lhs);
        for (size_t i = 0; i < cands.size(); i += kChunk) {
            tasks.push_back({r, cands.subspan(i, std::min(kChunk, cands.size() - i))});
        }
    }
    std::vector<std::vector<Match>> slots(tasks.size());
    std::vector<double> seconds(tasks.size(), 0.0);
    tbb::parallel_for(size_t(0), tasks.size(), [&](size_t t) {
        auto start = Clock::now();
        searchClasses(g_, rules_[tasks[t].rule], lib_, ctx_.facts, tasks[t].classes, slots[t]);
        seconds[t] = since(start);
    });
    std::vector<std::vector<Match>> out(rules_.size());
    for (size_t t = 0; t < tasks.size(); ++t) {
        auto& into = out[tasks[t].rule];
        into.insert(into.end(), std::make_move_iterator(slots[t].begin()),
                    std::make_move_iterator(slots[t].end()));
        report.rules[tasks[t].rule].searchSeconds += seconds[t];
    }
    for (size_t r = 0; r < rules_.size(); ++r) {
        RuleStats& st = report.rules[r];
        st.matches += out[r].size();
        size_t threshold = scheduler.matchLimit << state_[r].timesBanned;
        if (scheduler.matchLimit > 0 && out[r].size() > threshold) {
            state_[r].bannedUntil = iteration + (scheduler.banLength << state_[r].timesBanned);
            ++state_[r].timesBanned;
            ++st.timesBanned;
            out[r].clear();
        }
    }
    return out;
}

const Applications::Instances& Applications::of(const std::string& rule) const {
    static const Instances kNone;
    for (const Entry& e : rhs) {
        if (e.rule == rule) {
            return e.instances;
        }
    }
    return kNone;
}

namespace {

// A right-hand side that uses OpenCL patterns (Applications: a schedule).
bool schedule(const Rule& rule) {
    if (!rule.rhs) {
        return false;
    }
    return std::any_of(rule.rhs->nodes.begin(), rule.rhs->nodes.end(), [](const PatNode& n) {
        switch (n.kind == PatNode::Kind::Node ? n.op : lift::Op::Map) {
        case lift::Op::MapGlb:
        case lift::Op::MapWrg:
        case lift::Op::MapLcl:
        case lift::Op::MapSeq:
        case lift::Op::ReduceSeq:
        case lift::Op::ToGlobal:
        case lift::Op::ToLocal:
        case lift::Op::ToPrivate:
            return true;
        default:
            return false;
        }
    });
}

} // namespace

void Applications::add(const Rule& rule, std::vector<ENodeId> nodes) {
    for (Entry& e : rhs) {
        if (e.rule == rule.name) {
            e.instances.push_back(std::move(nodes));
            return;
        }
    }
    rhs.push_back({rule.name, schedule(rule), {std::move(nodes)}});
}

size_t Runner::apply(std::vector<std::vector<Match>>& matches, RunReport& report) {
    size_t applied = 0;
    for (size_t r = 0; r < rules_.size(); ++r) {
        auto start = Clock::now();
        size_t before = g_.numNodeIds();
        for (const Match& m : matches[r]) {
            if (g_.numNodes() > limits.nodes) {
                break; // counted, hence deterministic
            }
            bool record = applications && !rules_[r].composition.empty();
            std::vector<ENodeId> rhs;
            if (applyMatch(g_, rules_[r], lib_, ctx_, m, record ? &rhs : nullptr)) {
                ++applied;
                ++report.rules[r].applications;
            }
            if (!rhs.empty()) {
                applications->add(rules_[r], std::move(rhs));
            }
        }
        report.rules[r].newNodes += g_.numNodeIds() - before;
        report.rules[r].applySeconds += since(start);
    }
    return applied;
}

RunReport Runner::run(const std::function<void(const IterationReport&)>& onIteration) {
    RunReport report;
    for (const Rule& r : rules_) {
        report.rules.push_back({r.name});
    }
    auto start = Clock::now();
    // More threads than cores only adds contention (and a TBB warning); results are the same.
    auto cores = static_cast<size_t>(std::max(1, tbb::info::default_concurrency()));
    tbb::task_arena arena(static_cast<int>(std::clamp<size_t>(threads, 1, cores)));
    g_.rebuild();
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
        std::vector<std::vector<Match>> matches;
        arena.execute([&] { matches = search(it, report); });
        size_t applied = apply(matches, report);
        g_.rebuild();
        IterationReport ir{it + 1,           g_.numNodes(), g_.numClasses(),
                           g_.memoryBytes(), applied,       since(iterStart)};
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
        if (g_.numNodes() > limits.nodes) {
            report.stop = StopReason::NodeLimit;
            break;
        }
        if (ir.bytes > limits.memoryBytes) {
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
        if (since(start) > limits.seconds) {
            report.stop = StopReason::TimeLimit;
            break;
        }
    }
    return report;
}

} // namespace egopt::egraph
