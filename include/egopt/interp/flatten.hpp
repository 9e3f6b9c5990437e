// A value's scalars in row-major order (vector lanes and tuple fields in place), as doubles: how
// results are compared and how buffers are filled.
#pragma once

#include "egopt/interp/value.hpp"

#include <vector>

namespace egopt::interp {

void flattenScalars(const Value& v, std::vector<double>& out);

} // namespace egopt::interp
