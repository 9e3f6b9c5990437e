// Calibration of the analytic model's constants from records (docs/cost-models.md): coordinate
// search with multiplicative steps, so constants spanning orders of magnitude move alike.
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <cmath>

namespace egopt::costmodel {

namespace {

constexpr double kRange = 100;

double logError(const std::vector<Record>& records, const DeviceProfile& p) {
    AnalyticModel m({});
    double sum = 0;
    for (const auto& r : records) {
        double e = std::log(m.predictSeconds(r.features, p) / r.measuredSeconds);
        sum += e * e;
    }
    return sum / static_cast<double>(records.size());
}

} // namespace

DeviceProfile calibrateAnalytic(const std::vector<Record>& records, DeviceProfile start) {
    std::vector<Record> usable;
    for (const auto& r : records) {
        if (r.measuredSeconds > 0) {
            usable.push_back(r);
        }
    }
    if (usable.empty()) {
        badInput("calibrate: no record with a positive measured time");
    }
    std::vector<double DeviceProfile::*> params{
        &DeviceProfile::globalBandwidth,    &DeviceProfile::stridedPenalty,
        &DeviceProfile::localBandwidth,     &DeviceProfile::flopsPerCuPerCycle,
        &DeviceProfile::stmtsPerCuPerCycle, &DeviceProfile::launchOverhead,
        &DeviceProfile::groupOverhead,      &DeviceProfile::barrierCost};
    DeviceProfile best = start;
    double bestErr = logError(usable, best);
    for (double step : {4.0, 2.0, 1.41, 1.19, 1.09}) {
        for (int round = 0; round < 20; ++round) {
            bool improved = false;
            for (auto field : params) {
                for (double f : {step, 1.0 / step}) {
                    DeviceProfile trial = best;
                    trial.*field *= f;
                    // Within two orders of magnitude of the start: flat directions (a term
                    // that never dominates) must not drift to absurd values.
                    trial.*field =
                        std::clamp(trial.*field, start.*field / kRange, start.*field * kRange);
                    trial.stridedPenalty = std::max(1.0, trial.stridedPenalty);
                    double err = logError(usable, trial);
                    if (err < bestErr - 1e-12) {
                        best = trial;
                        bestErr = err;
                        improved = true;
                    }
                }
            }
            if (!improved) {
                break;
            }
        }
    }
    return best;
}

} // namespace egopt::costmodel
