// Planning a term's insertion on a frozen e-graph, and inserting the plan later (docs/egraph.md,
// "Parallel apply"). planRec follows addTermRec node by node, in its order, with the same
// attributes and types, but reads only: a node whose lookup finds an e-node is left out (added
// again with the same children it would change nothing), every other node becomes a step that
// replayPlan adds. What the plan took from the e-graph is listed with it, so that a replay after
// merges that changed any of it is refused and the caller builds the term as before.
#include "egopt/egraph/egraph.hpp"
#include "egopt/lift/pattern_typing.hpp"

#include <algorithm>

namespace egopt::egraph {

namespace {

bool isStep(EClassId ref) {
    return (ref & TermPlan::kStep) != 0;
}

// Whether make() gives a node of this operator a data class (else a function's).
bool makesData(Op op) {
    return op == Op::Param || op == Op::Literal || op == Op::Generate || op == Op::Apply;
}

// The term needs something a plan cannot tell without inserting (a step's type, a new
// attribute); the caller builds it sequentially.
struct NotPlanned {};

} // namespace

struct EGraph::PlanState {
    TermPlan& plan;
    std::vector<TypeId> typed; // by step, planType's answers so far (kNoType: not yet)
    PlanTypeMemo* memo = nullptr;
};

bool EGraph::planTerm(const TermArena& terms, TermId root, std::span<const TypeId> argTypes,
                      TermPlan& out, PlanTypeMemo* memo) {
    // Cleared, not reassigned: a window's plans keep their vectors' memory for the next window
    // (fewer allocations, and no frees across threads).
    out.steps.clear();
    out.types.clear();
    out.roots.clear();
    out.settled.clear();
    out.hashes.clear();
    out.root = kNoClass;
    PlanState st{out, {}, memo};
    std::vector<TypeId> env;
    try {
        out.root = planRec(terms, root, argTypes, env, st);
        // The applications' types, which make() would infer while inserting.
        out.types.assign(out.steps.size(), lift::kNoType);
        for (size_t i = 0; i < out.steps.size(); ++i) {
            if (out.steps[i].op == Op::Apply && appliesData(out.steps[i], st)) {
                try {
                    out.types[i] = planType(TermPlan::kStep | static_cast<uint32_t>(i), st);
                } catch (const NotPlanned&) {
                } catch (const std::exception&) {
                }
            }
        }
        return true;
    } catch (const NotPlanned&) {
    } catch (const std::exception&) { // TypeError, ScopeError, TypeArena::Frozen
    }
    return false;
}

uint32_t EGraph::planRec(const TermArena& t, TermId id, std::span<const TypeId> argTypes,
                         std::vector<TypeId>& env, PlanState& st) {
    const TermNode& n = t.at(id);
    if (env.size() > kMaxTermDepth) {
        throw NotPlanned{};
    }
    if (n.eclass != kNoClass) {
        return planShift(n.eclass, n.shift, st);
    }
    ENode e;
    e.op = n.op;
    e.ival = n.ival;
    Attr attr{n.sizes, n.types};
    switch (n.op) {
    case Op::Param:
        if (attr.types.empty()) {
            if (n.ival < 0 || static_cast<size_t>(n.ival) >= env.size()) {
                throw NotPlanned{};
            }
            attr.types = {env[env.size() - 1 - static_cast<size_t>(n.ival)]};
        }
        break;
    case Op::Lambda: {
        if (attr.types.empty()) {
            attr.types.assign(argTypes.begin(), argTypes.end());
        }
        if (attr.types.size() != static_cast<size_t>(n.ival)) {
            throw NotPlanned{};
        }
        env.insert(env.end(), attr.types.begin(), attr.types.end());
        EClassId body = planRec(t, n.children.at(0), {}, env, st);
        env.resize(env.size() - attr.types.size());
        e.children.push_back(body);
        break;
    }
    case Op::Apply: {
        // Inline lists (up to three, no allocation): planning runs on every thread.
        InlineVec<EClassId> argRefs;
        for (size_t i = 1; i < n.children.size(); ++i) {
            argRefs.push_back(planRec(t, n.children[i], {}, env, st));
        }
        // The argument types type a function built here (a lambda, a pattern over one); a class
        // in function position ignores them (addTermRec shifts it).
        InlineVec<TypeId> args;
        if (t.at(n.children.at(0)).eclass == kNoClass) {
            for (EClassId r : argRefs) {
                args.push_back(planType(r, st));
            }
        }
        e.children.push_back(planRec(t, n.children.at(0), args, env, st));
        for (EClassId r : argRefs) {
            e.children.push_back(r);
        }
        break;
    }
    default: {
        std::vector<TypeId> childArgs =
            argTypes.empty() ? std::vector<TypeId>{} : childArgTypes(n.op, n.sizes, argTypes);
        for (TermId c : n.children) {
            e.children.push_back(planRec(t, c, childArgs, env, st));
        }
        break;
    }
    }
    std::optional<AttrId> a = attrs_.find(attr);
    if (!a) {
        throw NotPlanned{}; // interning it here would number attributes in another order
    }
    e.attr = *a;
    return planAdd(std::move(e), st);
}

// shift(c, by) without inserting: the smallest term it would shift, planned.
uint32_t EGraph::planShift(EClassId c, int32_t by, PlanState& st) {
    c = findConst(c);
    if (by == 0) {
        return c;
    }
    st.plan.settled.push_back(c); // its free variables and smallest term decide
    if (!data(c).hasFreeVarAtLeast(0)) {
        return c;
    }
    if (by < 0) {
        for (int32_t v : smallestTermFreeVars(c)) {
            if (v >= 0 && v < -by) {
                throw NotPlanned{}; // a ScopeError: the caller finds it again
            }
        }
    }
    TermArena in;
    TermId root = extract(c, in, &st.plan.settled);
    TermArena out;
    TermId shifted = shiftTerm(in, root, by, 0, out);
    std::vector<TypeId> env;
    return planRec(out, shifted, {}, env, st);
}

uint32_t EGraph::planAdd(ENode e, PlanState& st) {
    bool overClasses = std::none_of(e.children.begin(), e.children.end(), isStep);
    uint32_t hash = 0;
    if (overClasses) {
        canonicalizeInPlace(e);
        hash = NodeTable::hashOf(e);
        uint32_t ref = memo_.find(e, hash, store_);
        if (ref != NodeTable::kNone) {
            // Found with these children: found again while they stay roots.
            st.plan.roots.insert(st.plan.roots.end(), e.children.begin(), e.children.end());
            return findConst(store_[ref].id);
        }
    }
    // Over a step (a class the replay creates) or not found: the replay adds it.
    st.plan.steps.push_back(std::move(e));
    st.plan.hashes.push_back(hash);
    return TermPlan::kStep | static_cast<uint32_t>(st.plan.steps.size() - 1);
}

// The type make() would give a step (a class: its type), where that needs no inserting.
TypeId EGraph::planType(uint32_t ref, PlanState& st) {
    if (!isStep(ref)) {
        return data(ref).type;
    }
    size_t i = ref & ~TermPlan::kStep;
    if (i < st.typed.size() && st.typed[i] != lift::kNoType) {
        return st.typed[i];
    }
    TypeId t = stepType(st.plan.steps[i], st);
    st.typed.resize(std::max(st.typed.size(), i + 1), lift::kNoType);
    st.typed[i] = t;
    return t;
}

TypeId EGraph::stepType(const ENode& n, PlanState& st) {
    switch (n.op) {
    case Op::Param:
        return attrs_.at(n.attr).types.at(0);
    case Op::Literal:
        return literals.at(static_cast<size_t>(n.ival)).type;
    case Op::Apply: {
        std::vector<TypeId> args;
        for (size_t i = 1; i < n.children.size(); ++i) {
            args.push_back(planType(n.children[i], st));
        }
        return planResult(n.children.at(0), args, st);
    }
    default:
        throw NotPlanned{};
    }
}

// compute(), or its answer for the key in st.memo->key (the function) and `args`: a pure
// function of the frozen e-graph. Failures are not kept (they throw again).
template <typename Compute>
TypeId EGraph::memoType(PlanState& st, std::span<const TypeId> args, Compute compute) {
    if (!st.memo) {
        return compute();
    }
    std::vector<uint32_t>& key = st.memo->key;
    key.insert(key.end(), args.begin(), args.end());
    if (auto it = st.memo->types.find(key); it != st.memo->types.end()) {
        return it->second;
    }
    std::vector<uint32_t> kept = key; // compute() may look up other keys
    TypeId t = compute();
    st.memo->types.emplace(std::move(kept), t);
    return t;
}

// resultOf for a class or step: a step's node is its class's first member.
TypeId EGraph::planResult(uint32_t fn, std::span<const TypeId> args, PlanState& st) {
    if (!isStep(fn)) {
        if (data(fn).isData()) {
            throw NotPlanned{};
        }
        if (st.memo) {
            st.memo->key.assign({kNoClass, findConst(fn)});
        }
        return memoType(st, args, [&] { return resultOf(fn, args); });
    }
    const ENode& f = st.plan.steps[fn & ~TermPlan::kStep];
    if (f.op == Op::Lambda) {
        const Attr& a = attrs_.at(f.attr);
        if (!std::equal(args.begin(), args.end(), a.types.begin(), a.types.end())) {
            throw NotPlanned{};
        }
        return planType(f.children.at(0), st);
    }
    if (std::none_of(f.children.begin(), f.children.end(), isStep)) {
        if (st.memo) {
            std::vector<uint32_t>& key = st.memo->key;
            key.assign({static_cast<uint32_t>(f.op), static_cast<uint32_t>(f.ival), f.attr,
                        static_cast<uint32_t>(f.children.size())});
            key.insert(key.end(), f.children.begin(), f.children.end());
        }
        return memoType(st, args, [&] { return patternResult(f, args); });
    }
    // A pattern over a step (Map(fun(...))): patternResult's typing, its children planned.
    class PlanSite final : public lift::TypingSite {
    public:
        PlanSite(EGraph& g, const ENode& fn, PlanState& st) : g_(g), fn_(fn), st_(st) {}
        lift::TypeArena& types() override { return g_.types; }
        TypeId applyChild(size_t i, std::span<const TypeId> args) override {
            return g_.planResult(fn_.children.at(i), args, st_);
        }
        TypeId childValueType(size_t i) override { return g_.planType(fn_.children.at(i), st_); }
        bool childIsFunction(size_t i) const override {
            EClassId c = fn_.children.at(i);
            return isStep(c) ? !makesData(st_.plan.steps[c & ~TermPlan::kStep].op)
                             : !g_.data(c).isData();
        }
        std::string describe() const override { return {}; }
        std::string describeChild(size_t) const override { return {}; }
        [[noreturn]] void fail(const std::string&) const override { throw NotPlanned{}; }
        bool iterateMayResize() const override { return false; }

    private:
        EGraph& g_;
        const ENode& fn_;
        PlanState& st_;
    };
    PlanSite site(*this, f, st);
    lift::PatternUse use{f.op, f.ival, attrs_.at(f.attr).sizes, f.children.size()};
    return lift::typePattern(site, use, args);
}

// make()'s checks on an application: a function applied to data (else make throws its error).
bool EGraph::appliesData(const ENode& n, PlanState& st) const {
    auto isData = [&](EClassId c) {
        return isStep(c) ? makesData(st.plan.steps[c & ~TermPlan::kStep].op) : data(c).isData();
    };
    return !isData(n.children.at(0)) &&
           std::all_of(n.children.begin() + 1, n.children.end(), isData);
}

std::optional<EClassId> EGraph::replayPlan(const TermPlan& plan) {
    // The plan's classes were roots when planned: stillRoot reads a bit, not the union-find.
    for (EClassId c : plan.roots) {
        if (!stillRoot(c)) {
            return std::nullopt;
        }
    }
    for (EClassId c : plan.settled) {
        if (!stillRoot(c) || (c < dataChanged_.size() && dataChanged_[c])) {
            return std::nullopt;
        }
    }
    std::vector<EClassId>& made = replayMade_;
    // By step: it made a new class that no node has as a child yet. A node over such a class
    // is not in the hashcons: it is added without a lookup.
    std::vector<bool>& fresh = replayFresh_;
    made.clear();
    fresh.clear();
    for (size_t i = 0; i < plan.steps.size(); ++i) {
        ENode n = plan.steps[i];
        bool overFresh = false;
        bool overSteps = false;
        bool canonical = true; // over classes that are still roots: the planned form and hash
        for (EClassId& k : n.children) {
            if (isStep(k)) {
                overSteps = true;
                overFresh = overFresh || fresh[k & ~TermPlan::kStep];
                k = made[k & ~TermPlan::kStep];
            } else {
                canonical = canonical && stillRoot(k);
            }
        }
        for (EClassId k : plan.steps[i].children) {
            if (isStep(k)) {
                fresh[k & ~TermPlan::kStep] = false;
            }
        }
        size_t ids = parent_.size();
        if (!overSteps && canonical) {
            // Not in the hashcons when planned, and the same node now: only a node added since
            // can be it.
            uint32_t hash = plan.hashes[i];
            made.push_back(addNode(std::move(n), plan.types[i], mayHaveAdded(hash), hash));
        } else {
            made.push_back(addNode(std::move(n), plan.types[i], !overFresh));
        }
        fresh.push_back(parent_.size() > ids);
    }
    return isStep(plan.root) ? made[plan.root & ~TermPlan::kStep] : plan.root;
}

} // namespace egopt::egraph
