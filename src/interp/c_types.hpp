// Lift types as C types, and OpenCL vector component names.
#pragma once

#include "c_ast.hpp"
#include "c_error.hpp"

#include <optional>

namespace egopt::interp::c {

// The Lift type as a C type; tuple field types are recorded in ast.tuples. Arrays and the
// scalar kinds without a runtime Value (char, long) are rejected.
CType fromLift(lift::TypeId id, const lift::TypeArena& types, Ast& ast, const Reporter& rep,
               const std::string& what);

// The lanes named by a swizzle (.x .xyz .s01 .lo .hi .even .odd) of a vector of `width` lanes;
// nullopt when the name is not one.
std::optional<Access> parseSwizzle(const std::string& name, int width);

} // namespace egopt::interp::c
