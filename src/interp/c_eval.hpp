// Tree-walking evaluation of a checked body. All state lives in one Evaluator per call, so a
// compiled function can be called from several threads at once.
#pragma once

#include "c_value.hpp"

#include <span>

namespace egopt::interp::c {

// Statements (and loop iterations) one call may execute before it is stopped as runaway.
inline constexpr uint64_t kStepLimit = 10'000'000;

// Runs the body with the parameters in slots 0..n-1 (moved from `args`) and returns the value
// of its return statement converted to `result`.
CVal evaluate(const Ast& ast, std::span<CVal> args, CType result, const Reporter& rep,
              uint64_t stepLimit = kStepLimit);

} // namespace egopt::interp::c
