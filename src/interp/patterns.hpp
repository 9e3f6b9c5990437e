// Internal to the interpreter: the data-layout patterns as pure functions on values.
#pragma once

#include "egopt/interp/value.hpp"
#include "egopt/lift/ir.hpp"

#include <cstdint>

namespace egopt::interp::detail {

// Each throws egopt::Error (BadInput) with `where` prefixed when its input does not fit (a split
// factor that does not divide, an index out of range, ...).
Value split(const Value& xs, int64_t k, const std::string& where);
Value join(const Value& xs, const std::string& where);
Value transpose(const Value& xs, const std::string& where);
Value zip(std::span<const Value> arrays, const std::string& where);
Value unzip(const Value& xs, const std::string& where);
Value asVector(const Value& xs, int64_t width, const std::string& where);
Value asScalar(const Value& xs, const std::string& where);
Value slide(const Value& xs, int64_t size, int64_t step, const std::string& where);
// `constant` is PadBoundary::Constant's value (repeated over array elements), else null.
Value pad(const Value& xs, int64_t left, int64_t right, lift::PadBoundary b, const Value* constant,
          const std::string& where);
Value at(const Value& xs, int64_t i, const std::string& where);
Value filter(const Value& xs, const Value& ids, const std::string& where);

// The index functions of Gather/Scatter: where element i of the result comes from (Gather) or
// goes to (Scatter) in an array of length n.
//   ReorderWithStride(s): i -> i / (n/s) + s * (i % (n/s))   (Lift's reorderStride)
//   reverse:             i -> n - 1 - i
//   shift(k):            i -> (i + k) mod n                  (a rotation)
int64_t reorderIndex(lift::Op indexFunction, int64_t param, int64_t i, int64_t n,
                     const std::string& where);
Value gather(const Value& xs, lift::Op indexFunction, int64_t param, const std::string& where);
Value scatter(const Value& xs, lift::Op indexFunction, int64_t param, const std::string& where);

} // namespace egopt::interp::detail
