// Internal: the parts of Library::standard() (library.cpp registers them).
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <functional>
#include <optional>

namespace egopt::egraph::detail {

// The outer length of an array class, in the type arena (valid while the arena lives; read, not
// copied: conditions run on every search thread), or null for other classes.
const arith::Size* outerLength(const EGraph& g, EClassId c);

// Conditions on what a function class computes (library_funs.cpp): associative, commutative,
// neutral, isCopy, isReduce, isLayout, vectorizable.
void addFunctionConditions(Library& lib);

// Appliers that build right-hand sides the pattern language cannot express
// (library_appliers.cpp): copyOf, interchange.
void addStructuralAppliers(Library& lib);

// Appliers for maps over zips (library_zip.cpp): mapOfHalf.
void addZipAppliers(Library& lib);

// `map`(fun(x => body)) $ arg in `t`: a map (Map, MapSeq, ...) of a one-parameter lambda whose
// body is already in `t`, applied to an array class (library_appliers.cpp).
TermId mapOverClass(TermArena& t, Op map, TermId body, EClassId arg);

// The builtin identity user function on the scalar or float4 `elem` (id, idI, idF4), as a
// term of `t`; nullopt for other types (library_appliers.cpp).
std::optional<TermId> identityTerm(EGraph& g, TypeId elem, TermArena& t);

// What a member-keeping copy puts in place of a variable `var` whose index, seen `depth` binders
// below the copied root, is at least depth + cutoff: its class, or nullopt to leave the member
// using it out.
using CopyVar = std::function<std::optional<EClassId>(const ENode& var, int32_t depth)>;

// The copy of `root` with every member of every class that uses a variable at or above the
// cutoff (member_copy.cpp, EGraph::keepMembersInCopies), each merge of two members' copies
// explained by their originals' equality. nullopt when no member can be copied, or with
// `exhausted` set when the copy grew past its bound (the caller copies smallest terms instead).
std::optional<EClassId> copyKeepingMembers(EGraph& g, EClassId root, int32_t cutoff,
                                           const CopyVar& var, bool& exhausted);

// A CopyVar's renumbering: the variable `dropped` binders from `dropFrom` (relative to the
// depth) removes the member (nullopt), those above move down by `dropped`, those below stay.
std::optional<EClassId> renumbered(EGraph& g, const ENode& var, int32_t depth, int32_t dropFrom,
                                   int32_t dropped);

} // namespace egopt::egraph::detail
