// The binder checks of e-matching (match_binders.hpp).
#include "match_binders.hpp"

namespace egopt::egraph::detail {

MatchBinders::MatchBinders(const EGraph& g, const Pattern& p)
    : g_(g), p_(p), binder_(p.nodes.size(), {0, -1}), lambdaTypes_(p.nodes.size(), nullptr) {
    Scope scope;
    findBinders(p.root, scope);
}

// For each bound variable of the pattern, the lambda that binds it and its position there.
void MatchBinders::findBinders(PatId id, Scope& scope) {
    const PatNode& pn = p_.nodes[id];
    if (pn.kind == PatNode::Kind::BoundVar) {
        if (pn.ival >= 0 && static_cast<size_t>(pn.ival) < scope.size()) {
            binder_[id] = scope[scope.size() - 1 - static_cast<size_t>(pn.ival)];
        }
        return;
    }
    if (pn.kind == PatNode::Kind::ClassVar) {
        if (!scope.empty()) {
            scoped_.push_back({id, scope});
        }
        return;
    }
    size_t before = scope.size();
    if (pn.kind == PatNode::Kind::Node && pn.op == Op::Lambda) {
        for (int32_t i = 0; i < pn.ival; ++i) {
            scope.emplace_back(id, i);
        }
    }
    for (PatId c : pn.children) {
        findBinders(c, scope);
    }
    scope.resize(before);
}

bool MatchBinders::typeMatches(PatId pid, const ENode& n) const {
    auto [lam, pos] = binder_[pid];
    const std::vector<TypeId>* types = pos >= 0 ? lambdaTypes_[lam] : nullptr;
    const Attr& a = g_.attrOf(n);
    if (!types || static_cast<size_t>(pos) >= types->size() || a.types.empty()) {
        return true;
    }
    return a.types[0] == (*types)[static_cast<size_t>(pos)];
}

// A class variable under the pattern's lambdas matches a class only if the class's smallest
// term gives those lambdas' variables their parameter types. A class that does not depend on
// a variable is one class in every context that holds it, so it may hold a member built in
// another context, where the variable of the same index has another type (map-get-zip-first
// leaves `Map(fun(u => Get(0) $ u)) $ (Zip $ (?a, Transpose $ x))` in ?a's class): matched
// through a lambda that binds x at another type, that member would be copied under a new
// binder of the lambda's type (flat-distribute-nest), a lambda whose body uses its variable
// at another type. Only the smallest term is read (EGraph::smallestVarTypes), as
// crossesContexts does for the variables the pattern does not bind. Checked once the match
// is whole (every lambda of the pattern is still matched then): reading a class's data for
// every partial match cost mm's saturation 5-10%.
bool MatchBinders::agreeScoped(const Subst& s) const {
    for (const auto& [pid, scope] : scoped_) {
        EClassId cls = s.classes[p_.nodes[pid].slot];
        ClassData d = g_.data(cls);
        if (d.freeVars.empty() || d.freeVars.front() >= static_cast<int32_t>(scope.size())) {
            continue;
        }
        VarTypeScratch scratch; // used only where the e-graph has not settled the list
        for (VarType vt : g_.smallestVarTypes(cls, scratch)) {
            if (vt.var >= static_cast<int32_t>(scope.size())) {
                break; // sorted by variable: the rest are free in the whole pattern
            }
            auto [lam, pos] = scope[scope.size() - 1 - static_cast<size_t>(vt.var)];
            const std::vector<TypeId>* types = lambdaTypes_[lam];
            if (types && static_cast<size_t>(pos) < types->size() &&
                vt.type != (*types)[static_cast<size_t>(pos)]) {
                return false; // also where the term gives the variable two types
            }
        }
    }
    return true;
}

} // namespace egopt::egraph::detail
