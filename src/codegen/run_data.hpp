// Host-side data of device runs (internal to codegen): the memory layout of Lift values and the
// conversion of interpreter values to and from device bytes.
#pragma once

#include "egopt/interp/value.hpp"
#include "egopt/lift/type.hpp"

#include <cstddef>
#include <vector>

namespace egopt::codegen {

// The scalar kinds of one value of type `t` in memory order; a 3-wide vector takes 4 slots, as in
// OpenCL C. Array lengths must be constant (substitute the sizes first).
void scalarLayout(const lift::TypeArena& types, lift::TypeId t, std::vector<lift::ScalarKind>& out);

// `values` as device bytes laid out as `kinds` (each value converted to its slot's kind).
std::vector<std::byte> encode(const std::vector<double>& values,
                              const std::vector<lift::ScalarKind>& kinds);

// Device bytes read as `kinds`; stops at the end of `bytes`.
std::vector<double> decode(const std::vector<std::byte>& bytes,
                           const std::vector<lift::ScalarKind>& kinds);

} // namespace egopt::codegen
