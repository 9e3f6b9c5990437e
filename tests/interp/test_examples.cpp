// The interpreter on every example program against independent C++ reference implementations.
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using egopt::testenv::kExamples;

using egopt::interp::Value;

namespace {

struct Run {
    std::vector<std::vector<double>> inputs; // flattened, per parameter
    std::vector<double> result;              // flattened
};

Run run(const std::string& name, const egopt::arith::Bindings& sizes, uint64_t seed = 7) {
    egopt::lift::Program p = egopt::lift::parseFile(kExamples + name + ".lift");
    egopt::lift::TypeInfo info = egopt::lift::typecheck(p);
    std::vector<Value> args = egopt::interp::randomInputs(p, sizes, seed);
    egopt::interp::Interpreter interp(p, info, sizes);
    Run r;
    for (const Value& a : args) {
        r.inputs.emplace_back();
        egopt::interp::flattenScalars(a, r.inputs.back());
    }
    egopt::interp::flattenScalars(interp.run(args), r.result);
    return r;
}

// |got - want| <= 1e-4 * (|want| + scale): `scale` is the magnitude of the terms that were
// summed, so reassociated reductions with cancellation are judged fairly.
void expectClose(const std::vector<double>& got, const std::vector<double>& want,
                 const std::vector<double>& scale = {}) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        double s = scale.empty() ? 0.0 : scale[i];
        INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
        CHECK(std::abs(got[i] - want[i]) <= 1e-4 * (std::abs(want[i]) + s) + 1e-30);
    }
}

} // namespace

TEST_CASE("scal, saxpy and asum match references", "[interp]") {
    Run s = run("scal", {{"N", 1000}});
    std::vector<double> want;
    for (double x : s.inputs[0]) {
        want.push_back(s.inputs[1][0] * x);
    }
    expectClose(s.result, want);

    Run a = run("saxpy", {{"N", 777}});
    want.clear();
    for (size_t i = 0; i < a.inputs[0].size(); ++i) {
        want.push_back(a.inputs[2][0] * a.inputs[0][i] + a.inputs[1][i]);
    }
    expectClose(a.result, want);

    Run asum = run("asum", {{"N", 4096}});
    double sum = 0;
    for (double x : asum.inputs[0]) {
        sum += std::abs(x);
    }
    expectClose(asum.result, {sum});
}

TEST_CASE("dot and the hand-lowered partial dot match references", "[interp]") {
    Run d = run("dot", {{"N", 3000}});
    double sum = 0, mag = 0;
    for (size_t i = 0; i < d.inputs[0].size(); ++i) {
        sum += d.inputs[0][i] * d.inputs[1][i];
        mag += std::abs(d.inputs[0][i] * d.inputs[1][i]);
    }
    expectClose(d.result, {sum}, {mag});

    Run p = run("lowlevel/partial_dot", {{"N", 512}});
    std::vector<double> want(4, 0.0), scale(4, 0.0);
    for (size_t i = 0; i < 512; ++i) {
        want[i / 128] += p.inputs[0][i] * p.inputs[1][i];
        scale[i / 128] += std::abs(p.inputs[0][i] * p.inputs[1][i]);
    }
    expectClose(p.result, want, scale);
}

TEST_CASE("asum_gpu reads with stride 128 and sums per thread", "[interp]") {
    const size_t n = 2 * 262144;
    Run r = run("lowlevel/asum_gpu", {{"N", static_cast<int64_t>(n)}});
    std::vector<double> want;
    for (size_t group = 0; group < 2; ++group) {
        for (size_t thread = 0; thread < 128; ++thread) {
            double s = 0;
            for (size_t j = 0; j < 2048; ++j) {
                s += std::abs(r.inputs[0][group * 262144 + thread + 128 * j]);
            }
            want.push_back(s);
        }
    }
    expectClose(r.result, want);
}

TEST_CASE("gemv, gesummv and mm match references", "[interp]") {
    const size_t m = 7, n = 5;
    Run g = run("gemv", {{"M", m}, {"N", n}});
    const auto &a = g.inputs[0], &x = g.inputs[1], &y = g.inputs[2];
    double alpha = g.inputs[3][0], beta = g.inputs[4][0];
    std::vector<double> want, scale;
    for (size_t i = 0; i < m; ++i) {
        double s = 0, mag = 0;
        for (size_t j = 0; j < n; ++j) {
            s += a[i * n + j] * x[j];
            mag += std::abs(alpha * a[i * n + j] * x[j]);
        }
        want.push_back(alpha * s + beta * y[i]);
        scale.push_back(mag);
    }
    expectClose(g.result, want, scale);

    Run s = run("gesummv", {{"N", 6}, {"K", 4}});
    want.clear();
    scale.clear();
    for (size_t i = 0; i < 6; ++i) {
        double ax = 0, bx = 0, mag = 0;
        for (size_t k = 0; k < 4; ++k) {
            ax += s.inputs[0][i * 4 + k] * s.inputs[2][k];
            bx += s.inputs[1][i * 4 + k] * s.inputs[2][k];
            mag += std::abs(s.inputs[0][i * 4 + k] * s.inputs[2][k]) +
                   std::abs(s.inputs[1][i * 4 + k] * s.inputs[2][k]);
        }
        want.push_back(s.inputs[3][0] * ax + s.inputs[4][0] * bx);
        scale.push_back(mag);
    }
    expectClose(s.result, want, scale);

    for (const char* name : {"mm", "lowlevel/mm_funcall"}) {
        INFO(name);
        const size_t M = 6, K = 5, N = 4;
        Run r = run(name, {{"M", M}, {"K", K}, {"N", N}});
        want.clear();
        scale.clear();
        for (size_t i = 0; i < M; ++i) {
            for (size_t j = 0; j < N; ++j) {
                double c = 0, mag = 0;
                for (size_t k = 0; k < K; ++k) {
                    c += r.inputs[0][i * K + k] * r.inputs[1][k * N + j];
                    mag += std::abs(r.inputs[0][i * K + k] * r.inputs[1][k * N + j]);
                }
                want.push_back(c);
                scale.push_back(mag);
            }
        }
        expectClose(r.result, want, scale);
    }
}

