// Type inference and checking (ICFP'15 Fig. 4/5, CGO'17 §3): the type of every expression node
// of a program whose top-level parameters have declared types. Nested lambdas are checked at the
// types they are applied to (Map(f) on [T]n checks f at T).
#pragma once

#include "egopt/lift/ir.hpp"

#include <vector>

namespace egopt::lift {

struct TypeInfo {
    // For expression nodes: the type of the value; for function nodes: the type of their result
    // at the (single) application site; kNoType for nodes that were never reached.
    std::vector<TypeId> nodeTypes;
    std::vector<TypeId> paramTypes; // by parameter index (Program::params)
    TypeId resultType = kNoType;    // of the top-level lambda's body
};

// Throws egopt::Error (BadInput) at the node's location with a message naming the pattern and
// argument and showing expected vs found, e.g.
//   "argument 2 of Zip: expected ArrayType(Float, N), found ArrayType(Float, M)".
// Types are interned into program.types, hence the non-const reference.
TypeInfo typecheck(Program& program);

// "(ArrayType(Float, N), Float) -> ArrayType(Float, 1)".
std::string showSignature(const Program& program, const TypeInfo& info);

} // namespace egopt::lift
