// Matches that combine classes from different contexts (rewrite_parts.hpp, crossesContexts),
// read from the smallest terms' variable types that the e-graph keeps (var_types.cpp).
#include "rewrite_parts.hpp"

#include <algorithm>
#include <array>

namespace egopt::egraph::detail {

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
    VarTypeScratch scratch; // only for classes changed since the e-graph last settled them
    // The match's context, variable -> type: a few entries, searched in order (in place up to
    // kInline of them, as nearly always).
    constexpr size_t kInline = 16;
    std::array<VarType, kInline> inlineContext;
    std::vector<VarType> moreContext;
    std::span<VarType> context(inlineContext.data(), 0);
    auto add = [&](VarType vt) {
        if (context.size() < kInline) {
            inlineContext[context.size()] = vt;
            context = std::span(inlineContext.data(), context.size() + 1);
            return;
        }
        if (moreContext.empty()) {
            moreContext.assign(context.begin(), context.end());
        }
        moreContext.push_back(vt);
        context = std::span(moreContext);
    };
    for (size_t slot = 0; slot < s.classes.size(); ++slot) {
        EClassId c = s.classes[slot];
        if (c == kNoClass || slot >= rule.vars.depth.size() || !g.data(c).hasFreeVarAtLeast(0)) {
            continue;
        }
        int32_t depth = rule.vars.depth[slot];
        // The variables the left-hand side binds (below `depth`) must have one type in the
        // class's term too: another context's member may name them at other types.
        for (VarType vt : g.smallestVarTypes(c, scratch)) {
            if (vt.type == kMixedType) {
                return true;
            }
            if (vt.var < depth) {
                continue;
            }
            auto it = std::find_if(context.begin(), context.end(),
                                   [&](const VarType& k) { return k.var == vt.var - depth; });
            if (it == context.end()) {
                add({vt.var - depth, vt.type});
            } else if (it->type != vt.type) {
                return true;
            }
        }
    }
    return false;
}

} // namespace egopt::egraph::detail
