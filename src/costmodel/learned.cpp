// The learned model: log(seconds) = bias + w . log(1 + features), fitted by ridge regression on
// standardised columns (so the penalty treats features of different scales alike).
#include "detail.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <cmath>

namespace egopt::costmodel {

namespace {

double featureValue(const KernelFeatures& k, const std::string& name) {
    const auto& names = featureNames();
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
        badInput("learned model: unknown feature '" + name + "'");
    }
    return k.values()[static_cast<size_t>(it - names.begin())];
}

// Solves A x = b (A symmetric positive definite after the ridge term) by Gaussian elimination
// with partial pivoting.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
    size_t n = b.size();
    for (size_t c = 0; c < n; ++c) {
        size_t piv = c;
        for (size_t r = c + 1; r < n; ++r) {
            piv = std::abs(a[r][c]) > std::abs(a[piv][c]) ? r : piv;
        }
        std::swap(a[c], a[piv]);
        std::swap(b[c], b[piv]);
        if (std::abs(a[c][c]) < 1e-300) {
            continue; // a zero column: its weight stays 0
        }
        for (size_t r = c + 1; r < n; ++r) {
            double f = a[r][c] / a[c][c];
            for (size_t k = c; k < n; ++k) {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(n, 0.0);
    for (size_t c = n; c-- > 0;) {
        if (std::abs(a[c][c]) < 1e-300) {
            continue;
        }
        double s = b[c];
        for (size_t k = c + 1; k < n; ++k) {
            s -= a[c][k] * x[k];
        }
        x[c] = s / a[c][c];
    }
    return x;
}

} // namespace

DeviceProfile LearnedModel::profile(const runtime::Device& device) const {
    if (!classes.empty()) {
        return detail::profileFrom(classes, device);
    }
    // The shipped analytic calibration gives the device constants when the file has none.
    try {
        return loadModel("analytic")->profile(device);
    } catch (const Error&) {
        return detail::profileFrom({}, device);
    }
}

double LearnedModel::predictSeconds(const Features& f, const DeviceProfile&) const {
    double y = bias;
    for (size_t i = 0; i < features.size(); ++i) {
        y += weights.at(i) * std::log1p(std::max(0.0, featureValue(f.total, features[i])));
    }
    return std::exp(y);
}

LearnedModel fitLearned(const std::vector<Record>& records, const FitOptions& options) {
    LearnedModel m;
    m.features = options.features.empty() ? featureNames() : options.features;
    m.ridge = options.ridge;
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (const auto& r : records) {
        if (r.measuredSeconds > 0) {
            std::vector<double> row;
            for (const auto& name : m.features) {
                row.push_back(std::log1p(std::max(0.0, featureValue(r.features.total, name))));
            }
            x.push_back(std::move(row));
            y.push_back(std::log(r.measuredSeconds));
        }
    }
    if (x.size() < 2) {
        badInput("fit: need at least 2 records with a positive measured time, got " +
                 std::to_string(x.size()));
    }
    size_t n = x.size(), d = m.features.size();
    std::vector<double> mean(d, 0), sd(d, 0);
    double ymean = 0;
    for (size_t i = 0; i < n; ++i) {
        ymean += y[i] / static_cast<double>(n);
        for (size_t j = 0; j < d; ++j) {
            mean[j] += x[i][j] / static_cast<double>(n);
        }
    }
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < d; ++j) {
            sd[j] += (x[i][j] - mean[j]) * (x[i][j] - mean[j]) / static_cast<double>(n);
        }
    }
    for (double& s : sd) {
        s = std::sqrt(s);
    }
    // Normal equations on standardised columns: (Z'Z + ridge n I) w = Z'(y - mean y).
    std::vector<std::vector<double>> a(d, std::vector<double>(d, 0));
    std::vector<double> b(d, 0);
    auto z = [&](size_t i, size_t j) { return sd[j] > 0 ? (x[i][j] - mean[j]) / sd[j] : 0.0; };
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < d; ++j) {
            b[j] += z(i, j) * (y[i] - ymean);
            for (size_t k = 0; k < d; ++k) {
                a[j][k] += z(i, j) * z(i, k);
            }
        }
    }
    for (size_t j = 0; j < d; ++j) {
        a[j][j] += options.ridge * static_cast<double>(n);
    }
    std::vector<double> w = solve(a, b);
    m.bias = ymean;
    for (size_t j = 0; j < d; ++j) {
        double wj = sd[j] > 0 ? w[j] / sd[j] : 0.0;
        m.weights.push_back(wj);
        m.bias -= wj * mean[j];
    }
    m.trainedOn = n;
    return m;
}

} // namespace egopt::costmodel
