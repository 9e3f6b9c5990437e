// Between Lift programs and the e-graph: insertion of a program's body (its top-level
// parameters become free De Bruijn variables, named by the Signature) and extraction of a class
// back to a Program that the type checker and the reference interpreter accept.
#pragma once

#include "egopt/egraph/egraph.hpp"
#include "egopt/lift/ir.hpp"

#include <string>
#include <vector>

namespace egopt::egraph {

// The top-level function of an inserted program: parameter names and types (types in the
// e-graph's arena), and the size variables in order of first appearance.
struct Signature {
    std::vector<std::string> names;
    std::vector<TypeId> types;
    std::vector<std::string> sizeVars;
    TypeId result = lift::kNoType;
};

struct Inserted {
    EClassId root = kNoClass;
    Signature signature;
};

// A type of one arena in another.
TypeId importType(lift::TypeArena& dst, const lift::TypeArena& src, TypeId t);

// Type-checks the program (errors are BadInput with locations) and converts its body into
// `out` (tables interned in `g`); fills `sig`.
TermId programToTerm(EGraph& g, lift::Program& program, TermArena& out, Signature& sig);

// Type-checks and inserts the program's body.
Inserted insertProgram(EGraph& g, lift::Program& program);

// A Program for a term (or the smallest term of a class) under the signature. Lambda parameters
// get fresh names and declared types.
lift::Program termToProgram(const EGraph& g, const TermArena& terms, TermId root,
                            const Signature& sig);
lift::Program extractProgram(const EGraph& g, EClassId root, const Signature& sig);

} // namespace egopt::egraph
