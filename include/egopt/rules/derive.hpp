// Derivations of composite rules (`egopt rules derive FILE...`, docs/rules.md, "Compositions"):
// a composite rule's right-hand side must be reachable from its left-hand side with the
// primitive catalogue alone. On an instance of the left-hand side (pattern variables replaced by
// parameters and user functions, as `rules check` builds them, so nothing is known about them
// beyond the rule's conditions; array parameters are closed leaves, so that a step moving a
// term under a binder keeps what earlier steps rewrote in it), the rule's own right-hand side is
// built beside it in one e-graph, and the primitive rules saturate until both share an e-class;
// the explanation between them is the derivation. The rule's stated composition (`by a; b; ...`)
// guides the search: its steps run in order (those after a `focus` marker only on the right-hand
// side's term and what they write, those after `focus-left` only on the left-hand side's), then the
// lifting rules (those that shrink a term or remove OpenCL-specific patterns: the schedule on the
// right is rewritten to its high-level meaning), then only the composition's rules (and their
// reverses), then the catalogue's rules without generators, then the whole catalogue.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace egopt::rules {

struct DeriveOptions {
    uint64_t seed = 1;
    size_t attempts = 250'000;  // random instantiations tried to find an instance
    double secondsPerStage = 5; // saturation limits of each stage
    size_t nodesPerStage = 60'000;
    size_t iterationsPerStage = 40;
    // After the stated steps, add the right-hand side's term with the fewest OpenCL-specific
    // operators, tuples and written-out fold steps to the progress (`--show-clause`): the form
    // the steps wrote, which the smallest term at the end does not show; and how many e-nodes
    // each step added (a step after the clause's `focus` marker rewrites only that term).
    bool showClause = false;
};

struct DerivationStep {
    std::string rule;
    bool forward = true; // false: used right to left
};

struct Derivation {
    std::string rule;
    std::string where; // file:line:col
    bool derived = false;
    std::string instance; // the left-hand side's instance
    std::vector<DerivationStep> steps;
    // How far the search got: one line per stage run (its rules, stop reason, e-nodes), and
    // why it ended (no instance, unknown composition step, limits).
    std::vector<std::string> progress;
};

// Derives one composite rule from `catalogue` (primitive rules). Never throws for a rule bug: an
// ill-typed right-hand side is reported as not derived.
Derivation deriveRule(const egraph::Rule& rule, const std::vector<egraph::Rule>& catalogue,
                      const egraph::Library& lib, const DeriveOptions& options);

// "DERIVED name (file:line): N steps" and the steps, or "NOT DERIVED ..." with the progress.
std::string formatDerivation(const Derivation& d);

} // namespace egopt::rules
