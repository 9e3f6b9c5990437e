// Appliers that restructure folds: fold-interchange and fold-join (the steps of the tiled
// schedules' derivations) and a sequential fold over slices of its data; they rebind the
// folds' bodies under new binders (rebind, rebound: library_appliers.cpp).
#include "library_parts.hpp"

namespace egopt::egraph::detail {

namespace {

// A term applying the pattern function `op` (with index `ival`, e.g. Get(1)) to `args`.
TermId applyOp(TermArena& t, Op op, int32_t ival, std::vector<TermId> args) {
    TermNode f;
    f.op = op;
    f.ival = ival;
    return t.apply(t.add(std::move(f)), args);
}

// A copy of a fold-interchange body for its new binders: the body was under fun(p) inside
// fun((acc, t)) (p at `depth`, t at depth + 1, acc at depth + 2, which must not occur) and is
// put under fun((a, u)) inside fun(q) (u at `depth`, a at depth + 1, q at depth + 2), where p is
// Tuple $ (a, Get(0) $ u) and t is Get(1) $ u. Variables bound outside keep their indices.
std::optional<TermId> foldBody(const TermArena& in, TermId id, TermArena& out) {
    return rebind(in, id, 0, out, [](TermNode& v, int32_t depth, TermArena& t) {
        if (v.ival == depth) {
            TermId a = t.var(depth + 1), u = t.var(depth);
            return VarRewrite{false, applyOp(t, Op::Tuple, 2, {a, applyOp(t, Op::Get, 0, {u})})};
        }
        if (v.ival == depth + 1) {
            return VarRewrite{false, applyOp(t, Op::Get, 1, {t.var(depth)})};
        }
        return VarRewrite{v.ival == depth + 2, std::nullopt};
    });
}

// foldBody's rebinding for a member-keeping copy (rebound): p becomes Tuple $ (a, Get(0) $ u)
// and t Get(1) $ u, typed from foldInterchange's arguments (a is an element of ?z, u pairs an
// element of ?e with one of ?ts); a member using acc is left out.
// Only called (its types interned) when a member-keeping copy meets a rebound variable.
CopyVar foldBodyVar(EGraph& g, Args a) {
    EClassId z = a[2].eclass, e = a[1].eclass, ts = a[3].eclass;
    return [&g, z, e, ts](const ENode& v, int32_t depth) -> std::optional<EClassId> {
        int32_t rel = v.ival - depth;
        if (rel > 2) {
            return g.add(v); // bound outside: the same index
        }
        TypeId accElem = g.types.elemOf(g.data(z).type);
        TypeId eElem = g.types.elemOf(g.data(e).type);
        TypeId tElem = g.types.elemOf(g.data(ts).type);
        std::vector<TypeId> pair{eElem, tElem}, accPair{accElem, eElem};
        TypeId u = g.types.tuple(pair), p = g.types.tuple(accPair);
        const std::vector<TypeId>& types = g.attrOf(v).types;
        if (rel == 2 || (!types.empty() && types[0] != (rel == 0 ? p : tElem))) {
            return std::nullopt; // acc, or a variable of another context (member_copy.cpp)
        }
        TermArena t;
        TermId uVar = t.var(depth, u);
        TermId root = rel == 0
                          ? applyOp(t, Op::Tuple, 2,
                                    {t.var(depth + 1, accElem), applyOp(t, Op::Get, 0, {uVar})})
                          : applyOp(t, Op::Get, 1, {uVar});
        return g.addTerm(t, root);
    };
}

// foldInterchange(?body, ?e, ?z, ?ts) for
// Reduce(fun((acc, t) => Map(fun(p => ?body)) $ (Zip $ (acc, ?e)))) $ (?z, ?ts), a fold whose
// array accumulator is updated element by element, element i from acc[i] and ?e's i-th element
// (?e and ?body may use t, not acc): one fold per element,
// Transpose $ (Map(fun(q => Reduce(fun((a, u) => ?body')) $ (Get(0) $ q, Get(1) $ q))) $
//   (Zip $ (?z, Transpose $ (Map(fun(t => Map(fun(x => Tuple $ (x, t))) $ ?e)) $ ?ts))))
// where ?body' reads p as Tuple $ (a, Get(0) $ u) and t as Get(1) $ u (each element's fold
// carries its ?e element and the fold's element t). Folds keep their order: no condition on
// the operator. Declines when ?e or ?body uses acc.
std::optional<EClassId> foldInterchange(EGraph& g, Args a) {
    TermArena t;
    auto body = rebound(g, a[0].eclass, 0, foldBodyVar(g, a), foldBody, t);
    auto e = withoutSecond(g, a[1].eclass, t);
    if (!body || !e) {
        return std::nullopt;
    }
    // Per element x of ?e (under fun(t), so t is variable 1 under fun(x)): (x, t).
    TermId pair = applyOp(t, Op::Tuple, 2, {t.var(0), t.var(1)});
    TermId perT = mapOf(t, mapOf(t, pair, *e), t.ref(a[3].eclass));
    TermId columns = applyOp(t, Op::Transpose, 0, {perT});
    TermId zipped = applyOp(t, Op::Zip, 2, {t.ref(a[2].eclass), columns});
    TermNode reduce;
    reduce.op = Op::Reduce;
    reduce.children = {t.lambda({}, 2, *body)};
    TermId q = t.var(0);
    TermId fold =
        t.apply(t.add(std::move(reduce)),
                std::vector<TermId>{applyOp(t, Op::Get, 0, {q}), applyOp(t, Op::Get, 1, {q})});
    return g.addTerm(t, applyOp(t, Op::Transpose, 0, {mapOf(t, fold, zipped)}));
}

// A copy of a term without the binders of De Bruijn indices `depth + 2` and `depth + 3` (which
// must not occur): the two inner variables stay, those above the dropped ones move down by two.
std::optional<TermId> dropOuterPair(const TermArena& in, TermId id, TermArena& out) {
    return rebind(in, id, 0, out, [](TermNode& v, int32_t depth, TermArena&) {
        bool dropped = v.ival == depth + 2 || v.ival == depth + 3;
        if (v.ival > depth + 3) {
            v.ival -= 2;
        }
        return VarRewrite{dropped, std::nullopt};
    });
}

// foldJoin(?g, ?e, ?z, ?xs) for
// Reduce(fun((a, c) => Join $ (Reduce(fun((b, y) => ?g)) $ (a, ?e)))) $ (?z, ?xs): a fold whose
// step folds over the array ?e from the accumulator (an array: Join takes the inner fold's
// one-element result apart) is one fold over the concatenation,
// Reduce(fun((b, y) => ?g)) $ (?z, Join $ (Map(fun(c => ?e)) $ ?xs)). Declines when ?e uses a,
// or ?g uses a or c.
std::optional<EClassId> foldJoin(EGraph& g, Args a) {
    TermArena t;
    auto step = rebound(
        g, a[0].eclass, 2,
        [&g](const ENode& v, int32_t depth) { return renumbered(g, v, depth, 2, 2); },
        dropOuterPair, t);
    auto e = withoutSecond(g, a[1].eclass, t);
    if (!step || !e) {
        return std::nullopt;
    }
    TermId joined = applyOp(t, Op::Join, 0, {mapOf(t, *e, t.ref(a[3].eclass))});
    TermNode reduce;
    reduce.op = Op::Reduce;
    reduce.children = {t.lambda({}, 2, *step)};
    return g.addTerm(
        t, t.apply(t.add(std::move(reduce)), std::vector<TermId>{t.ref(a[2].eclass), joined}));
}

// A copy of a term moved under two more binders outside its two innermost ones: variables at
// `depth` and `depth + 1` stay, those bound outside move up by two.
std::optional<TermId> underOuterPair(const TermArena& in, TermId id, TermArena& out) {
    return rebind(in, id, 0, out, [](TermNode& v, int32_t depth, TermArena&) {
        if (v.ival >= depth + 2) {
            v.ival += 2;
        }
        return VarRewrite{};
    });
}

// seqFoldSlices(?g, ?z, ?x, #n) for ReduceSeq(fun((b, y) => ?g)) $ (?z, ?x) with an array
// accumulator: the fold over the slices of ?x, each step folding one slice from the accumulator
// (fold-join read from right to left),
// ReduceSeq(fun((a, s) => Join $ (ReduceSeq(fun((b, y) => ?g')) $ (a, s)))) $ (?z, Split(#n) $ ?x),
// ?g' under the two new binders. Declines for other accumulators (Join takes the inner fold's
// one-element result apart).
std::optional<EClassId> seqFoldSlices(EGraph& g, Args a) {
    if (!g.data(a[1].eclass).isData() || !g.types.isArray(g.data(a[1].eclass).type)) {
        return std::nullopt;
    }
    TermArena t;
    auto step = rebound(
        g, a[0].eclass, 2,
        [&g](const ENode& v, int32_t) -> std::optional<EClassId> {
            ENode out = v;
            out.ival += 2;
            return g.add(std::move(out));
        },
        underOuterPair, t);
    if (!step) {
        return std::nullopt;
    }
    TermNode inner;
    inner.op = Op::ReduceSeq;
    inner.children = {t.lambda({}, 2, *step)};
    TermId fold = t.apply(t.add(std::move(inner)), std::vector<TermId>{t.var(1), t.var(0)});
    TermNode outer;
    outer.op = Op::ReduceSeq;
    outer.children = {t.lambda({}, 2, applyOp(t, Op::Join, 0, {fold}))};
    TermNode split;
    split.op = Op::Split;
    split.sizes = {a[3].size};
    TermId slices = t.apply(t.add(std::move(split)), std::vector<TermId>{t.ref(a[2].eclass)});
    return g.addTerm(
        t, t.apply(t.add(std::move(outer)), std::vector<TermId>{t.ref(a[1].eclass), slices}));
}

} // namespace

void addFoldAppliers(Library& lib) {
    lib.appliers["foldInterchange"] = {
        {"cccc",
         "a fold of an array accumulator updated element by element as one fold per element"},
        foldInterchange};
    lib.appliers["foldJoin"] = {
        {"cccc",
         "a fold of folds continuing from the accumulator as one fold over the concatenation"},
        foldJoin};
    lib.appliers["seqFoldSlices"] = {
        {"cccs",
         "a sequential fold of an array accumulator as one over slices, each folded from it"},
        seqFoldSlices};
}

} // namespace egopt::egraph::detail
