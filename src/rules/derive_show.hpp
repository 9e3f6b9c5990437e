// The right-hand side as a derivation's stated steps wrote it (derive.cpp's --show-clause).
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <string>
#include <vector>

namespace egopt::rules::detail {

// The class's cheapest term where an OpenCL-specific operator (lift::isLowLevel: MapLcl,
// ReduceSeq, toLocal, ...) weighs 1000, a Tuple 10^4 and a two-parameter lambda (a fold's
// step written out) 10^5, every other operator 1: the dataflow that a clause's steps wrote
// with maps, zips and folds of functions, which the smallest term (every operator weighing 1)
// hides behind the schedule's shorter members and the pairs and fold steps that fold
// interchanges build. `names` names the free variables.
std::string showStructured(const egraph::EGraph& g, egraph::EClassId root,
                           const std::vector<std::string>& names);

// The classes of those terms of `roots` (showStructured's), each once: where a clause's steps
// after `focus` rewrite.
std::vector<egraph::EClassId> structuredClasses(const egraph::EGraph& g,
                                                const std::vector<egraph::EClassId>& roots);

} // namespace egopt::rules::detail
