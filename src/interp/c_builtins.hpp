// OpenCL C math and geometric builtins of user functions, element-wise on vectors and in float
// precision for float operands. native_ and half_ variants mean the precise function.
#pragma once

#include "c_value.hpp"

#include <span>
#include <string_view>

namespace egopt::interp::c {

// The builtin's id, or kNone for an unknown function.
uint32_t findBuiltin(std::string_view name);

// The result type for these argument types; a wrong arity or argument type is reported at w.
CType builtinResult(uint32_t id, std::span<const CType> args, const Where& w);

CVal callBuiltin(uint32_t id, std::span<const CVal> args, CType result, const Where& w);

// For the evaluator of scalar functions (c_scalar.hpp), callBuiltin in parts:
// Whether the builtin works lane by lane (math, min, max, abs; not dot, length, cross, ...).
bool builtinIsLanewise(uint32_t id);
// The type its arguments are converted to before the call.
CType builtinOperandType(uint32_t id, std::span<const CType> args, const Where& w);
// One lane of a lane-wise builtin, the arguments converted to t; the result has type t.
Lane builtinLane(uint32_t id, std::span<const Lane> args, CType t);

} // namespace egopt::interp::c
