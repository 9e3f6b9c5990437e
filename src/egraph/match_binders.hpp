// The binder checks of e-matching (pattern.cpp's Matcher): the types of the De Bruijn variables
// a pattern's lambdas bind, compared with what a match binds under them (docs/egraph.md,
// "Binders").
#pragma once

#include "egopt/egraph/pattern.hpp"

#include <utility>
#include <vector>

namespace egopt::egraph::detail {

class MatchBinders {
public:
    MatchBinders(const EGraph& g, const Pattern& p);
    // While lambda node `lam` of the pattern is matched: its e-node's parameter types (null
    // otherwise); the matcher sets and restores it.
    const std::vector<TypeId>*& lambdaTypes(PatId lam) { return lambdaTypes_[lam]; }
    // A variable node matches a bound variable only if its type is the binder's parameter type:
    // a class shared between contexts (a closed class after beta) may hold a variable of the
    // same index from another lambda.
    bool typeMatches(PatId pid, const ENode& n) const;
    // Whether the classes that `s` binds to the class variables under the pattern's lambdas
    // agree with the lambdas' parameter types (match_binders.cpp says why).
    bool agree(const Subst& s) const { return scoped_.empty() || agreeScoped(s); }

private:
    using Scope = std::vector<std::pair<PatId, int32_t>>; // (lambda, parameter), innermost last
    void findBinders(PatId id, Scope& scope);
    bool agreeScoped(const Subst& s) const;

    const EGraph& g_;
    const Pattern& p_;
    std::vector<std::pair<PatId, int32_t>> binder_;       // by bound-variable PatId
    std::vector<const std::vector<TypeId>*> lambdaTypes_; // by lambda PatId, while matched
    // The class-variable nodes under the pattern's lambdas, each with those binders as binder_
    // gives them (innermost last).
    std::vector<std::pair<PatId, Scope>> scoped_;
};

} // namespace egopt::egraph::detail
