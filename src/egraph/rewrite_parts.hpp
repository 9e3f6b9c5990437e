// Internal: the parts of applying a match that the sequential path (rewrite.cpp) and the
// planned one (rewrite_plan.cpp) share.
#pragma once

#include "egopt/egraph/rewrite.hpp"

namespace egopt::egraph::detail {

std::vector<ArgValue> resolve(const Call& call, const Subst& s);

// The parameter types of a function class with a known signature: they type a lambda at the
// root of an instantiated side (`fun(x => ?f $ x)`), which no application surrounds.
std::vector<TypeId> paramTypes(const EGraph& g, EClassId c);
// paramTypes into `out`, whose memory it keeps.
void paramTypesInto(const EGraph& g, EClassId c, std::vector<TypeId>& out);

// The generators' sizes, drawn from `tuning`, into `s` (whose classes are canonical).
void drawSizes(const EGraph& g, const Rule& rule, const Library& lib, TuningSpace& tuning,
               Subst& s);

// Merges the right-hand side `rhs` with the match's class (with explanations, through the
// exact left-hand term); true if the e-graph changed.
bool mergeRhs(EGraph& g, const Rule& rule, RewriteContext& ctx, const Match& m, EClassId rhs);

// Whether the match combines classes from different contexts: the smallest terms of two of
// its variables' classes give a variable of the match's context two types. A class that does
// not depend on a variable is shared by every context that holds it, and a rule that dropped a
// subterm (`Map(Get(0)) $ (Zip $ (?a, ?b))` is ?a) left a member naming ?b's variables there,
// at their types in ?b's context; a match through that member in another context (map fusion
// over ?a's class, with ?f from the other context) would build a term whose variables are
// bound at other types, which a later substitution turns into an ill-typed term. Such a match
// is not applied (match_scope.cpp).
bool crossesContexts(const EGraph& g, const Rule& rule, const Subst& s);

// A rule whose right-hand side is ill-typed: a BadInput error naming the rule, with both terms
// (or, given `s`, the match's variables) and their types.
[[noreturn]] void ruleBug(const EGraph& g, const Rule& rule, const TypeError& e, EClassId lhs,
                          EClassId rhs, const Subst* s = nullptr);

} // namespace egopt::egraph::detail
