// Internal to the interpreter: values from literal text, random generators and JSON.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/lift/type.hpp"

#include <nlohmann/json_fwd.hpp>
#include <random>
#include <string>

namespace egopt::interp::detail {

// The value of a Lift literal: "0.0f" of type Float; "0.0f" of type Float4 or of an array type
// (broadcast to every element); "{1.0f, 2}" or "(float2)(1.0f, 2.0f)" for tuples and vectors
// (numbers in order).
Value literalValue(const lift::TypeArena& types, lift::TypeId type, const std::string& text,
                   const arith::Bindings& sizes);

// Random values: floats uniform in [-1, 1), ints in [0, 16), booleans 50/50.
Value randomValue(const lift::TypeArena& types, lift::TypeId type, const arith::Bindings& sizes,
                  std::mt19937_64& rng, const std::string& what);

// A JSON value of the given type (numbers; lists for arrays, tuples and vectors).
Value jsonValue(const lift::TypeArena& types, lift::TypeId type, const nlohmann::json& json,
                const arith::Bindings& sizes, const std::string& what);

} // namespace egopt::interp::detail
