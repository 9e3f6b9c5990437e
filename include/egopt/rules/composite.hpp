// Composite rules (docs/rules.md, "Compositions"): a rule that states the catalogue rules it
// composes (`by a; b; ...`, a macro rule in the sense of ICFP'15 §6.1), or one with more than
// kMaxPrimitiveOperators operators on a side. `egopt rules derive` proves each composite from the
// primitive rules; `--no-macros` runs the pipeline without them.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <vector>

namespace egopt::rules {

inline constexpr size_t kMaxPrimitiveOperators = 12;

// The Lift patterns of a side (Map, Split, toLocal, ...; not applications, lambdas or variables).
size_t operatorCount(const egraph::Pattern& p);

bool isComposite(const egraph::Rule& rule);

// The rules that are not composite, in order (the primitive catalogue).
std::vector<egraph::Rule> primitiveRules(const std::vector<egraph::Rule>& rules);

} // namespace egopt::rules
