// Host references for the example programs timed by bench/egopt_bench. Each follows its
// examples/*.lift program literally (parameter order, user functions) in double precision.
#include "egopt_refs.hpp"

#include "blas_rows.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace egopt::bench {

namespace {

size_t sizeOf(const SizeMap& sizes, const char* name) {
    return static_cast<size_t>(sizes.at(name));
}

double in(size_t param, size_t i) {
    return patternValue(i, paramSeed(param));
}

double scal(const SizeMap&, size_t i) {
    return scalarValue(1) * in(0, i);
}

double asum(const SizeMap& s, size_t) {
    double sum = 0;
    for (size_t i = 0; i < sizeOf(s, "N"); ++i) {
        sum += std::abs(in(0, i));
    }
    return sum;
}

double dot(const SizeMap& s, size_t) {
    double sum = 0;
    for (size_t i = 0; i < sizeOf(s, "N"); ++i) {
        sum += in(0, i) * in(1, i);
    }
    return sum;
}

// Row `row` of the matrix parameter `param` (row-major, `cols` wide) times vector parameter `x`.
double rowTimes(size_t param, size_t row, size_t cols, size_t x) {
    double sum = 0;
    for (size_t k = 0; k < cols; ++k) {
        sum += in(param, row * cols + k) * in(x, k);
    }
    return sum;
}

// (a, x, y, alpha, beta) => alpha * A x + beta * y, A: M x N.
double gemv(const SizeMap& s, size_t i) {
    return scalarValue(3) * rowTimes(0, i, sizeOf(s, "N"), 1) + scalarValue(4) * in(2, i);
}

// (a, b, x, alpha, beta) => alpha * A x + beta * B x, A and B: N x K.
double gesummv(const SizeMap& s, size_t i) {
    const size_t k = sizeOf(s, "K");
    return scalarValue(3) * rowTimes(0, i, k, 2) + scalarValue(4) * rowTimes(1, i, k, 2);
}

// (a, b) => A B, A: M x K, B: K x N, row-major.
double mm(const SizeMap& s, size_t i) {
    const size_t n = sizeOf(s, "N");
    const size_t k = sizeOf(s, "K");
    const size_t row = i / n;
    const size_t col = i % n;
    double sum = 0;
    for (size_t j = 0; j < k; ++j) {
        sum += in(0, row * k + j) * in(1, j * n + col);
    }
    return sum;
}

double cumulativeNormal(double d) {
    const double k = 1.0 / (1.0 + 0.2316419 * std::abs(d));
    const double w =
        1.0 - 0.3989422804 * std::exp(-0.5 * d * d) * k *
                  (0.319381530 +
                   k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    return d < 0 ? 1.0 - w : w;
}

// priceOption of examples/blackscholes.lift; output 2e is the call, 2e + 1 the put price.
double blackscholes(const SizeMap&, size_t i) {
    const double r = in(0, i / 2);
    const double S = 10.0 * r + 100.0 * (1.0 - r);
    const double K = 10.0 * r + 100.0 * (1.0 - r);
    const double T = 1.0 * r + 10.0 * (1.0 - r);
    const double R = 0.01 * r + 0.05 * (1.0 - r);
    const double V = 0.01 * r + 0.10 * (1.0 - r);
    const double sqrtT = std::sqrt(T);
    const double d1 = (std::log(S / K) + (R + 0.5 * V * V) * T) / (V * sqrtT);
    const double d2 = d1 - V * sqrtT;
    const double c1 = cumulativeNormal(d1);
    const double c2 = cumulativeNormal(d2);
    const double disc = std::exp(-R * T);
    return i % 2 == 0 ? S * c1 - K * disc * c2 : K * disc * (1.0 - c2) - S * (1.0 - c1);
}

// Component c of body b's acceleration (accel of examples/nbody.lift summed over all bodies).
double nbody(const SizeMap& s, size_t i) {
    const size_t body = i / 4;
    const size_t c = i % 4;
    if (c == 3) {
        return 0;
    }
    const double eps2 = scalarValue(1);
    double sum = 0;
    for (size_t j = 0; j < sizeOf(s, "N"); ++j) {
        double d[3];
        for (size_t x = 0; x < 3; ++x) {
            d[x] = in(0, 4 * j + x) - in(0, 4 * body + x);
        }
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        const double inv = 1.0 / std::sqrt(r2);
        sum += in(0, 4 * j + 3) * inv * inv * inv * d[c];
    }
    return sum;
}

// avg3 over the clamped neighbourhood.
double jacobi3(const SizeMap& s, size_t i) {
    const size_t last = sizeOf(s, "N") - 1;
    return 0.25 * in(0, i == 0 ? 0 : i - 1) + 0.5 * in(0, i) + 0.25 * in(0, std::min(i + 1, last));
}

} // namespace

unsigned paramSeed(size_t param) {
    return static_cast<unsigned>(param) + 1;
}

float scalarValue(size_t param) {
    // Distinct per parameter so that swapped scalars (alpha, beta) show in the check.
    return 1.5f - 0.25f * static_cast<float>(param);
}

const ProgramRef* findReference(const std::string& program) {
    // Sums of up to 16M (asum, dot) or 16K (nbody) terms in float: looser tolerance.
    static const std::map<std::string, ProgramRef> refs = {{"scal", {1e-3, scal}},
                                                           {"asum", {1e-2, asum}},
                                                           {"dot", {1e-2, dot}},
                                                           {"gemv", {1e-3, gemv}},
                                                           {"gesummv", {1e-3, gesummv}},
                                                           {"mm", {1e-3, mm}},
                                                           {"blackscholes", {1e-3, blackscholes}},
                                                           {"nbody", {1e-2, nbody}},
                                                           {"jacobi3", {1e-3, jacobi3}}};
    auto it = refs.find(program);
    return it == refs.end() ? nullptr : &it->second;
}

std::string sampledCheck(runtime::Session& session, const runtime::Buffer& output,
                         size_t outputFloats, const ProgramRef& ref, const SizeMap& sizes,
                         size_t samples, bool& ok) {
    std::vector<float> got = session.downloadValues<float>(output);
    got.resize(std::min(got.size(), outputFloats));
    const size_t step = std::max<size_t>(1, got.size() / samples);
    std::vector<size_t> indices;
    for (size_t i = 0; i < got.size(); i += step) {
        indices.push_back(i);
    }
    if (!got.empty() && indices.back() != got.size() - 1) {
        indices.push_back(got.size() - 1);
    }
    ok = true;
    for (size_t i : indices) {
        const double want = ref.value(sizes, i);
        if (!(std::abs(got[i] - want) <= ref.tolerance * std::max(1.0, std::abs(want)))) {
            ok = false;
            std::ostringstream text;
            text << "FAIL at output " << i << ": got " << got[i] << ", want " << want;
            return text.str();
        }
    }
    return "ok (" + std::to_string(indices.size()) + " of " + std::to_string(got.size()) +
           " outputs)";
}

} // namespace egopt::bench
