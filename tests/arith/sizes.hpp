// The size variables the arithmetic tests share: lengths N and M, an index i.
#pragma once

#include "egopt/arith/size.hpp"

namespace egopt::testenv::arith_sizes {

inline const arith::Size N = arith::Size::var("N");
inline const arith::Size M = arith::Size::var("M");
inline const arith::Size i = arith::Size::var("i");

} // namespace egopt::testenv::arith_sizes
