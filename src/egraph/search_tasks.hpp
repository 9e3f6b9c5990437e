// The runner's search tasks (docs/egraph.md, "Runner"): how a rule's candidate classes are cut
// into tasks that run in parallel.
#pragma once

#include "egopt/egraph/egraph.hpp"
#include "egopt/egraph/pattern.hpp"

#include <functional>
#include <span>
#include <vector>

namespace egopt::egraph::detail {

// A search task: candidate classes of one rule, or a range of the root members of one class.
struct SearchTask {
    size_t rule;
    std::span<const EClassId> classes;
    MemberRange roots;
};

// Cuts rule r's candidates (ascending) into tasks in class order: at most 256 classes each,
// and each class of `large` (ascending) on its own, in ranges of 512 root members. Each
// task has its own result slot, read in task order, so the matches do not depend on how the
// tasks are cut or scheduled.
void cutTasks(const EGraph& g, size_t r, std::span<const EClassId> cands,
              std::span<const EClassId> large, std::vector<SearchTask>& out);

// Runs run(t) for every task t in parallel, one task at a time per thread: tasks vary in cost
// by orders of magnitude, and a range of them run in turn by one thread could hold up the
// whole search.
void runEachTask(size_t tasks, const std::function<void(size_t)>& run);

} // namespace egopt::egraph::detail
