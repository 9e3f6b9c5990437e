// Soundness checking of rewrite rules by random testing (`egopt rules check`, docs/rules.md).
//
// For each rule: random well-typed instances of its left-hand side are built as Lift programs
// (pattern variables replaced by parameters, bound variables or small functions from a pool,
// size variables by small numbers), inserted into a fresh e-graph, and the rule's own search,
// conditions, generators and right-hand side (pattern or C++ applier) are run on them. The
// right-hand side's class is extracted before any union, its tuning variables get values that
// satisfy their constraints, and both programs are interpreted on the same random inputs.
// Results must agree exactly, or within a relative tolerance when the rule involves reductions
// (whose floating-point order it may change).
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace egopt::rules {

struct SoundnessOptions {
    size_t instances = 50; // checked instances required per rule
    // At most this many for a rule whose conditions need lengths beyond 16 (a tiled matrix
    // multiplication needs 128 | M): each instance costs about a second to interpret.
    size_t largeInstances = 10;
    size_t attempts = 250000;        // random instantiations tried per rule at most
    uint64_t seed = 1;               // everything is deterministic given the seed
    double tolerance = 1e-4;         // relative, for rules that involve reductions
    std::optional<std::string> rule; // check only the rule of this name
    size_t samples = 0;              // checked instances to keep for display per rule
};

enum class Verdict : uint8_t { Pass, Fail, Unchecked };
std::string_view verdictName(Verdict v); // "PASS", "FAIL", "UNCHECKED"

// A failing instance, printed in full by formatVerdict.
struct Counterexample {
    std::string sizes;     // "#n=2, v__0=3"
    std::string lhs;       // the instance of the left-hand side (a Lift program)
    std::string rhs;       // what the rule made of it
    std::string inputs;    // one "name = value" line per parameter
    std::string lhsOutput; // JSON
    std::string rhsOutput; // JSON, or empty when the right-hand side failed
    std::string problem;   // "largest difference 0.5 at [3]", or the error
};

struct RuleVerdict {
    std::string rule;
    std::string where; // file:line:col
    Verdict verdict = Verdict::Unchecked;
    size_t checked = 0;      // instances interpreted and compared
    size_t required = 0;     // instances it needed to pass
    size_t attempts = 0;     // random instantiations tried
    size_t illTyped = 0;     // rejected by the type checker or the e-graph
    size_t conditions = 0;   // the rule's conditions failed (or it did not match)
    size_t notApplied = 0;   // the rule declined (scope, applier)
    size_t invalidInput = 0; // the left-hand side itself failed to evaluate
    bool exact = true;       // compared exactly (no reductions involved)
    std::optional<Counterexample> counterexample;
    std::vector<std::string> samples; // "LHS  ==>  RHS  [sizes]" of the first checked instances
};

// Checks one rule; never throws for a rule bug (an ill-typed right-hand side is a FAIL).
RuleVerdict checkRule(const egraph::Rule& rule, const egraph::Library& lib,
                      const SoundnessOptions& options);

// Checks every rule (or options.rule only; BadInput if no rule has that name).
std::vector<RuleVerdict> checkRules(const std::vector<egraph::Rule>& rules,
                                    const egraph::Library& lib, const SoundnessOptions& options);

// One line per rule; a counterexample follows in full.
std::string formatVerdict(const RuleVerdict& v);

} // namespace egopt::rules
