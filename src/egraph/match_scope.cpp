// Matches that combine classes from different contexts (rewrite_parts.hpp, crossesContexts).
#include "rewrite_parts.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace egopt::egraph::detail {

namespace {

// A variable's type in a smallest term, or kMixed where the term gives it two types.
constexpr TypeId kMixed = lift::kNoType - 1;

// The free variables of a class's smallest term (indexed from the class's root) with their
// types, sorted by index. Computed bottom up over the smallest members, so a class reached
// twice is read once: its result does not depend on where it is reached.
using VarTypes = std::vector<std::pair<int32_t, TypeId>>;

void addVar(VarTypes& vars, int32_t v, TypeId t) {
    auto it = std::lower_bound(vars.begin(), vars.end(), std::pair{v, TypeId(0)},
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    if (it != vars.end() && it->first == v) {
        it->second = it->second == t ? t : kMixed;
    } else {
        vars.insert(it, {v, t});
    }
}

const VarTypes& smallestVarTypes(const EGraph& g, EClassId cls,
                                 std::unordered_map<EClassId, VarTypes>& done, size_t depth) {
    cls = g.findConst(cls);
    if (auto it = done.find(cls); it != done.end()) {
        return it->second;
    }
    if (depth > kMaxTermDepth) {
        throw TypeError("extraction nested too deeply");
    }
    const ENode& n = g.originalNode(g.data(cls).best);
    VarTypes vars;
    if (n.op == Op::Param && !g.attrOf(n).types.empty()) {
        vars.emplace_back(n.ival, g.attrOf(n).types[0]);
    }
    // A lambda binds n.ival variables: its body's index v is v - n.ival outside.
    int32_t bound = n.op == Op::Lambda ? n.ival : 0;
    for (EClassId child : n.children) {
        for (auto [v, t] : smallestVarTypes(g, child, done, depth + 1)) {
            if (v >= bound) {
                addVar(vars, v - bound, t);
            }
        }
    }
    return done.emplace(cls, std::move(vars)).first->second;
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
    std::unordered_map<EClassId, VarTypes> done;
    std::map<int32_t, TypeId> context; // the match's context: variable -> type
    for (size_t slot = 0; slot < s.classes.size(); ++slot) {
        EClassId c = s.classes[slot];
        if (c == kNoClass || slot >= rule.vars.depth.size() || !g.data(c).hasFreeVarAtLeast(0)) {
            continue;
        }
        int32_t depth = rule.vars.depth[slot];
        // The variables the left-hand side binds (below `depth`) must have one type in the
        // class's term too: another context's member may name them at other types.
        for (auto [v, type] : smallestVarTypes(g, c, done, 0)) {
            if (type == kMixed) {
                return true;
            }
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
