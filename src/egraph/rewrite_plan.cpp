// The parallel apply phase's two halves (docs/egraph.md, "Parallel apply"): planning a match's
// right-hand side on the frozen e-graph (any thread), and applying the plan in order.
#include "rewrite_parts.hpp"

namespace egopt::egraph {

bool plannable(const Rule& rule) {
    return rule.rhs && !rule.applier && rule.computed.empty();
}

void planMatch(EGraph& g, const Rule& rule, const Library& lib, TuningSpace& scratch,
               const Match& m, PlannedMatch& out) {
    out.ok = false;
    Subst s = m.subst;
    for (auto& c : s.classes) {
        c = c == kNoClass ? c : g.findConst(c);
    }
    try {
        size_t before = scratch.constraints().size();
        detail::drawSizes(g, rule, lib, scratch, s);
        out.drewTuning = scratch.constraints().size() != before;
        out.rootArgTypes = detail::paramTypes(g, m.eclass);
        TermArena t;
        TermId root = instantiate(*rule.rhs, rule.vars, s, t);
        out.ok = g.planTerm(t, root, out.rootArgTypes, out.plan);
    } catch (const std::exception&) {
        out.ok = false; // a type the frozen arena lacks, an ill-typed side: built in order
    }
    out.classes = std::move(s.classes);
    out.sizes = std::move(s.sizes);
}

bool applyPlanned(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx, Match& m,
                  const PlannedMatch& p, bool* asPlanned) {
    if (!p.ok || g.explanations) {
        return applyMatchInPlace(g, rule, lib, ctx, m);
    }
    Subst& s = m.subst;
    for (auto& c : s.classes) {
        c = c == kNoClass ? c : g.find(c);
    }
    // The generators give what they gave the plan, and change nothing, where the plan's copy of
    // the tuning space had every variable and their classes are the same.
    if (p.drewTuning || s.classes != p.classes) {
        detail::drawSizes(g, rule, lib, ctx.tuning, s);
        if (s.sizes != p.sizes) {
            return applyMatchInPlace(g, rule, lib, ctx, m); // draws the same sizes again
        }
    } else {
        s.sizes = p.sizes;
    }
    if (detail::paramTypes(g, m.eclass) != p.rootArgTypes) {
        return applyMatchInPlace(g, rule, lib, ctx, m);
    }
    std::optional<EClassId> rhs;
    try {
        rhs = g.replayPlan(p.plan);
    } catch (const TypeError& e) {
        detail::ruleBug(g, rule, e, g.find(m.eclass), e.a != kNoClass ? e.a : kNoClass, &s);
    }
    if (!rhs) { // a merge since planning changed what the plan read
        return applyMatchInPlace(g, rule, lib, ctx, m);
    }
    if (asPlanned) {
        *asPlanned = true;
    }
    return detail::mergeRhs(g, rule, ctx, m, *rhs);
}

} // namespace egopt::egraph