TEST_CASE("jacobi3 clamps at the borders", "[interp]") {
    Run r = run("jacobi3", {{"N", 50}});
    const auto& x = r.inputs[0];
    std::vector<double> want;
    for (size_t i = 0; i < 50; ++i) {
        double l = x[i == 0 ? 0 : i - 1], c = x[i], rr = x[i == 49 ? 49 : i + 1];
        want.push_back(0.25 * l + 0.5 * c + 0.25 * rr);
    }
    expectClose(r.result, want);
}

TEST_CASE("blackscholes matches a C++ implementation", "[interp]") {
    Run r = run("blackscholes", {{"N", 64}});
    auto cnd = [](float d) {
        float k = 1.0f / (1.0f + 0.2316419f * std::fabs(d));
        float w =
            1.0f -
            0.3989422804f * std::exp(-0.5f * d * d) * k *
                (0.319381530f +
                 k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
        return d < 0 ? 1.0f - w : w;
    };
    std::vector<double> want;
    for (double in : r.inputs[0]) {
        float x = static_cast<float>(in);
        float S = 10.0f * x + 100.0f * (1.0f - x), K = 10.0f * x + 100.0f * (1.0f - x);
        float T = 1.0f * x + 10.0f * (1.0f - x), R = 0.01f * x + 0.05f * (1.0f - x);
        float V = 0.01f * x + 0.10f * (1.0f - x);
        float d1 = (std::log(S / K) + (R + 0.5f * V * V) * T) / (V * std::sqrt(T));
        float d2 = d1 - V * std::sqrt(T);
        float c1 = cnd(d1), c2 = cnd(d2), disc = std::exp(-R * T);
        want.push_back(S * c1 - K * disc * c2);
        want.push_back(K * disc * (1.0f - c2) - S * (1.0f - c1));
    }
    expectClose(r.result, want, std::vector<double>(want.size(), 100.0));
}

TEST_CASE("nbody matches a C++ implementation", "[interp]") {
    const size_t n = 16;
    Run r = run("nbody", {{"N", n}});
    const std::vector<double> pos = r.inputs[0];
    double eps2 = r.inputs[1][0] * r.inputs[1][0] + 0.01; // keep r2 positive
    r = [&] {
        egopt::lift::Program p = egopt::lift::parseFile(kExamples + "nbody.lift");
        auto info = egopt::lift::typecheck(p);
        egopt::arith::Bindings sizes{{"N", static_cast<int64_t>(n)}};
        auto args = egopt::interp::randomInputs(p, sizes, 7);
        args[1] = Value::ofFloat(static_cast<float>(eps2));
        Run out;
        out.inputs = {pos, {eps2}};
        egopt::interp::flattenScalars(egopt::interp::Interpreter(p, info, sizes).run(args),
                                      out.result);
        return out;
    }();
    std::vector<double> want, scale;
    for (size_t i = 0; i < n; ++i) {
        double acc[3] = {0, 0, 0}, mag = 0;
        for (size_t j = 0; j < n; ++j) {
            double d[3];
            for (int c = 0; c < 3; ++c) {
                d[c] = pos[j * 4 + c] - pos[i * 4 + c];
            }
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            double inv = 1.0 / std::sqrt(r2);
            double s = pos[j * 4 + 3] * inv * inv * inv;
            for (int c = 0; c < 3; ++c) {
                acc[c] += s * d[c];
                mag += std::abs(s * d[c]);
            }
        }
        for (int c = 0; c < 3; ++c) {
            want.push_back(acc[c]);
            scale.push_back(mag);
        }
        want.push_back(0.0);
        scale.push_back(0.0);
    }
    expectClose(r.result, want, scale);
}

TEST_CASE("copy_vec4 and transpose move data only", "[interp]") {
    Run c = run("lowlevel/copy_vec4", {{"N", 64}});
    CHECK(c.result == c.inputs[0]);
    Run t = run("lowlevel/transpose", {{"M", 3}, {"N", 5}});
    std::vector<double> want;
    for (size_t j = 0; j < 3; ++j) {
        for (size_t i = 0; i < 5; ++i) {
            want.push_back(t.inputs[0][i * 3 + j]);
        }
    }
    CHECK(t.result == want);
}

TEST_CASE("random floats are the numbers std::uniform_real_distribution(-1, 1) draws", "[interp]") {
    std::mt19937_64 mine(11), theirs(11);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    int differ = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        double a = egopt::interp::uniformMinusOneToOne(mine);
        double b = uniform(theirs);
        if (a != b && differ++ == 0) {
            INFO("draw " << i << ": " << a << " != " << b);
            CHECK(a == b);
        }
    }
    CHECK(differ == 0);
}
