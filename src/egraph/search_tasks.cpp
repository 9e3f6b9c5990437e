// Cutting a rule's candidate classes into search tasks (search_tasks.hpp).
#include "search_tasks.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace egopt::egraph::detail {

void cutTasks(const EGraph& g, size_t r, std::span<const EClassId> cands,
              std::span<const EClassId> large, std::vector<SearchTask>& out) {
    constexpr size_t kChunk = 256;
    constexpr size_t kMembers = 512;
    size_t from = 0; // the first candidate in no task yet
    auto flush = [&](size_t to) {
        for (size_t i = from; i < to; i += kChunk) {
            out.push_back({r, cands.subspan(i, std::min(kChunk, to - i)), {}});
        }
    };
    for (EClassId c : large) {
        auto it = std::lower_bound(cands.begin() + static_cast<ptrdiff_t>(from), cands.end(), c);
        if (it == cands.end()) {
            break;
        }
        if (*it != c) {
            continue;
        }
        auto at = static_cast<size_t>(it - cands.begin());
        flush(at);
        size_t members = g.eclass(c).nodes.size();
        for (size_t lo = 0; lo < members; lo += kMembers) {
            MemberRange roots{static_cast<uint32_t>(lo),
                              static_cast<uint32_t>(std::min(lo + kMembers, members))};
            out.push_back({r, cands.subspan(at, 1), roots});
        }
        from = at + 1;
    }
    flush(cands.size());
}

void runEachTask(std::span<const size_t> order, const std::function<void(size_t)>& run) {
    // One loop per thread of the arena, each taking the next task from a shared counter: the
    // tasks start in `order` (a parallel_for over the tasks would split their range in halves
    // and start the costly tasks at the end of the list late).
    std::atomic<size_t> next = 0;
    auto loops = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, std::min(loops, order.size()), 1),
        [&](const auto& range) {
            for (size_t l = range.begin(); l < range.end(); ++l) {
                for (size_t i = next++; i < order.size(); i = next++) {
                    run(order[i]);
                }
            }
        },
        tbb::simple_partitioner());
}

std::vector<size_t> costliestFirst(std::span<const SearchTask> tasks,
                                   std::span<const double> secondsPerTask) {
    std::vector<size_t> order(tasks.size());
    std::iota(order.begin(), order.end(), size_t(0));
    auto cost = [&](size_t t) {
        const SearchTask& task = tasks[t];
        double full = task.roots.whole() ? 256.0 : 512.0; // a full task's classes or members
        double part = task.roots.whole() ? static_cast<double>(task.classes.size())
                                         : static_cast<double>(task.roots.hi - task.roots.lo);
        return secondsPerTask[task.rule] * part / full;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return cost(a) > cost(b); });
    return order;
}

} // namespace egopt::egraph::detail
