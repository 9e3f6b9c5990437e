// Dumps of the e-graph: JSON in the egraph-serialize shape (nodes keyed by id with op,
// children node ids, eclass and cost; class_data; root_eclasses), usable with the public
// e-graph visualisers, and Graphviz through Boost.Graph's write_graphviz.
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <ostream>
#include <vector>

namespace egopt::egraph {

void dumpJson(const EGraph& g, const std::vector<EClassId>& roots, std::ostream& out);
void dumpDot(const EGraph& g, std::ostream& out);

} // namespace egopt::egraph
