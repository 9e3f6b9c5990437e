// The tuning search on synthetic objectives (no device): configurations respect the recorded
// constraints, the budget is respected, and the guided search finds a planted optimum with
// fewer measurements than random sampling needs.
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <tbb/task_arena.h>

using namespace egopt;
using namespace egopt::pipeline;

namespace {

// v1 divides N, v2 divides N / v1 (as split-join nests record them).
std::vector<extract::TuningVar> nestedSplits() {
    arith::Size n = arith::Size::var("N");
    arith::Size v1 = arith::Size::var("v__1");
    return {{"v__1", {n}}, {"v__2", {exactDiv(n, v1)}}};
}

// A smooth bowl in log2 space with its minimum at (v1, v2) = (64, 16).
double bowl(const arith::Bindings& v) {
    double a = std::log2(double(v.at("v__1"))) - 6, b = std::log2(double(v.at("v__2"))) - 4;
    return 1e-3 * (1 + a * a + b * b);
}

// v1 * v2 <= 1024, as a tile's local memory bounds the product of its sides.
bool tooLarge(const arith::Bindings& v) {
    return v.at("v__1") * v.at("v__2") > 1024;
}

// An objective whose configurations over tooLarge do not fit the device: measuring one fails,
// predicting one gives nothing, doesNotFit says so. Each batch measured is appended to `batches`.
Objective withFitLimit(const std::function<double(const arith::Bindings&)>& measured,
                       std::vector<std::vector<arith::Bindings>>& batches) {
    Objective o;
    o.measureMany = [measured, &batches](const std::vector<Objective::Config>& configs) {
        batches.emplace_back();
        std::vector<std::optional<double>> times;
        for (const auto& [c, v] : configs) {
            batches.back().push_back(v);
            times.push_back(tooLarge(v) ? std::nullopt : std::optional<double>(measured(v)));
        }
        return times;
    };
    o.predict = [](size_t, const arith::Bindings& v) -> std::optional<double> {
        return tooLarge(v) ? std::nullopt : std::optional<double>(3 * bowl(v));
    };
    o.doesNotFit = [](size_t, const arith::Bindings& v) { return tooLarge(v); };
    return o;
}

size_t unfitIn(const std::vector<std::vector<arith::Bindings>>& batches) {
    size_t n = 0;
    for (const auto& b : batches) {
        n += size_t(std::count_if(b.begin(), b.end(), tooLarge));
    }
    return n;
}

} // namespace

TEST_CASE("tuning spaces follow the divides constraints", "[pipeline]") {
    Space s(nestedSplits(), {{"N", 1024}});
    CHECK(s.domain(0, {}).size() == 11); // 1, 2, ..., 1024
    CHECK(s.domain(1, {{"v__1", 256}}) == std::vector<int64_t>{1, 2, 4});
    CHECK(s.valid({{"v__1", 256}, {"v__2", 4}}));
    CHECK(!s.valid({{"v__1", 256}, {"v__2", 8}}));
    CHECK(s.initial(64) == arith::Bindings{{"v__1", 64}, {"v__2", 16}});
    CHECK(s.repair({{"v__1", 512}, {"v__2", 64}}) == arith::Bindings{{"v__1", 512}, {"v__2", 2}});
    for (const auto& n : s.neighbours({{"v__1", 64}, {"v__2", 16}})) {
        CHECK(s.valid(n));
    }
    std::mt19937_64 rng(3);
    for (int i = 0; i < 100; ++i) {
        CHECK(s.valid(s.random(rng)));
    }
    CHECK(s.count(100000) == 66); // pairs (a, b) with a + b <= 10 in exponents
    // Sizes that are not powers of two: all divisors.
    CHECK(Space({{"v__1", {arith::Size::var("N")}}}, {{"N", 12}}).domain(0, {}) ==
          std::vector<int64_t>{1, 2, 3, 4, 6, 12});
}

TEST_CASE("both searches measure only valid configurations within the budget", "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 16}}), Space({}, {{"N", 1 << 16}})};
    Objective o;
    o.measure = [&](size_t c, const arith::Bindings& v) -> std::optional<double> {
        CHECK(spaces[c].valid(v));
        return c == 0 ? bowl(v) : 5e-3;
    };
    o.predict = o.measure;
    GuidedOptions g;
    g.budget = 10;
    TuneResult guided = tuneGuided(spaces, {0, 1}, o, g);
    CHECK(guided.used <= 10);
    TuneResult random = tuneRandom(spaces, o, 10, 1);
    CHECK(random.used == 10);
    REQUIRE(guided.best[0]);
    CHECK(spaces[0].valid(guided.trials[*guided.best[0]].values));
}

