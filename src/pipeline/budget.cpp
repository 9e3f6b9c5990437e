// The time budget as a deadline and the per-stage clock (budget.hpp).
#include "egopt/pipeline/budget.hpp"

#include <algorithm>

namespace egopt::pipeline {

std::string_view stageName(Stage s) {
    constexpr std::array<std::string_view, kStageCount> names{
        "load", "saturate", "extract", "explore", "tune", "validate", "time", "output"};
    return names.at(static_cast<size_t>(s));
}

Budget::Budget(double seconds, Clock::time_point start) : start_(start), seconds_(seconds) {}

double Budget::elapsed() const {
    return secondsSince(start_);
}

double Budget::shareEnd(Stage s) {
    // Saturation and extraction are cheap to cut short; measurements are what the run is for,
    // so tuning gets the largest window, and confirmation keeps a quarter for the candidates
    // tuning found (the most promising one is validated as soon as it is measured). The last
    // 3% are left for the derivation and writing the outputs.
    switch (s) {
    case Stage::Load:
    case Stage::Saturate:
        return 0.20;
    case Stage::Extract:
        return 0.40;
    case Stage::Explore:
        return 0.45;
    case Stage::Tune:
        return 0.72;
    case Stage::Validate:
    case Stage::Time:
        return 0.97;
    case Stage::Output:
        break;
    }
    return 1.0;
}

double Budget::leftUntil(Stage s) const {
    if (!limited()) {
        return 1e30;
    }
    return shareEnd(s) * seconds_ - elapsed();
}

double Budget::left() const {
    return limited() ? seconds_ - elapsed() : 1e30;
}

StageClock::Scope::~Scope() {
    if (clock_) {
        clock_->switchTo(previous_);
    }
}

StageClock::StageClock(Stage first, Clock::time_point start) : current_(first), since_(start) {}

StageClock::Scope StageClock::enter(Stage s) {
    Stage previous = current_;
    switchTo(s);
    return Scope(*this, previous);
}

void StageClock::switchTo(Stage s) {
    Clock::time_point now = Clock::now();
    seconds_.at(static_cast<size_t>(current_)) +=
        std::chrono::duration<double>(now - since_).count();
    since_ = now;
    current_ = s;
}

void StageClock::move(Stage from, Stage to, double seconds) {
    switchTo(current_); // count the running stage up to now
    double& f = seconds_.at(static_cast<size_t>(from));
    double moved = std::clamp(seconds, 0.0, f);
    f -= moved;
    seconds_.at(static_cast<size_t>(to)) += moved;
}

std::array<double, kStageCount> StageClock::seconds() const {
    std::array<double, kStageCount> out = seconds_;
    out.at(static_cast<size_t>(current_)) += secondsSince(since_);
    return out;
}

} // namespace egopt::pipeline
