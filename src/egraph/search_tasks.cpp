// Cutting a rule's candidate classes into search tasks (search_tasks.hpp).
#include "search_tasks.hpp"

#include <algorithm>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

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

void runEachTask(size_t tasks, const std::function<void(size_t)>& run) {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, tasks, 1),
        [&](const auto& range) {
            for (size_t t = range.begin(); t < range.end(); ++t) {
                run(t);
            }
        },
        tbb::simple_partitioner());
}

} // namespace egopt::egraph::detail