TEST_CASE("the guided search beats random sampling on a planted optimum", "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 20}})};
    Objective o;
    o.measure = [](size_t, const arith::Bindings& v) -> std::optional<double> { return bowl(v); };
    // A model that ranks correctly but is off by a factor (as analytic models are).
    o.predict = [](size_t, const arith::Bindings& v) -> std::optional<double> {
        return 3 * bowl(v);
    };
    GuidedOptions g;
    g.budget = 12;
    g.target = 1024; // start away from the optimum
    TuneResult guided = tuneGuided(spaces, {0}, o, g);
    REQUIRE(guided.best[0]);
    CHECK(*guided.trials[*guided.best[0]].seconds == Approx(1e-3));
    // Random sampling with the same budget, over 20 seeds: rarely reaches the optimum.
    int hits = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        TuneResult r = tuneRandom(spaces, o, 12, seed);
        hits += r.best[0] && *r.trials[*r.best[0]].seconds <= 1e-3 + 1e-12;
    }
    CHECK(hits < 10);
}

TEST_CASE("wide steps measure several neighbours together and reach the optimum in fewer "
          "rounds",
          "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 20}})};
    auto rounds = [&](size_t width, double& best) {
        size_t batches = 0;
        Objective o;
        o.measureMany = [&](const std::vector<Objective::Config>& configs) {
            ++batches;
            std::vector<std::optional<double>> times;
            for (const auto& [c, v] : configs) {
                CHECK(spaces[c].valid(v));
                times.push_back(bowl(v));
            }
            return times;
        };
        o.predict = [](size_t, const arith::Bindings& v) -> std::optional<double> {
            return 3 * bowl(v);
        };
        GuidedOptions g;
        g.budget = 24;
        g.target = 1024; // start away from the optimum
        g.stepWidth = width;
        TuneResult r = tuneGuided(spaces, {0}, o, g);
        REQUIRE(r.best[0]);
        best = *r.trials[*r.best[0]].seconds;
        CHECK(r.used <= 24);
        return batches;
    };
    double narrowBest = 0, wideBest = 0;
    size_t narrow = rounds(1, narrowBest), wide = rounds(4, wideBest);
    CHECK(narrowBest == Approx(1e-3));
    CHECK(wideBest == Approx(1e-3));
    CHECK(wide < narrow);
}

TEST_CASE("the search stops when asked", "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 10}})};
    int calls = 0;
    Objective o;
    o.measure = [&](size_t, const arith::Bindings& v) -> std::optional<double> {
        ++calls;
        return bowl(v);
    };
    o.stop = [&] { return calls >= 3; };
    GuidedOptions g;
    g.budget = 50;
    CHECK(tuneGuided(spaces, {0}, o, g).used == 3);
}

TEST_CASE("the model's descent starts where the device fits and follows a line", "[pipeline]") {
    // Three independent splits of N = 2^12; the model rules out every configuration whose
    // product exceeds 2^9 (registers spilled), so each variable's default, 64, does not fit;
    // the optimum (2, 16, 16) has its variables far apart.
    arith::Size n = arith::Size::var("N");
    Space s({{"v__1", {n}}, {"v__2", {n}}, {"v__3", {n}}}, {{"N", 1 << 12}});
    std::atomic<size_t> calls = 0; // the descent predicts a neighbourhood in parallel
    auto predict = [&](const arith::Bindings& v) -> std::optional<double> {
        ++calls;
        int64_t a = v.at("v__1"), b = v.at("v__2"), c = v.at("v__3");
        if (a * b * c > 512) {
            return std::nullopt;
        }
        double x = std::log2(double(a)) - 1, y = std::log2(double(b)) - 4,
               z = std::log2(double(c)) - 4;
        return 1e-3 * (1 + x * x + y * y + z * z);
    };
    auto [best, p] = modelDescent(s, predict, 40, 64);
    CHECK(calls <= 40);
    REQUIRE(p);
    CHECK(best == arith::Bindings{{"v__1", 2}, {"v__2", 16}, {"v__3", 16}});
    CHECK(*p == Approx(1e-3));
}

