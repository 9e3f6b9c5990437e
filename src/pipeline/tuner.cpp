// The tuning searches (tuner.hpp, docs/tuning.md): model-seeded successive halving with
// coordinate descent, and uniform random sampling as the baseline it is measured against.
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace egopt::pipeline {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::infinity();

// The budgeted, cached measuring of configurations shared by both searches.
class Runner {
public:
    Runner(const Objective& o, size_t budget, size_t candidates) : o_(o), budget_(budget) {
        result.best.resize(candidates);
    }
    bool exhausted() const { return result.used >= budget_ || (o_.stop && o_.stop()); }
    bool tried(size_t c, const arith::Bindings& v) const { return seen_.count({c, v}) > 0; }

    std::optional<double> measure(size_t c, const arith::Bindings& v) {
        seen_.insert({c, v});
        std::optional<double> s = o_.measure(c, v);
        result.trials.push_back({c, v, s});
        ++result.used;
        auto& best = result.best[c];
        if (s && (!best || *s < *result.trials[*best].seconds)) {
            best = result.trials.size() - 1;
        }
        return s;
    }

    TuneResult result;

private:
    const Objective& o_;
    size_t budget_;
    std::set<std::pair<size_t, arith::Bindings>> seen_;
};

// The model's prediction, memoized per configuration (it generates code each time).
class Predictor {
public:
    explicit Predictor(const Objective& o) : o_(o) {}
    double operator()(size_t c, const arith::Bindings& v) {
        auto key = std::make_pair(c, v);
        if (auto it = cache_.find(key); it != cache_.end()) {
            return it->second;
        }
        std::optional<double> p = o_.predict ? o_.predict(c, v) : std::nullopt;
        return cache_[key] = p.value_or(kUnknown);
    }
    size_t calls() const { return cache_.size(); }

private:
    const Objective& o_;
    std::map<std::pair<size_t, arith::Bindings>, double> cache_;
};

// Steepest descent on predictions from the default values, within `limit` predictions.
arith::Bindings modelSeed(const Space& space, size_t c, Predictor& predict, size_t limit,
                          int64_t target) {
    auto p = [&](const arith::Bindings& v) -> std::optional<double> {
        double t = predict(c, v);
        return t == kUnknown ? std::nullopt : std::optional<double>(t);
    };
    return modelDescent(space, p, limit, target).first;
}

struct Arm {
    size_t candidate = 0;
    arith::Bindings incumbent;
    double time = kUnknown;
    bool converged = false;
};

// One coordinate-descent step: the untried neighbour of the incumbent with the best prediction.
void step(Arm& arm, const Space& space, Runner& runner, Predictor& predict) {
    std::vector<std::pair<double, arith::Bindings>> options;
    for (auto& n : space.neighbours(arm.incumbent)) {
        if (!runner.tried(arm.candidate, n)) {
            options.emplace_back(predict(arm.candidate, n), std::move(n));
        }
    }
    if (options.empty()) {
        arm.converged = true;
        return;
    }
    auto it = std::min_element(options.begin(), options.end());
    std::optional<double> s = runner.measure(arm.candidate, it->second);
    if (s && *s < arm.time) {
        arm.time = *s;
        arm.incumbent = it->second;
    }
}

} // namespace

std::pair<arith::Bindings, std::optional<double>>
modelDescent(const Space& space,
             const std::function<std::optional<double>(const arith::Bindings&)>& predict,
             size_t limit, int64_t target) {
    auto at = [&](const arith::Bindings& v) { return predict(v).value_or(kUnknown); };
    arith::Bindings x = space.initial(target);
    double px = at(x);
    size_t used = 1;
    while (used < limit) {
        arith::Bindings next;
        double best = px;
        for (const auto& n : space.neighbours(x)) {
            if (used++ >= limit) {
                break;
            }
            if (double p = at(n); p < best) {
                best = p;
                next = n;
            }
        }
        if (next.empty()) {
            break;
        }
        x = next;
        px = best;
    }
    return {x, px == kUnknown ? std::nullopt : std::optional<double>(px)};
}

TuneResult tuneGuided(const std::vector<Space>& spaces, const std::vector<size_t>& order,
                      const Objective& objective, const GuidedOptions& options) {
    Runner runner(objective, options.budget, spaces.size());
    Predictor predict(objective);
    std::vector<Arm> arms;
    for (size_t c : order) {
        if (runner.exhausted()) {
            break;
        }
        arith::Bindings seed =
            modelSeed(spaces[c], c, predict, options.predictionsPerCandidate, options.target);
        std::optional<double> s = runner.measure(c, seed);
        if (s) {
            arms.push_back({c, seed, *s, spaces[c].numVars() == 0});
        }
    }
    // Successive halving: each round keeps the faster half and gives every survivor one step.
    size_t keep = arms.size();
    while (!runner.exhausted()) {
        std::stable_sort(arms.begin(), arms.end(),
                         [](const Arm& a, const Arm& b) { return a.time < b.time; });
        keep = std::max<size_t>(1, (keep + 1) / 2);
        bool stepped = false;
        for (size_t i = 0; i < std::min(keep, arms.size()) && !runner.exhausted(); ++i) {
            if (!arms[i].converged) {
                step(arms[i], spaces[arms[i].candidate], runner, predict);
                stepped = true;
            }
        }
        if (!stepped) {
            // The kept arms are at local minima: widen to the next unconverged arm, if any.
            auto open =
                std::find_if(arms.begin(), arms.end(), [](const Arm& a) { return !a.converged; });
            if (open == arms.end()) {
                break;
            }
            step(*open, spaces[open->candidate], runner, predict);
        }
    }
    return std::move(runner.result);
}

TuneResult tuneRandom(const std::vector<Space>& spaces, const Objective& objective, size_t budget,
                      uint64_t seed) {
    Runner runner(objective, budget, spaces.size());
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> pickCandidate(0, spaces.empty() ? 0 : spaces.size() - 1);
    while (!spaces.empty() && !runner.exhausted()) {
        size_t c = 0;
        arith::Bindings v;
        for (int attempt = 0; attempt < 50; ++attempt) {
            c = pickCandidate(rng);
            v = spaces[c].random(rng);
            if (!runner.tried(c, v)) {
                break;
            }
        }
        if (runner.tried(c, v)) {
            break; // (nearly) the whole space has been measured
        }
        runner.measure(c, v);
    }
    return std::move(runner.result);
}

} // namespace egopt::pipeline
