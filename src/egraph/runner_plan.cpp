// The planning half of the runner's parallel apply phase (docs/egraph.md, "Parallel apply"):
// the matches of a window planned in parallel on the e-graph as the window begins, and planned
// again within the window once a type or attribute their planning lacked exists.
#include "egopt/egraph/runner.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

size_t Runner::planMatches(const Rule& rule, std::span<const Match> window,
                           std::span<PlannedMatch> plans, std::span<const uint32_t> only) {
    // Frozen: planners read the e-graph and the type arena on every thread, and a type that is
    // missing makes its match unplanned instead of being added in thread order.
    g_.types.freeze(true);
    struct Thaw {
        lift::TypeArena& types;
        ~Thaw() { types.freeze(false); }
    } thaw{g_.types};
    g_.settleVarTypes(); // the context check of every planner reads them
    // Each range copies the tuning space once; the ranges decide only which generator draws
    // are predicted (the others are drawn again when applied), never the e-graph.
    const size_t grain = only.empty() ? 64 : 4;
    const size_t count = only.empty() ? window.size() : only.size();
    const size_t known = ctx_.tuning.constraints().size();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, grain),
                      [&](const tbb::blocked_range<size_t>& range) {
                          TuningSpace scratch;
                          if (!rule.generators.empty()) {
                              scratch = ctx_.tuning;
                          }
                          for (size_t i = range.begin(); i < range.end(); ++i) {
                              size_t j = only.empty() ? i : only[i];
                              plans[j].ok = false;
                              if (!window[j].subst.unchanged) { // those are mostly skipped
                                  planMatch(g_, rule, lib_, scratch, known, window[j], plans[j]);
                              }
                          }
                      });
    return g_.types.size() + g_.numAttrs();
}

size_t Runner::planWindow(const Rule& rule, std::span<const Match> window,
                          std::span<PlannedMatch> plans) {
    g_.trackDataChanges(true); // from here, merges mark what they change
    return planMatches(rule, window, plans, {});
}

size_t Runner::replanLacking(const Rule& rule, std::span<const Match> window,
                             std::span<PlannedMatch> plans, size_t from, size_t& replanned) {
    // The window's tracking goes on: what the replay checks (roots, the data of shifted
    // classes, the hashes added) covers every change since the window began, so also every
    // change since these plans are made.
    // Only the matches whose lacking type or attribute exists now: each is planned again
    // once per type or attribute it lacks (planning stops at the first), not after every
    // build in place (split-join's matches lack different sizes' types). A few are built in
    // place: planning them on one thread costs more than building them.
    constexpr size_t kFewest = 4;
    std::vector<uint32_t> lacking;
    for (size_t j = from; j < window.size(); ++j) {
        const TermPlan& p = plans[j].plan;
        if (!plans[j].ok && ((p.lackedType && g_.types.has(*p.lackedType)) ||
                             (p.lackedAttr && g_.hasAttr(*p.lackedAttr)))) {
            lacking.push_back(static_cast<uint32_t>(j));
        }
    }
    if (lacking.size() < kFewest) {
        return g_.types.size() + g_.numAttrs();
    }
    replanned += lacking.size();
    return planMatches(rule, window, plans, lacking);
}

} // namespace egopt::egraph
