// The model's descent (tuner.hpp, docs/tuning.md): steepest descent on the cost model's
// predictions from starting points at several scales, with parallel neighbourhoods and the
// result of a sequential descent. The guided tuner's seeds; the pipeline also ranks macro
// rules' replays by it.
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <tbb/parallel_for.h>

namespace egopt::pipeline {

namespace {

// The variable in which `to` differs from `from` and in which direction (+1 larger, -1
// smaller), if exactly the first differing variable in the space's order moved.
std::optional<std::pair<std::string, int>> moveOf(const Space& space, const arith::Bindings& from,
                                                  const arith::Bindings& to) {
    for (const auto& v : space.vars()) {
        int64_t a = from.at(v.name), b = to.at(v.name);
        if (a != b) {
            return std::make_pair(v.name, b > a ? 1 : -1);
        }
    }
    return std::nullopt;
}

// Budgeted predictions for one descent.
struct Predictions {
    const std::function<std::optional<double>(const arith::Bindings&)>& predict;
    size_t limit;
    size_t used = 0;
    bool left() const { return used < limit; }
    double at(const arith::Bindings& v) {
        ++used;
        return predict(v).value_or(kUnknownSeconds);
    }
    // The predictions of `vs` that a sequential run would make (as many as the limit leaves, in
    // order), made in parallel: each generates a kernel, and a descent's neighbourhood is
    // independent. Fewer than given when the limit ends it.
    std::vector<double> atAll(const std::vector<arith::Bindings>& vs) {
        size_t n = std::min(vs.size(), limit - std::min(limit, used));
        std::vector<double> out(n, kUnknownSeconds);
        tbb::parallel_for(size_t{0}, n,
                          [&](size_t i) { out[i] = predict(vs[i]).value_or(kUnknownSeconds); });
        used += n;
        return out;
    }
};

// Starting points at several scales: each variable the largest allowed value <= t, for t =
// target, target / 2, ..., 1. Tile sizes that are good together are often far apart in the
// space (a work-group side of 16 with blocks of 2), and at one scale everything may be too
// large for the device (registers spilled, local memory exceeded): the best-predicted start
// wins.
std::pair<arith::Bindings, double> bestStart(const Space& space, Predictions& p, int64_t target) {
    std::pair<arith::Bindings, double> best{space.initial(target), kUnknownSeconds};
    std::set<arith::Bindings> seen;
    std::vector<arith::Bindings> starts;
    for (int64_t t = target; t >= 1; t /= 2) {
        arith::Bindings x = space.initial(t);
        if (seen.insert(x).second) {
            starts.push_back(std::move(x));
        }
    }
    std::vector<double> predicted = p.atAll(starts);
    for (size_t i = 0; i < predicted.size(); ++i) {
        if (predicted[i] < best.second || i == 0) {
            best = {starts[i], predicted[i]};
        }
    }
    return best;
}

} // namespace

std::pair<arith::Bindings, std::optional<double>>
modelDescent(const Space& space,
             const std::function<std::optional<double>(const arith::Bindings&)>& predict,
             size_t limit, int64_t target) {
    Predictions p{predict, limit};
    auto [x, px] = bestStart(space, p, target);
    while (p.left()) {
        arith::Bindings next;
        double best = px;
        std::vector<arith::Bindings> around = space.neighbours(x);
        std::vector<double> predicted = p.atAll(around);
        for (size_t i = 0; i < predicted.size(); ++i) {
            if (predicted[i] < best) {
                best = predicted[i];
                next = around[i];
            }
        }
        if (next.empty()) {
            break;
        }
        // Keep moving the same variable the same way while it improves (one prediction a
        // step instead of a whole neighbourhood).
        for (auto move = moveOf(space, x, next); move && p.left();) {
            std::vector<arith::Bindings> around = space.neighbours(next);
            auto further = std::find_if(around.begin(), around.end(), [&](const auto& n) {
                return moveOf(space, next, n) == move;
            });
            if (further == around.end()) {
                break;
            }
            double pf = p.at(*further);
            if (pf >= best) {
                break;
            }
            best = pf;
            next = *further;
        }
        x = next;
        px = best;
    }
    return {x, px == kUnknownSeconds ? std::nullopt : std::optional<double>(px)};
}

} // namespace egopt::pipeline
