// Matches that combine classes from different contexts (rewrite_parts.hpp, crossesContexts).
#include "rewrite_parts.hpp"

#include <map>

namespace egopt::egraph::detail {

namespace {

// The types of the variables free in a term, indexed from the term's root; false where the
// term itself gives one variable two types.
bool collectVarTypes(const TermArena& t, TermId id, int32_t depth, std::map<int32_t, TypeId>& out) {
    const TermNode& n = t.at(id);
    if (n.op == Op::Param && n.ival >= depth && !n.types.empty()) {
        auto [it, fresh] = out.emplace(n.ival - depth, n.types[0]);
        if (!fresh && it->second != n.types[0]) {
            return false;
        }
    }
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (TermId child : n.children) {
        if (!collectVarTypes(t, child, inner, out)) {
            return false;
        }
    }
    return true;
}

} // namespace

bool crossesContexts(const EGraph& g, const Rule& rule, const Subst& s) {
    // Only a match binding two classes that use variables can combine contexts.
    size_t open = 0;
    for (size_t slot = 0; slot < s.classes.size(); ++slot) {
        EClassId c = s.classes[slot];
        open += c != kNoClass && slot < rule.vars.depth.size() && g.data(c).hasFreeVarAtLeast(0);
    }
    if (open < 2) {
        return false;
    }
    std::map<int32_t, TypeId> context; // the match's context: variable -> type
    for (size_t slot = 0; slot < s.classes.size(); ++slot) {
        EClassId c = s.classes[slot];
        if (c == kNoClass || slot >= rule.vars.depth.size()) {
            continue;
        }
        int32_t depth = rule.vars.depth[slot];
        if (!g.data(c).hasFreeVarAtLeast(0)) {
            continue;
        }
        // The variables the left-hand side binds (below `depth`) must have one type in the
        // class's term too: another context's member may name them at other types.
        TermArena t;
        std::map<int32_t, TypeId> vars;
        if (!collectVarTypes(t, g.extract(c, t), 0, vars)) {
            return true;
        }
        for (auto [v, type] : vars) {
            if (v < depth) {
                continue;
            }
            auto [it, fresh] = context.emplace(v - depth, type);
            if (!fresh && it->second != type) {
                return true;
            }
        }
    }
    return false;
}

} // namespace egopt::egraph::detail
