// The tuning searches (tuner.hpp, docs/tuning.md): model-seeded successive halving with
// coordinate descent, and uniform random sampling as the baseline it is measured against.
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tbb/parallel_for.h>
#include <utility>

namespace egopt::pipeline {

namespace {

// The budgeted, cached measuring of configurations shared by both searches.
class Runner {
public:
    Runner(const Objective& o, size_t budget, size_t candidates) : o_(o), budget_(budget) {
        result.best.resize(candidates);
    }
    bool exhausted() const { return result.used >= budget_ || (o_.stop && o_.stop()); }
    // Sets `n` measurements of the budget aside (reserve) or gives them back (release).
    void reserve(size_t n) {
        reserved_ = std::min(n, budget_);
        budget_ -= reserved_;
    }
    void release() { budget_ += std::exchange(reserved_, 0); }
    bool tried(size_t c, const arith::Bindings& v) const { return seen_.count({c, v}) > 0; }

    std::optional<double> measure(size_t c, const arith::Bindings& v) {
        seen_.insert({c, v});
        if (!o_.measure) {
            std::vector<std::optional<double>> times =
                measure(std::vector<Objective::Config>{{c, v}});
            return times.empty() ? std::nullopt : times.front();
        }
        std::optional<double> s = o_.measure(c, v);
        record({c, v}, s);
        return s;
    }

    // Measures independent configurations, as many as the budget allows in the order given:
    // together through Objective::measureMany, else one by one. Their times, in that order
    // (fewer than given when the budget or a stop ends it).
    std::vector<std::optional<double>> measure(const std::vector<Objective::Config>& configs) {
        std::vector<Objective::Config> taken(
            configs.begin(),
            configs.begin() +
                long(std::min(configs.size(), budget_ - std::min(budget_, result.used))));
        std::vector<std::optional<double>> times;
        if (!o_.measureMany) {
            for (const auto& [c, v] : taken) {
                if (exhausted()) {
                    break;
                }
                times.push_back(measure(c, v));
            }
            return times;
        }
        if (taken.empty() || exhausted()) {
            return times;
        }
        times = o_.measureMany(taken);
        times.resize(std::min(times.size(), taken.size()));
        for (size_t i = 0; i < times.size(); ++i) {
            seen_.insert(taken[i]);
            record(taken[i], times.at(i));
        }
        return times;
    }

    TuneResult result;

private:
    void record(const Objective::Config& config, std::optional<double> s) {
        result.trials.push_back({config.first, config.second, s});
        ++result.used;
        auto& best = result.best[config.first];
        if (s && (!best || *s < *result.trials[*best].seconds)) {
            best = result.trials.size() - 1;
        }
    }

