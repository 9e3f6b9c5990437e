// Two saturations that must build the same e-graph: the same stop reason, the same e-graph after
// every iteration (ids included, as dumps), and per rule the same applications and new e-nodes,
// and where the comparison asks for them the same matches, skipped matches and bans.
#pragma once

#include "egopt/egraph/runner.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace egopt::test {

struct SameStats {
    bool matches = true;      // matches enumerated (a search that defers some counts fewer)
    bool skipsAndBans = true; // unchanged matches skipped, times banned
};

inline void checkSameRuns(const egraph::RunReport& expected,
                          const std::vector<std::string>& expectedGraphs,
                          const egraph::RunReport& actual,
                          const std::vector<std::string>& actualGraphs, SameStats what) {
    CHECK(actual.stop == expected.stop);
    REQUIRE(actualGraphs.size() == expectedGraphs.size());
    for (size_t i = 0; i < expectedGraphs.size(); ++i) {
        INFO("iteration " << i + 1);
        CHECK(actualGraphs[i] == expectedGraphs[i]);
    }
    for (size_t r = 0; r < expected.rules.size(); ++r) {
        const egraph::RuleStats &a = expected.rules[r], &b = actual.rules[r];
        INFO(a.name);
        if (what.matches) {
            CHECK(b.matches == a.matches);
        }
        CHECK(b.applications == a.applications);
        CHECK(b.newNodes == a.newNodes);
        if (what.skipsAndBans) {
            CHECK(b.unchangedSkipped == a.unchangedSkipped);
            CHECK(b.timesBanned == a.timesBanned);
        }
    }
}

} // namespace egopt::test
