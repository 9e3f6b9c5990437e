// The parts of applying a match that both paths share (generators, the merge), and the parallel
// apply phase's two halves (docs/egraph.md, "Parallel apply"): planning a match's
// right-hand side on the frozen e-graph (any thread; the runner plans a window of matches in
// parallel), and applying the plan in order.
#include "egopt/egraph/runner.hpp"
#include "rewrite_parts.hpp"

#include <algorithm>
#include <chrono>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

namespace {

// detail::paramTypes(g, c) == types, without building the list (once per applied plan).
bool sameParamTypes(const EGraph& g, EClassId c, const std::vector<TypeId>& types) {
    const FunSig& f = g.data(c).fun;
    if (f.kind != FunSig::Kind::Mono) {
        return types.empty();
    }
    return std::equal(f.params.begin(), f.params.end(), types.begin(), types.end());
}

} // namespace

void detail::drawSizes(const EGraph& g, const Rule& rule, const Library& lib, TuningSpace& tuning,
                       Subst& s) {
    std::string key; // only generators memoize by it
    if (!rule.generators.empty()) {
        key = rule.name;
        for (EClassId c : s.classes) {
            key += ":" + std::to_string(c);
        }
    }
    for (const auto& [var, call] : rule.generators) {
        s.sizes[var] = lib.generators.at(call.name).second(g, tuning, key, resolve(call, s));
    }
}

bool detail::mergeRhs(EGraph& g, const Rule& rule, RewriteContext& ctx, const Match& m,
                      EClassId rhs) {
    const Subst& s = m.subst;
    EClassId lhs = g.find(m.eclass);
    if (g.explanations) { // the exact left-hand term, so the derivation can show it
        try {
            TermArena t;
            lhs = g.addTerm(t, instantiate(rule.lhs, rule.vars, s, t), paramTypes(g, lhs));
        } catch (const TypeError&) {
            // The matched term is well-typed, but a lambda inside a length-polymorphic
            // function (Map(fun(x => ...)) unapplied) cannot be retyped from the pattern: the
            // derivation then starts from the class's own term rather than the exact one.
        }
    }
    try {
        // The rule's id names it in explanations, the only reader of a justification: without
        // them, no lookup by name per application.
        RuleId id = g.explanations ? ctx.rules.id(rule.name) : 0;
        return g.merge(lhs, rhs, {Justification::Kind::Rule, id});
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, lhs, rhs);
    }
}

bool plannable(const Rule& rule) {
    return rule.rhs && !rule.applier && rule.computed.empty();
}

void planMatch(EGraph& g, const Rule& rule, const Library& lib, TuningSpace& scratch, size_t known,
               const Match& m, PlannedMatch& out, TermArena& terms, PlanTypeMemo* memo) {
    out.ok = false;
    // The plan's vectors are reused (assigned, not replaced): no allocation per plan.
    Subst s;
    s.classes.swap(out.classes);
    s.classes.assign(m.subst.classes.begin(), m.subst.classes.end());
    s.sizes = m.subst.sizes;
    for (auto& c : s.classes) {
        c = c == kNoClass ? c : g.findConst(c);
    }
    // A match that crosses contexts is not planned: applied in order, where buildRhs leaves it
    // out.
    if (!detail::crossesContexts(g, rule, s)) {
        try {
            detail::drawSizes(g, rule, lib, scratch, s);
            // A variable the copy gained, for this match or an earlier one, may be numbered
            // differently in the real space by the time this match is applied.
            out.drewTuning = !rule.generators.empty() && scratch.numConstraints() != known;
            detail::paramTypesInto(g, m.eclass, out.rootArgTypes);
            out.root = g.findConst(m.eclass);
            terms.clear();
            TermId root = instantiate(*rule.rhs, rule.vars, s, terms);
            out.ok = g.planTerm(terms, root, out.rootArgTypes, out.plan, memo);
        } catch (const std::exception&) {
            out.ok = false; // a type the frozen arena lacks, an ill-typed side: built in order
        }
    }
    out.classes.swap(s.classes);
    out.sizes = std::move(s.sizes);
}

bool applyPlanned(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx, Match& m,
                  const PlannedMatch& p, bool* asPlanned) {
    if (!p.ok || g.explanations) {
        return applyMatchInPlace(g, rule, lib, ctx, m);
    }
    Subst& s = m.subst;
    // A class the plan read canonical that no merge has absorbed since is still the root (its
    // bit is read, not the union-find).
    for (size_t i = 0; i < s.classes.size(); ++i) {
        EClassId& c = s.classes[i];
        if (c != kNoClass) {
            c = g.stillRoot(p.classes[i]) ? p.classes[i] : g.find(c);
        }
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
    // Parameter types change only with the class's data, in a merge.
    if (!g.unchangedSinceTracking(p.root) && !sameParamTypes(g, m.eclass, p.rootArgTypes)) {
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

void Runner::planWindow(const Rule& rule, std::span<const Match> window,
                        std::span<PlannedMatch> plans) {
    // Frozen: planners read the e-graph and the type arena on every thread, and a type that is
    // missing makes its match unplanned instead of being added in thread order.
    g_.types.freeze(true);
    struct Thaw {
        lift::TypeArena& types;
        ~Thaw() { types.freeze(false); }
    } thaw{g_.types};
    g_.trackDataChanges(true); // from here, merges mark what they change
    g_.settleVarTypes();       // the context check of every planner reads them
    // Plans vary in cost (shifting extracts terms): small ranges balance the threads, but a
    // rule with generators copies the tuning space once per range.
    const size_t grain = rule.generators.empty() ? 16 : 64;
    const size_t known = ctx_.tuning.constraints().size();
    // Each thread's types of this window (the e-graph changes before the next): a thread
    // empties its memo when it first plans in this window.
    if (!planMemos_) {
        planMemos_ = std::make_unique<tbb::enumerable_thread_specific<PlanTypeMemo>>();
    }
    const uint64_t windowNumber = ++plannedWindows_;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, window.size(), grain),
                      [&](const tbb::blocked_range<size_t>& range) {
                          auto start = std::chrono::steady_clock::now();
                          TuningSpace scratch;
                          if (!rule.generators.empty()) {
                              scratch = TuningSpace::over(ctx_.tuning);
                          }
                          TermArena terms; // reused by the range's matches
                          PlanTypeMemo& memo = planMemos_->local().forWindow(windowNumber);
                          for (size_t j = range.begin(); j < range.end(); ++j) {
                              plans[j].ok = false;
                              if (!window[j].subst.unchanged) { // those are mostly skipped
                                  planMatch(g_, rule, lib_, scratch, known, window[j], plans[j],
                                            terms, &memo);
                              }
                          }
                          planNanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            std::chrono::steady_clock::now() - start)
                                            .count();
                      });
}

} // namespace egopt::egraph
