// The run's time budget as a deadline (docs/pipeline.md, "Time budget"): every stage ends by a
// share of `--time-budget`, device work that cannot finish in what is left is not started, and
// the wall time of each stage is kept for the report's breakdown.
//
//     Budget budget(20);                          // seconds; <= 0: unlimited
//     double left = budget.leftUntil(Stage::Tune); // seconds until tuning's share ends
//     StageClock clock;
//     { auto in = clock.enter(Stage::Validate); ... } // back to the stage before
#pragma once

#include "egopt/support/clock.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <string_view>

namespace egopt::pipeline {

// The stages of the breakdown, in pipeline order. Validation and real-size timing also happen
// during tuning (the most promising candidate is confirmed early) and count as themselves there.
enum class Stage : size_t { Load, Saturate, Extract, Explore, Tune, Validate, Time, Output };
inline constexpr size_t kStageCount = 8;
std::string_view stageName(Stage s);

// Wall time: a deadline `seconds` after `start`, shared out among the stages. Each stage may
// run until its share of the budget has passed (cumulative: a stage that ends early leaves its
// time to the next); Output's share leaves a reserve for the derivation and the files.
class Budget {
public:
    using Clock = std::chrono::steady_clock;
    explicit Budget(double seconds, Clock::time_point start = Clock::now());

    bool limited() const { return seconds_ > 0; }
    double seconds() const { return seconds_; }
    double elapsed() const;
    // Seconds until the end of `s`'s share (negative once past it; a huge number when the budget
    // is unlimited).
    double leftUntil(Stage s) const;
    // Seconds to the deadline itself.
    double left() const;
    // The share of the budget by whose end stage `s` must be done.
    static double shareEnd(Stage s);

private:
    Clock::time_point start_;
    double seconds_;
};

// The wall seconds spent in each stage. One stage runs at a time: entering one pauses the
// current one, which resumes when the returned scope ends.
class StageClock {
public:
    using Clock = std::chrono::steady_clock;
    class Scope {
    public:
        Scope(StageClock& clock, Stage previous) : clock_(&clock), previous_(previous) {}
        Scope(Scope&& o) noexcept : clock_(o.clock_), previous_(o.previous_) { o.clock_ = nullptr; }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
        Scope& operator=(Scope&&) = delete;
        ~Scope();

    private:
        StageClock* clock_;
        Stage previous_;
    };

    explicit StageClock(Stage first = Stage::Load, Clock::time_point start = Clock::now());
    [[nodiscard]] Scope enter(Stage s);
    // Moves seconds counted in one stage to another (extraction reports how much of its call
    // was exploration).
    void move(Stage from, Stage to, double seconds);
    Stage current() const { return current_; }
    // Seconds per stage, the running one up to now.
    std::array<double, kStageCount> seconds() const;

private:
    void switchTo(Stage s);
    std::array<double, kStageCount> seconds_{};
    Stage current_;
    Clock::time_point since_;
};

} // namespace egopt::pipeline
