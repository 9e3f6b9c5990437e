// Internal to the interpreter: the data-layout patterns as pure functions on values.
#pragma once

#include "egopt/interp/value.hpp"
#include "egopt/lift/ir.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace egopt::interp::detail {

// Where a pattern is applied, for error messages; the text is built only when there is an error.
struct Site {
    const lift::Program& program;
    lift::NodeId node;
    // "Split at 3:14"
    std::string text() const;
};

// Each throws egopt::Error (BadInput) with `where` prefixed when its input does not fit (a split
// factor that does not divide, an index out of range, ...).
Value split(const Value& xs, int64_t k, const Site& where);
Value join(const Value& xs, const Site& where);
Value transpose(const Value& xs, const Site& where);
// The length of the arrays Zip combines (all equal, else an error).
size_t zipLength(std::span<const Value> arrays, const Site& where);
Value zip(std::span<const Value> arrays, const Site& where);
Value unzip(const Value& xs, const Site& where);
Value asVector(const Value& xs, int64_t width, const Site& where);
Value asScalar(const Value& xs, const Site& where);
Value slide(const Value& xs, int64_t size, int64_t step, const Site& where);
// `constant` is PadBoundary::Constant's value (repeated over array elements), else null.
Value pad(const Value& xs, int64_t left, int64_t right, lift::PadBoundary b, const Value* constant,
          const Site& where);
Value at(const Value& xs, int64_t i, const Site& where);
Value filter(const Value& xs, const Value& ids, const Site& where);

// The index functions of Gather/Scatter: where element i of the result comes from (Gather) or
// goes to (Scatter) in an array of length n.
//   ReorderWithStride(s): i -> i / (n/s) + s * (i % (n/s))   (Lift's reorderStride)
//   reverse:             i -> n - 1 - i
//   shift(k):            i -> (i + k) mod n                  (a rotation)
int64_t reorderIndex(lift::Op indexFunction, int64_t param, int64_t i, int64_t n,
                     const Site& where);
Value gather(const Value& xs, lift::Op indexFunction, int64_t param, const Site& where);
Value scatter(const Value& xs, lift::Op indexFunction, int64_t param, const Site& where);

} // namespace egopt::interp::detail
