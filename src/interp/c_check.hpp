// Name resolution and type checking of a parsed body: every variable gets a frame slot, every
// expression a type, calls their builtin, member accesses their lanes or field. Anything the
// evaluator could not give a C meaning to is reported here, before the first call.
#pragma once

#include "c_ast.hpp"
#include "c_error.hpp"
#include "c_types.hpp"

namespace egopt::interp::c {

struct Param {
    std::string name;
    CType type;
};

// Parameters occupy slots 0..n-1.
void check(Ast& ast, const std::vector<Param>& params, CType result, const Reporter& rep);

} // namespace egopt::interp::c