    const Objective& o_;
    size_t budget_;
    size_t reserved_ = 0;
    std::set<std::pair<size_t, arith::Bindings>> seen_;
};

// The model's prediction, memoized per configuration (it generates code each time). Safe to
// call from several threads: a model descent predicts a neighbourhood in parallel through it.
class Predictor {
public:
    explicit Predictor(const Objective& o) : o_(o) {}
    Predictor(const Predictor& other) : o_(other.o_), cache_(other.cache_) {}
    double operator()(size_t c, const arith::Bindings& v) {
        auto key = std::make_pair(c, v);
        {
            std::lock_guard lock(mutex_);
            if (auto it = cache_.find(key); it != cache_.end()) {
                return it->second;
            }
        }
        double p = (o_.predict ? o_.predict(c, v) : std::nullopt).value_or(kUnknownSeconds);
        std::lock_guard lock(mutex_);
        cache_.emplace(std::move(key), p);
        return p;
    }
    // Predicts the configurations not memoized yet in parallel (each generates a kernel), so
    // that a step's neighbours cost one generation's time on a many-core host.
    void prefetch(const std::vector<Objective::Config>& configs) {
        std::vector<Objective::Config> missing;
        {
            std::lock_guard lock(mutex_);
            for (const auto& key : configs) {
                if (!cache_.count(key) &&
                    std::find(missing.begin(), missing.end(), key) == missing.end()) {
                    missing.push_back(key);
                }
            }
        }
        std::vector<double> times(missing.size(), kUnknownSeconds);
        tbb::parallel_for(size_t{0}, missing.size(), [&](size_t i) {
            std::optional<double> p =
                o_.predict ? o_.predict(missing[i].first, missing[i].second) : std::nullopt;
            times[i] = p.value_or(kUnknownSeconds);
        });
        std::lock_guard lock(mutex_);
        for (size_t i = 0; i < missing.size(); ++i) {
            cache_[missing[i]] = times[i];
        }
    }
    // Takes another predictor's memo (of other candidates: no key is in both).
    void absorb(Predictor&& other) {
        std::scoped_lock lock(mutex_, other.mutex_);
        cache_.merge(other.cache_);
    }

private:
    const Objective& o_;
    std::mutex mutex_;
    std::map<std::pair<size_t, arith::Bindings>, double> cache_;
};

// Steepest descent on predictions from the default values, within `limit` predictions.
arith::Bindings modelSeed(const Space& space, size_t c, Predictor& predict, size_t limit,
                          int64_t target) {
    auto p = [&](const arith::Bindings& v) -> std::optional<double> {
        double t = predict(c, v);
        return t == kUnknownSeconds ? std::nullopt : std::optional<double>(t);
    };
    return modelDescent(space, p, limit, target).first;
}

struct Arm {
    size_t candidate = 0;
    arith::Bindings incumbent;
    double time = kUnknownSeconds;
    bool converged = false;
};

// The neighbours of an arm's incumbent not measured yet.
std::vector<Objective::Config> untriedNeighbours(const Arm& arm, const Space& space,
                                                 const Runner& runner) {
    std::vector<Objective::Config> out;
    for (auto& n : space.neighbours(arm.incumbent)) {
        if (!runner.tried(arm.candidate, n)) {
            out.emplace_back(arm.candidate, std::move(n));
        }
    }
    return out;
}

// The configurations one step from `n` that make a variable other than the one `n` moved away
// from `from` one step smaller.
std::vector<arith::Bindings> smallerElsewhere(const Space& space, const arith::Bindings& from,
                                              const arith::Bindings& n) {
    std::vector<arith::Bindings> out;
    for (auto& m : space.neighbours(n)) {
        for (const auto& v : space.vars()) {
            int64_t before = n.at(v.name), after = m.at(v.name);
            if (after < before && from.at(v.name) == before && m != from) {
                out.push_back(m);
                break;
            }
        }
    }
    return out;
}

// The incumbent's untried neighbours and, for each that does not fit the device, its repairs:
// a larger tile that does not fit may fit with another size one step smaller (a taller register
// block with a shorter slice along K), a move coordinate steps cannot make through sizes that
// do not fit.
std::vector<Objective::Config> stepOptions(const Arm& arm, const Space& space, const Runner& runner,
                                           Predictor& predict, const Objective& objective) {
    std::vector<Objective::Config> untried = untriedNeighbours(arm, space, runner);
    predict.prefetch(untried);
    if (!objective.doesNotFit) {
        return untried;
    }
    std::set<Objective::Config> known(untried.begin(), untried.end());
    std::vector<Objective::Config> repairs;
    for (const auto& [c, n] : untried) {
        if (!objective.doesNotFit(c, n)) {
            continue;
        }
        for (auto& m : smallerElsewhere(space, arm.incumbent, n)) {
            if (!runner.tried(c, m) && known.insert({c, m}).second) {
                repairs.emplace_back(c, std::move(m));
            }
        }
    }
    predict.prefetch(repairs);
    untried.insert(untried.end(), repairs.begin(), repairs.end());
    return untried;
}

// The `width` (at least one) of `options` with the best predictions, best first, leaving out
// those that do not fit the device.
std::vector<arith::Bindings> bestFitting(std::vector<Objective::Config> options, Predictor& predict,
                                         size_t width, const Objective& objective) {
    std::vector<std::pair<double, arith::Bindings>> ranked;
    for (auto& [c, n] : options) {
        if (!objective.doesNotFit || !objective.doesNotFit(c, n)) {
            ranked.emplace_back(predict(c, n), std::move(n));
        }
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<arith::Bindings> out;
    for (size_t i = 0; i < std::min(std::max<size_t>(1, width), ranked.size()); ++i) {
        out.push_back(std::move(ranked[i].second));
    }
    return out;
}

// The configurations of a coordinate-descent step: the `width` options (stepOptions) with the
// best predictions (best first), leaving out those that do not fit the device; none (and the
// arm converged) when no other option is left.
std::vector<arith::Bindings> nextSteps(Arm& arm, const Space& space, const Runner& runner,
                                       Predictor& predict, size_t width,
                                       const Objective& objective) {
    std::vector<arith::Bindings> steps =
        bestFitting(stepOptions(arm, space, runner, predict, objective), predict, width, objective);
    arm.converged = arm.converged || steps.empty();
    return steps;
}

void moveTo(Arm& arm, const arith::Bindings& values, std::optional<double> s) {
    if (s && *s < arm.time) {
        arm.time = *s;
        arm.incumbent = values;
    }
}

// Measures an arm's configurations together and moves it to the fastest, if faster.
void measureFor(Arm& arm, const std::vector<arith::Bindings>& values, Runner& runner) {
    std::vector<Objective::Config> configs;
    for (const auto& v : values) {
        configs.emplace_back(arm.candidate, v);
    }
    std::vector<std::optional<double>> times = runner.measure(configs);
    for (size_t k = 0; k < times.size(); ++k) {
        moveTo(arm, values[k], times[k]);
    }
}

// One step for each of the first `keep` arms that has not converged, measured together (the
// steps of different candidates do not depend on each other). With fewer arms than `width`,
// each takes its share of `width` neighbours and moves to the fastest (a batch builds in
// parallel in the compile workers). False when none was open.
bool stepAll(std::vector<Arm>& arms, size_t keep, const std::vector<Space>& spaces, Runner& runner,
             Predictor& predict, size_t width, const Objective& objective) {
    bool open = false;
    std::vector<size_t> stepping;
    std::vector<Objective::Config> configs;
    // The steps' predictions, all arms together.
    size_t openArms = 0;
    for (size_t i = 0; i < std::min(keep, arms.size()); ++i) {
        if (!arms[i].converged) {
            ++openArms;
            std::vector<Objective::Config> n =
                untriedNeighbours(arms[i], spaces[arms[i].candidate], runner);
            configs.insert(configs.end(), n.begin(), n.end());
        }
    }
    predict.prefetch(configs);
    configs.clear();
    size_t share = std::max<size_t>(1, width / std::max<size_t>(1, openArms));
    for (size_t i = 0; i < std::min(keep, arms.size()); ++i) {
        if (!arms[i].converged) {
            open = true;
            for (auto& n :
                 nextSteps(arms[i], spaces[arms[i].candidate], runner, predict, share, objective)) {
                stepping.push_back(i);
                configs.emplace_back(arms[i].candidate, std::move(n));
            }
        }
    }
    std::vector<std::optional<double>> times = runner.measure(configs);
    for (size_t k = 0; k < times.size(); ++k) {
        moveTo(arms[stepping[k]], configs[k].second, times[k]);
    }
    return open;
}

// The `width` best-predicted pair moves of an arm's incumbent not measured yet that fit the
// device. Sizes that work together often move together (a taller register block pays only with
// a shorter slice along K, a wider work-group with a narrower block), so a coordinate minimum
// need not be one for pairs.
std::vector<arith::Bindings> pairSteps(const Arm& arm, const Space& space, const Runner& runner,
                                       Predictor& predict, size_t width,
                                       const Objective& objective) {
    std::vector<Objective::Config> untried;
    for (auto& m : space.pairNeighbours(arm.incumbent)) {
        if (!runner.tried(arm.candidate, m)) {
            untried.emplace_back(arm.candidate, std::move(m));
        }
    }
    predict.prefetch(untried);
    return bestFitting(std::move(untried), predict, width, objective);
}

// One refinement step once successive halving is over: the fastest arm with a move left takes
// a coordinate step while it has not converged, else its pair moves; a pair move that is faster
// opens its coordinate descent again. False when no arm has a move left.
bool refineStep(std::vector<Arm>& arms, const std::vector<Space>& spaces, Runner& runner,
                Predictor& predict, size_t width, const Objective& objective) {
    std::stable_sort(arms.begin(), arms.end(),
                     [](const Arm& a, const Arm& b) { return a.time < b.time; });
    for (Arm& arm : arms) {
        const Space& space = spaces[arm.candidate];
        std::vector<arith::Bindings> steps;
        if (!arm.converged) {
            steps = nextSteps(arm, space, runner, predict, width, objective);
        }
        if (arm.converged) {
            steps = pairSteps(arm, space, runner, predict, width, objective);
        }
        if (steps.empty()) {
            continue;
        }
        double before = arm.time;
        measureFor(arm, steps, runner);
        arm.converged = arm.converged && arm.time == before;
        return true;
    }
    return false;
}

} // namespace

TuneResult tuneGuided(const std::vector<Space>& spaces, const std::vector<size_t>& order,
                      const Objective& objective, const GuidedOptions& options) {
    Runner runner(objective, options.budget, spaces.size());
    Predictor predict(objective);
    // Round 0: every candidate's model seed, as many as the budget allows, measured together.
    // The seeds are independent descents, one per candidate, so they run in parallel (each
    // prediction generates a kernel); their order and values are those of a sequential run.
    std::vector<size_t> seeded;
    for (size_t c : order) {
        if (runner.exhausted() || runner.result.used + seeded.size() >= options.budget) {
            break;
        }
        seeded.push_back(c);
    }
    std::vector<Objective::Config> seeds(seeded.size());
    std::vector<Predictor> memos(seeded.size(), Predictor(objective));
    tbb::parallel_for(size_t{0}, seeded.size(), [&](size_t i) {
        size_t c = seeded[i];
        seeds[i] = {
            c, modelSeed(spaces[c], c, memos[i], options.predictionsPerCandidate, options.target)};
    });
    for (Predictor& m : memos) {
        predict.absorb(std::move(m));
    }
    // The seeds predicted far slower than the best wait until none of the others measures.
    double bestPredicted = kUnknownSeconds;
    for (const auto& [c, v] : seeds) {
        bestPredicted = std::min(bestPredicted, predict(c, v));
    }
    std::vector<Objective::Config> near, far;
    for (const Objective::Config& seed : seeds) {
        double p = predict(seed.first, seed.second);
        bool isFar = options.farRatio > 0 && bestPredicted != kUnknownSeconds &&
                     p != kUnknownSeconds && p > options.farRatio * bestPredicted;
        (isFar ? far : near).push_back(seed);
    }
    seeds = near;
    std::vector<std::optional<double>> times = runner.measure(seeds);
    if (std::none_of(times.begin(), times.end(), [](const auto& t) { return t.has_value(); })) {
        std::vector<std::optional<double>> more = runner.measure(far);
        seeds.insert(seeds.end(), far.begin(), far.begin() + long(more.size()));
        times.insert(times.end(), more.begin(), more.end());
    } else {
        for (const auto& [c, v] : far) {
            runner.result.leftOut.push_back(c);
        }
        runner.reserve(options.budgetPerLeftOut * far.size());
    }
    std::vector<Arm> arms;
    for (size_t i = 0; i < times.size(); ++i) {
        if (times[i]) {
            size_t c = seeds[i].first;
            arms.push_back({c, seeds[i].second, *times[i], spaces[c].numVars() == 0});
        }
    }
    // Successive halving: each round keeps the faster half and gives every survivor one step.
    // Ties keep the earlier arm first (stable sort; arms are in predicted order), so the ranking
    // never depends on which device measured what first.
    size_t keep = arms.size();
    while (!runner.exhausted()) {
        std::stable_sort(arms.begin(), arms.end(),
                         [](const Arm& a, const Arm& b) { return a.time < b.time; });
        keep = std::max<size_t>(1, (keep + 1) / 2);
        if (!stepAll(arms, keep, spaces, runner, predict, options.stepWidth, objective)) {
            // The kept arms are at local minima: widen to the next unconverged arm, if any.
            auto open =
                std::find_if(arms.begin(), arms.end(), [](const Arm& a) { return !a.converged; });
            if (open == arms.end()) {
                break;
            }
            measureFor(*open,
                       nextSteps(*open, spaces[open->candidate], runner, predict, options.stepWidth,
                                 objective),
                       runner);
        }
    }
    // Refinement: what is left and the share of the candidates left out, fastest arm first.
    runner.release();
    while (!runner.exhausted() &&
           refineStep(arms, spaces, runner, predict, options.stepWidth, objective)) {
    }
    return std::move(runner.result);
}

TuneResult tuneRandom(const std::vector<Space>& spaces, const Objective& objective, size_t budget,
                      uint64_t seed) {
    Runner runner(objective, budget, spaces.size());
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> pickCandidate(0, spaces.empty() ? 0 : spaces.size() - 1);
    // Draws do not depend on times: `parallel` of them are measured together.
    size_t batch = std::max<size_t>(1, objective.parallel);
    bool spent = false;
    while (!spaces.empty() && !runner.exhausted() && !spent) {
        std::vector<Objective::Config> draws;
        std::set<Objective::Config> drawn;
        while (draws.size() < batch && !spent) {
            size_t c = 0;
            arith::Bindings v;
            auto fresh = [&] { return !runner.tried(c, v) && !drawn.count({c, v}); };
            for (int attempt = 0; attempt < 50; ++attempt) {
                c = pickCandidate(rng);
                v = spaces[c].random(rng);
                if (fresh()) {
                    break;
                }
            }
            spent = !fresh(); // (nearly) the whole space has been measured
            if (!spent) {
                drawn.insert({c, v});
                draws.emplace_back(c, std::move(v));
            }
        }
        runner.measure(draws);
    }
    return std::move(runner.result);
}

} // namespace egopt::pipeline
