// Checking one random instance of a rule (soundness_check.cpp).
#pragma once

#include "egopt/egraph/convert.hpp"
#include "egopt/rules/soundness.hpp"
#include "soundness_detail.hpp"

namespace egopt::rules::detail {

enum class Outcome : uint8_t {
    Checked,      // both sides agree
    IllTyped,     // the e-graph rejected the instance
    Conditions,   // the rule does not match it (conditions false)
    NotApplied,   // the rule declined (scope, applier)
    InvalidInput, // the left-hand side itself cannot be evaluated
    Fail,         // a counterexample
};

struct InstanceResult {
    InstanceResult(Outcome o, std::optional<Counterexample> c = std::nullopt)
        : outcome(o), counterexample(std::move(c)) {}
    Outcome outcome;
    std::optional<Counterexample> counterexample;
    std::string sample; // Checked: the instance and its rewrite, when samples are wanted
};

class InstanceChecker {
public:
    InstanceChecker(const egraph::Rule& rule, const egraph::Library& lib, double tolerance,
                    Rng& rng)
        : rule_(rule), lib_(lib), tolerance_(tolerance), rng_(rng) {}
    bool wantSamples = false;

    InstanceResult run(Instance& inst);

private:
    // What is known so far about a failing instance.
    struct Failure {
        std::string sizes;
        const lift::Program* lhs = nullptr;
        const lift::Program* rhs = nullptr;
        std::vector<interp::Value> inputs;
        std::optional<interp::Value> lhsOut;
        std::optional<interp::Value> rhsOut;
        std::string problem;
    };
    InstanceResult fail(Failure f) const;
    InstanceResult checkMatch(egraph::EGraph& g, egraph::TuningSpace& tuning,
                              const egraph::Inserted& ins,
                              const std::vector<egraph::EClassId>& args, const egraph::Match& m,
                              lift::Program& lhs, const std::string& sizes);
    InstanceResult compare(lift::Program& lhs, lift::Program& rhs, const arith::Bindings& bindings,
                           Failure& f);

    const egraph::Rule& rule_;
    const egraph::Library& lib_;
    double tolerance_;
    Rng& rng_;
};

} // namespace egopt::rules::detail
