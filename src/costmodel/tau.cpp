// Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties_x) (n0 - ties_y)) over all pairs;
// O(n^2), candidate lists are short.
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"

#include <cmath>

namespace egopt::costmodel {

double kendallTau(const std::vector<double>& predicted, const std::vector<double>& measured) {
    if (predicted.size() != measured.size()) {
        badInput("kendallTau: " + std::to_string(predicted.size()) + " predictions but " +
                 std::to_string(measured.size()) + " measurements");
    }
    double concordant = 0, discordant = 0, tiesX = 0, tiesY = 0, pairs = 0;
    for (size_t i = 0; i < predicted.size(); ++i) {
        for (size_t j = i + 1; j < predicted.size(); ++j) {
            double dx = predicted[i] - predicted[j];
            double dy = measured[i] - measured[j];
            pairs += 1;
            if (dx == 0 || dy == 0) {
                tiesX += dx == 0 ? 1 : 0;
                tiesY += dy == 0 ? 1 : 0;
            } else if ((dx > 0) == (dy > 0)) {
                concordant += 1;
            } else {
                discordant += 1;
            }
        }
    }
    double denom = std::sqrt((pairs - tiesX) * (pairs - tiesY));
    return denom > 0 ? (concordant - discordant) / denom : 0.0;
}

} // namespace egopt::costmodel
