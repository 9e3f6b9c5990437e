// Tuning the numeric parameters a candidate leaves open (split factors: the v__K tuning
// variables with their recorded "divides" constraints) by measured execution within a budget
// (docs/tuning.md). The search is independent of how a configuration is predicted or measured:
// it calls an Objective, so it is tested with synthetic objectives and compared with random
// sampling on real cases.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/extract/extract.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace egopt::pipeline {

// A time or prediction not known: it sorts after every known one.
inline constexpr double kUnknownSeconds = std::numeric_limits<double>::infinity();

// The configurations of one candidate: every tuning variable takes a divisor of each length it
// must divide (lengths evaluated at the concrete sizes and the values of earlier variables).
class Space {
public:
    Space(std::vector<extract::TuningVar> vars, arith::Bindings sizes);

    size_t numVars() const { return vars_.size(); }
    const std::vector<extract::TuningVar>& vars() const { return vars_; }
    // The allowed values of variable i given the values of variables before it (ascending).
    std::vector<int64_t> domain(size_t i, const arith::Bindings& earlier) const;
    // True when every variable has a value that satisfies its constraints.
    bool valid(const arith::Bindings& values) const;
    // The nearest valid configuration: each variable, in order, keeps its value when allowed,
    // else takes the largest allowed value below it (the smallest allowed one if none).
    arith::Bindings repair(const arith::Bindings& values) const;
    // The default (extraction's): the largest allowed value <= target for each variable.
    arith::Bindings initial(int64_t target) const;
    // Coordinate neighbours: one variable moved to the next smaller or larger allowed value
    // (later variables repaired).
    std::vector<arith::Bindings> neighbours(const arith::Bindings& values) const;
    // Pair moves: the configurations two coordinate moves away (a neighbour's neighbours) that
    // are neither `values` nor one of its coordinate neighbours: two variables moved one step
    // each, such as a taller register block with a shorter slice along K.
    std::vector<arith::Bindings> pairNeighbours(const arith::Bindings& values) const;
    // A uniformly random value for each variable in turn.
    arith::Bindings random(std::mt19937_64& rng) const;
    // The number of configurations (saturating at `cap`).
    size_t count(size_t cap) const;

private:
    std::vector<extract::TuningVar> vars_;
    arith::Bindings sizes_;
};

// What the search calls. `predict` is the cost model (free: no device time; nullopt when the
// configuration cannot be generated; called from several threads at once: a step's neighbours
// and the candidates' seeds are predicted in parallel); `measure` runs it on the device and costs
// one unit of budget (nullopt when it fails). `stop` ends the search early.
//
// `measureMany`, when set, replaces `measure`: it measures independent configurations together
// (several devices at once) and returns their times in the order given (fewer when a stop ends
// the batch early: the rest count as not measured). The searches hand it
// every configuration whose choice does not depend on another one's time: all of round 0, one
// step per surviving candidate in later rounds, `parallel` random draws at a time.
struct Objective {
    using Config = std::pair<size_t, arith::Bindings>; // candidate, tuning values
    std::function<std::optional<double>(size_t candidate, const arith::Bindings&)> predict;
    // True for a configuration the device cannot launch (found by `predict` of the same
    // configuration, which the search asks first): the guided search never measures one.
    std::function<bool(size_t candidate, const arith::Bindings&)> doesNotFit;
    std::function<std::optional<double>(size_t candidate, const arith::Bindings&)> measure;
    std::function<std::vector<std::optional<double>>(const std::vector<Config>&)> measureMany;
    std::function<bool()> stop;
    size_t parallel = 1; // configurations measured at once (the random search's batch)
};

struct Trial {
    size_t candidate = 0;
    arith::Bindings values;
    std::optional<double> seconds; // nullopt: failed
};

struct TuneResult {
    std::vector<Trial> trials; // in measurement order
    // Per candidate: the fastest successful trial (index into trials), if any.
    std::vector<std::optional<size_t>> best;
    size_t used = 0; // measurements spent
    // Candidates the guided search left unmeasured: predicted over GuidedOptions::farRatio times
    // the best prediction while nearer ones measured.
    std::vector<size_t> leftOut;
};

// Steepest descent on the model's predictions from Space::initial(target), within `limit`
// predictions: the configuration the model deems best near the defaults, and its prediction
// (nullopt when none could be predicted). A neighbourhood's predictions (and the starting
// scales') are made in parallel, so `predict` must be safe to call from several threads; the
// result is that of a sequential descent. The guided tuner's starting points; the pipeline also
// ranks macro rules' replays by it (docs/extraction.md).
std::pair<arith::Bindings, std::optional<double>>
modelDescent(const Space& space,
             const std::function<std::optional<double>(const arith::Bindings&)>& predict,
             size_t limit, int64_t target);

// Model-seeded successive halving with coordinate descent (docs/tuning.md): the model picks a
// starting configuration per candidate (a descent on predictions, up to `predictionsPerCandidate`
// calls); round 0 measures every candidate's start in the given order; each later round keeps
// the faster half of the candidates and moves each survivor's incumbent to its best measured
// neighbour (neighbours ordered by prediction; GuidedOptions::stepWidth of them per round).
// Then refinement: the fastest candidate with a move left takes coordinate steps until it
// converges, then its best-predicted pair moves (Space::pairNeighbours), descending again from a
// faster one. It ends when the budget is spent or no move is left.
struct GuidedOptions {
    size_t budget = 48;
    size_t predictionsPerCandidate = 64;
    int64_t target = 64; // the descent's starting point (extraction's default values)
    // Candidates whose seed the model predicts over this many times slower than the best seed are
    // measured only when none of the others measures (0: all measured). The model ranks naive
    // kernels far off (mm's at 4096^3: predicted 42x the best, measured 690x, 2.6 s a run).
    double farRatio = 16;
    // Measurements set aside per candidate left out until successive halving is over; then they
    // go to the refinement of the fastest candidates (the pipeline's default budget is 3 per
    // candidate: the ones left out do not spread their share over the slow ones; 0 with an
    // explicit budget).
    size_t budgetPerLeftOut = 0;
    // Configurations measured per round once fewer arms remain: each open arm takes its share
    // of the best-predicted neighbours and moves to the fastest. 1: one step per arm (a round's
    // builds are sequential in one process; the pipeline passes its compile workers' count).
    size_t stepWidth = 1;
};
TuneResult tuneGuided(const std::vector<Space>& spaces, const std::vector<size_t>& order,
                      const Objective& objective, const GuidedOptions& options);

// The baseline: `budget` configurations drawn uniformly (a random candidate, then random values),
// without repetition where possible.
TuneResult tuneRandom(const std::vector<Space>& spaces, const Objective& objective, size_t budget,
                      uint64_t seed);

} // namespace egopt::pipeline