TEST_CASE("candidates predicted far slower are measured only when no other one measures",
          "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 10}}), Space({}, {{"N", 1 << 10}}),
                              Space({}, {{"N", 1 << 10}})};
    std::set<size_t> measured;
    Objective o;
    o.measure = [&](size_t c, const arith::Bindings& v) -> std::optional<double> {
        measured.insert(c);
        return c == 0 ? bowl(v) : c == 1 ? 2e-3 : 1.0;
    };
    // Candidate 2 is predicted 100x the best: over the default ratio of 16.
    o.predict = [](size_t c, const arith::Bindings& v) -> std::optional<double> {
        return c == 0 ? bowl(v) : c == 1 ? 2e-3 : 0.1;
    };
    GuidedOptions g;
    g.budget = 8;
    TuneResult r = tuneGuided(spaces, {0, 1, 2}, o, g);
    CHECK(measured == std::set<size_t>{0, 1});
    CHECK(r.leftOut == std::vector<size_t>{2});
    CHECK(!r.best[2]);
    // A budget of so many measurements per candidate sets the share of the one left out aside
    // for refinement: of 4, after round 0's two, the fastest candidate's moves take the rest.
    g.budget = 4;
    CHECK(tuneGuided(spaces, {0, 1, 2}, o, g).used == 4);
    g.budgetPerLeftOut = 3;
    TuneResult held = tuneGuided(spaces, {0, 1, 2}, o, g);
    CHECK(held.used == 4);
    for (size_t i = 2; i < held.trials.size(); ++i) {
        CHECK(held.trials[i].candidate == 0);
    }
    g.budgetPerLeftOut = 0;
    g.budget = 8;
    // With the ratio off, it is measured like the others.
    measured.clear();
    g.farRatio = 0;
    CHECK(tuneGuided(spaces, {0, 1, 2}, o, g).leftOut.empty());
    CHECK(measured.count(2) == 1);
    // When none of the near ones measures, the far one is measured after all.
    measured.clear();
    g.farRatio = 16;
    spaces.erase(spaces.begin() + 1); // candidates 0 (fails) and 1 (far: the old candidate 2)
    o.predict = [](size_t c, const arith::Bindings& v) -> std::optional<double> {
        return c == 0 ? bowl(v) : 0.1;
    };
    o.measure = [&](size_t c, const arith::Bindings&) -> std::optional<double> {
        measured.insert(c);
        return c == 0 ? std::nullopt : std::optional<double>(1.0);
    };
    TuneResult fallback = tuneGuided(spaces, {0, 1}, o, g);
    CHECK(measured == std::set<size_t>{0, 1});
    CHECK(fallback.leftOut.empty());
    CHECK(fallback.best[1]);
}

// A configuration that does not fit the device (rejected before launch: too much local memory)
// is never measured by a wide step, even when fewer neighbours fit than the step's width: the
// budget goes to configurations that run.
TEST_CASE("wide steps never measure configurations that do not fit the device", "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 20}})};
    std::vector<std::vector<arith::Bindings>> batches;
    Objective o = withFitLimit(bowl, batches);
    GuidedOptions g;
    g.budget = 40;
    g.target = 16;
    g.stepWidth = 8; // wider than the neighbours that fit
    TuneResult r = tuneGuided(spaces, {0}, o, g);
    CHECK(unfitIn(batches) == 0);
    REQUIRE(r.best[0]);
    CHECK(*r.trials[*r.best[0]].seconds == Approx(1e-3)); // (64, 16) fits: 1024
    o.doesNotFit = nullptr; // without the check, the wide steps fill up with unfit neighbours
    batches.clear();
    tuneGuided(spaces, {0}, o, g);
    CHECK(unfitIn(batches) > 0);
}

// A neighbour that does not fit is repaired by making another size one step smaller: from
// (64, 16) under v1 * v2 <= 1024, (128, 16) does not fit but (128, 8) does, and the first wide
// step measures it (a coordinate step alone cannot reach it in one move).
TEST_CASE("a wide step repairs a neighbour that does not fit with another size smaller",
          "[pipeline]") {
    std::vector<Space> spaces{Space(nestedSplits(), {{"N", 1 << 20}})};
    // Measured optimum at (128, 8); the model's at (64, 16), where the search starts.
    auto measured = [](const arith::Bindings& v) {
        double a = std::log2(double(v.at("v__1"))) - 7, b = std::log2(double(v.at("v__2"))) - 3;
        return 1e-3 * (1 + a * a + b * b);
    };
    std::vector<std::vector<arith::Bindings>> batches;
    Objective o = withFitLimit(measured, batches);
    GuidedOptions g;
    g.budget = 12;
    g.stepWidth = 8;
    TuneResult r = tuneGuided(spaces, {0}, o, g);
    REQUIRE(batches.size() >= 2);
    CHECK(batches[0] == std::vector<arith::Bindings>{{{"v__1", 64}, {"v__2", 16}}});
    arith::Bindings repaired{{"v__1", 128}, {"v__2", 8}};
    CHECK(std::count(batches[1].begin(), batches[1].end(), repaired) == 1);
    REQUIRE(r.best[0]);
    CHECK(r.trials[*r.best[0]].values == repaired);
}

