// Internal: the parts of Library::standard() (library.cpp registers them).
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <optional>

namespace egopt::egraph::detail {

// The outer length of an array class; nullopt for anything else.
std::optional<arith::Size> outerLength(const EGraph& g, EClassId c);

// Conditions on what a function class computes (library_funs.cpp): associative, commutative,
// neutral, isCopy, isReduce, isLayout, vectorizable.
void addFunctionConditions(Library& lib);

// Appliers that build right-hand sides the pattern language cannot express
// (library_appliers.cpp): copyOf, interchange.
void addStructuralAppliers(Library& lib);

} // namespace egopt::egraph::detail
