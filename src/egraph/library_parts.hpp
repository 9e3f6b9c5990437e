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
// fold-interchange, fold-join and folds over slices (library_folds.cpp).
void addFoldAppliers(Library& lib);

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

// What copying a term does with a variable bound inside the copied scope (`var`, seen at
// binder depth `depth`, where index `depth` is the innermost binder the copy starts under):
// `decline` ends the copy without a result, `replacement` puts a term in its place; otherwise
// the variable is kept, with whatever index the rewrite set in `var`.
struct VarRewrite {
    bool decline = false;
    std::optional<TermId> replacement;
};
using RewriteVar = std::function<VarRewrite(TermNode& var, int32_t depth, TermArena& out)>;

// A copy of a term in which each bound variable goes through `rewrite` (variables of e-classes,
// `eclass != kNoClass`, are leaves and stay); nullopt when the rewrite declines one
// (library_appliers.cpp).
std::optional<TermId> rebind(const TermArena& in, TermId id, int32_t depth, TermArena& out,
                             const RewriteVar& rewrite);

// A term of `t` for class `c` moved under other binders: with EGraph::keepMembersInCopies a
// reference to its member-keeping copy (`cutoff` and `var` rebind its variables), else
// `smallest` applied to its smallest term. nullopt when the copy declines (library_appliers.cpp).
using RebindTerm = std::function<std::optional<TermId>(const TermArena&, TermId, TermArena&)>;
std::optional<TermId> rebound(EGraph& g, EClassId c, int32_t cutoff, const CopyVar& var,
                              const RebindTerm& smallest, TermArena& t);

} // namespace egopt::egraph::detail