// The seeds' descents predict their neighbourhoods on many threads through shared memos: the
// measured configurations are those of a run on one thread, over many candidates at once.
TEST_CASE("the guided search measures the same configurations on one thread and on many",
          "[pipeline]") {
    arith::Size n = arith::Size::var("N");
    arith::Size v1 = arith::Size::var("v__1");
    arith::Size v2 = arith::Size::var("v__2");
    std::vector<extract::TuningVar> vars{
        {"v__1", {n}}, {"v__2", {exactDiv(n, v1)}}, {"v__3", {exactDiv(n, v1 * v2)}}};
    std::vector<Space> spaces(12, Space(vars, {{"N", 1 << 24}}));
    std::vector<size_t> order(spaces.size());
    std::iota(order.begin(), order.end(), 0);
    auto time = [](size_t c, const arith::Bindings& v) {
        double a = std::log2(double(v.at("v__1"))) - double(c % 5) - 2;
        double b = std::log2(double(v.at("v__2"))) - 3, d = std::log2(double(v.at("v__3"))) - 1;
        return 1e-3 * (1 + 0.1 * double(c) + a * a + b * b + d * d);
    };
    auto run = [&] {
        Objective o;
        o.measureMany = [&](const std::vector<Objective::Config>& configs) {
            std::vector<std::optional<double>> times;
            for (const auto& [c, v] : configs) {
                times.push_back(time(c, v));
            }
            return times;
        };
        o.predict = [&](size_t c, const arith::Bindings& v) -> std::optional<double> {
            return 2 * time(c, v) + 1e-4 * double(v.at("v__3"));
        };
        GuidedOptions g;
        g.budget = 60;
        g.stepWidth = 4;
        TuneResult r = tuneGuided(spaces, order, o, g);
        std::vector<std::pair<size_t, arith::Bindings>> measured;
        for (const Trial& t : r.trials) {
            measured.emplace_back(t.candidate, t.values);
        }
        return measured;
    };
    std::vector<std::pair<size_t, arith::Bindings>> one;
    tbb::task_arena(1).execute([&] { one = run(); });
    for (int repeat = 0; repeat < 3; ++repeat) {
        CHECK(run() == one);
    }
}

// Sizes that pay only together: in log2 space a narrow valley along x + y = 8 (a taller block
// with a shorter slice), lowest at (64, 4). From (16, 16) every single move climbs out of the
// valley, so coordinate descent stops there; pair moves walk along it.
TEST_CASE("pair moves leave a coordinate minimum that is no minimum for pairs", "[pipeline]") {
    arith::Size n = arith::Size::var("N");
    std::vector<Space> spaces{Space({{"v__1", {n}}, {"v__2", {n}}}, {{"N", 1 << 12}})};
    auto valley = [](const arith::Bindings& v) {
        double x = std::log2(double(v.at("v__1"))), y = std::log2(double(v.at("v__2")));
        return 1e-3 * (1 + 4 * (x + y - 8) * (x + y - 8) + 0.1 * (x - y - 4) * (x - y - 4));
    };
    const arith::Bindings start{{"v__1", 16}, {"v__2", 16}};
    for (const auto& m : spaces[0].neighbours(start)) {
        CHECK(valley(m) > valley(start));
    }
    std::vector<arith::Bindings> pairs = spaces[0].pairNeighbours(start);
    CHECK(std::count(pairs.begin(), pairs.end(), arith::Bindings{{"v__1", 32}, {"v__2", 8}}) == 1);
    for (const auto& m : spaces[0].neighbours(start)) {
        CHECK(std::count(pairs.begin(), pairs.end(), m) == 0);
    }
    Objective o;
    o.measure = [&](size_t, const arith::Bindings& v) -> std::optional<double> {
        return valley(v);
    };
    o.predict = [&](size_t, const arith::Bindings& v) -> std::optional<double> {
        return valley(v);
    };
    GuidedOptions g;
    g.budget = 200;
    g.target = 16; // the model's descent starts and stays at (16, 16)
    TuneResult r = tuneGuided(spaces, {0}, o, g);
    REQUIRE(r.best[0]);
    CHECK(r.trials[*r.best[0]].values == arith::Bindings{{"v__1", 64}, {"v__2", 4}});
    CHECK(*r.trials[*r.best[0]].seconds == Approx(1e-3));
    CHECK(r.used < 60); // it ends once the optimum's pair moves are measured, budget left over
}
