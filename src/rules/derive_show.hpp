// The term of a class that a derivation's last steps built (derive.cpp's --show-clause).
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <string>
#include <vector>

namespace egopt::rules::detail {

// The class's term built from the newest members: in each class the member added last that is
// no OpenCL-specific operator (lift::isLowLevel: MapLcl, ReduceSeq, toLocal, ...), else the
// newest OpenCL-specific one, whose children's terms do not lead back to a class being built;
// a class without one (every member on a cycle) shows its smallest term. After a derivation's stated steps this is the form the last steps wrote
// (their results are the newest e-nodes), which the smallest term hides behind the schedule's
// shorter members. `names` names the free variables.
std::string showNewest(const egraph::EGraph& g, egraph::EClassId root,
                       const std::vector<std::string>& names);

} // namespace egopt::rules::detail
