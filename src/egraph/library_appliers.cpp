// Appliers for right-hand sides that patterns cannot express: inserting a copy (a map of the
// identity user function, needed before a result can be placed in local or global memory),
// map-map interchange of a body that uses both lambda parameters (De Bruijn indices swap), and
// the vector literal that broadcasts a scalar literal (a vectorised reduction's initial value).
#include "library_parts.hpp"

#include <functional>

namespace egopt::egraph::detail {

namespace {

using Args = std::span<const ArgValue>;

// The builtin identity user function on a scalar or float4 element, if there is one.
std::optional<lift::UserFunDecl> identityFor(lift::TypeArena& t, TypeId elem) {
    const auto& n = t.at(elem);
    const char* name = nullptr;
    if (n.kind == lift::TypeKind::Scalar && n.scalar == lift::ScalarKind::Float) {
        name = "id";
    } else if (n.kind == lift::TypeKind::Scalar && n.scalar == lift::ScalarKind::Int) {
        name = "idI";
    } else if (n.kind == lift::TypeKind::Vector && n.scalar == lift::ScalarKind::Float &&
               n.width == 4) {
        name = "idF4";
    } else {
        return std::nullopt;
    }
    lift::UserFunDecl d;
    d.name = name;
    d.paramNames = {"x"};
    d.paramTypes = {elem};
    d.returnType = elem;
    d.body = "{ return x; }";
    d.builtin = true;
    return d;
}

// copyOf(?g, ?args...): Map(...Map(id)) $ (?g $ ?args), copying every element of the result.
std::optional<EClassId> copyOf(EGraph& g, Args a) {
    TermArena t;
    std::vector<TermId> args;
    for (size_t i = 1; i < a.size(); ++i) {
        args.push_back(t.ref(a[i].eclass));
    }
    EClassId result = g.addTerm(t, t.apply(t.ref(a[0].eclass), args));
    TypeId ty = g.data(result).type;
    if (!g.data(result).isData() || !g.types.isArray(ty)) {
        return std::nullopt;
    }
    int depth = 0;
    for (; g.types.isArray(ty); ty = g.types.elemOf(ty)) {
        ++depth;
    }
    TermArena c;
    std::optional<TermId> id = identityTerm(g, ty, c);
    if (!id) {
        return std::nullopt;
    }
    TermId f = *id;
    for (int i = 0; i < depth; ++i) {
        TermNode m;
        m.op = Op::Map;
        m.children = {f};
        f = c.add(std::move(m));
    }
    TermId arg = c.ref(result);
    return g.addTerm(c, c.apply(f, std::span<const TermId>(&arg, 1)));
}

// What copying a term does with a variable bound inside the copied scope (`var`, seen at
// binder depth `depth`, where index `depth` is the innermost binder the copy starts under):
// `decline` ends the copy without a result, `replacement` puts a term in its place; otherwise
// the variable is kept, with whatever index the rewrite set in `var`.
struct VarRewrite {
    bool decline = false;
    std::optional<TermId> replacement;
};
using RewriteVar = std::function<VarRewrite(TermNode& var, int32_t depth, TermArena& out)>;

// A copy of a term in which each bound variable goes through `rewrite` (variables of e-classes,
// `eclass != kNoClass`, are leaves and stay); nullopt when the rewrite declines one.
std::optional<TermId> rebind(const TermArena& in, TermId id, int32_t depth, TermArena& out,
                             const RewriteVar& rewrite) {
    TermNode n = in.at(id);
    if (n.op == Op::Param && n.eclass == kNoClass) {
        VarRewrite r = rewrite(n, depth, out);
        if (r.decline) {
            return std::nullopt;
        }
        if (r.replacement) {
            return *r.replacement;
        }
    }
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (TermId& c : n.children) {
        auto r = rebind(in, c, inner, out, rewrite);
        if (!r) {
            return std::nullopt;
        }
        c = *r;
    }
    return out.add(std::move(n));
}

// A copy of a term with De Bruijn variables `depth` and `depth + 1` exchanged.
TermId swapInner(const TermArena& in, TermId id, TermArena& out) {
    return *rebind(in, id, 0, out, [](TermNode& v, int32_t depth, TermArena&) {
        if (v.ival == depth) {
            v.ival = depth + 1;
        } else if (v.ival == depth + 1) {
            v.ival = depth;
        }
        return VarRewrite{};
    });
}

TermId mapOf(TermArena& t, TermId body, TermId arg) {
    TermNode m;
    m.op = Op::Map;
    m.children = {t.lambda({}, 1, body)};
    TermId fn = t.add(std::move(m));
    return t.apply(fn, std::span<const TermId>(&arg, 1));
}

// interchange(?body, ?x, ?y) for Map(fun(a => Map(fun(b => ?body)) $ ?y)) $ ?x:
// Transpose $ (Map(fun(b => Map(fun(a => ?body')) $ ?x)) $ ?y), ?body' with a and b swapped.
// Declines when ?y uses a (the inner array must exist outside the outer lambda).
std::optional<EClassId> interchange(EGraph& g, Args a) {
    EClassId y = kNoClass;
    try {
        y = g.shift(a[2].eclass, -1);
    } catch (const ScopeError&) {
        return std::nullopt;
    }
    TermArena body;
    TermId root = g.extract(a[0].eclass, body);
    TermArena t;
    TermId swapped = swapInner(body, root, t);
    TermId inner = mapOf(t, swapped, t.ref(a[1].eclass, 1));
    TermId outer = mapOf(t, inner, t.ref(y));
    TermNode tr;
    tr.op = Op::Transpose;
    TermId trId = t.add(std::move(tr));
    return g.addTerm(t, t.apply(trId, std::span<const TermId>(&outer, 1)));
}

// A copy of a term without the binder of De Bruijn index `depth + 1` (which must not occur):
// the variable at `depth` stays, those above the dropped one move down by one.
std::optional<TermId> dropSecond(const TermArena& in, TermId id, TermArena& out) {
    return rebind(in, id, 0, out, [](TermNode& v, int32_t depth, TermArena&) {
        bool dropped = v.ival == depth + 1;
        if (v.ival > depth + 1) {
            --v.ival;
        }
        return VarRewrite{dropped, std::nullopt};
    });
}

// A term of `t` for class `c` moved under other binders: with EGraph::keepMembersInCopies a
// reference to its member-keeping copy (`cutoff` and `var` rebind its variables), else
// `smallest` applied to its smallest term. nullopt when the copy declines.
using RebindTerm = std::function<std::optional<TermId>(const TermArena&, TermId, TermArena&)>;
std::optional<TermId> rebound(EGraph& g, EClassId c, int32_t cutoff, const CopyVar& var,
                              const RebindTerm& smallest, TermArena& t) {
    if (g.keepMembersInCopies) {
        bool exhausted = false;
        std::optional<EClassId> copy = copyKeepingMembers(g, c, cutoff, var, exhausted);
        if (!exhausted) {
            return copy ? std::optional<TermId>(t.ref(*copy)) : std::nullopt;
        }
    }
    TermArena in;
    TermId root = g.extract(c, in);
    return smallest(in, root, t);
}

// rebound() for dropSecond: the binder at depth + 1 goes.
std::optional<TermId> withoutSecond(EGraph& g, EClassId c, TermArena& t) {
    return rebound(
        g, c, 1, [&g](const ENode& v, int32_t depth) { return renumbered(g, v, depth, 1, 1); },
        dropSecond, t);
}

// reduceFission(?f, ?e, ?z, ?x) for ReduceSeq(fun((a, y) => ?f $ (a, ?e))) $ (?z, ?x) where ?e
// uses y but not a: ReduceSeq(?f) $ (?z, MapSeq(fun(y => ?e)) $ ?x). The reverse of
// reduce-map-fusion after the fused function was beta-reduced (its body is no longer ?g $ y).
std::optional<EClassId> reduceFission(EGraph& g, Args a) {
    EClassId f = kNoClass;
    try {
        f = g.shift(a[0].eclass, -2);
    } catch (const ScopeError&) {
        return std::nullopt;
    }
    TermArena t;
    auto e = withoutSecond(g, a[1].eclass, t);
    if (!e) {
        return std::nullopt;
    }
    TermId mapped = mapOverClass(t, Op::MapSeq, *e, a[3].eclass);
    TermNode rs;
    rs.op = Op::ReduceSeq;
    rs.children = {t.ref(f)};
    TermId rsId = t.add(std::move(rs));
    std::vector<TermId> args{t.ref(a[2].eclass), mapped};
    return g.addTerm(t, t.apply(rsId, args));
}

} // namespace

TermId mapOverClass(TermArena& t, Op map, TermId body, EClassId arg) {
    TermNode m;
    m.op = map;
    m.children = {t.lambda({}, 1, body)};
    TermId fn = t.add(std::move(m));
    TermId x = t.ref(arg);
    return t.apply(fn, std::span<const TermId>(&x, 1));
}

// The builtin identity user function on `elem`, as a term of `t`; nullopt when there is none
// (declared in library_parts.hpp).
std::optional<TermId> identityTerm(EGraph& g, TypeId elem, TermArena& t) {
    auto id = identityFor(g.types, elem);
    if (!id) {
        return std::nullopt;
    }
    TermNode fun;
    fun.op = Op::UserFun;
    fun.ival = static_cast<int32_t>(g.internUserFun(*id));
    return t.add(std::move(fun));
}

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

// broadcast(?z, w): the literal that ?z holds, as a vector of width w with that value in every
// lane (a vector literal, `Value("0.0f", Float8)`). Declines when ?z holds no scalar literal or
// the width is not a constant in 2..16.
std::optional<EClassId> broadcast(EGraph& g, Args a) {
    auto w = a[1].size.constant();
    if (!w || *w < 2 || *w > 16) {
        return std::nullopt;
    }
    for (ENodeId n : g.eclass(a[0].eclass).nodes) {
        const ENode& e = g.node(n);
        if (e.op != Op::Literal) {
            continue;
        }
        lift::LiteralDecl lit = g.literals.at(static_cast<size_t>(e.ival));
        const auto& t = g.types.at(lit.type);
        if (t.kind != lift::TypeKind::Scalar) {
            continue;
        }
        TypeId vec = g.types.vector(t.scalar, static_cast<uint32_t>(*w));
        TermArena out;
        TermNode node;
        node.op = Op::Literal;
        node.ival = static_cast<int32_t>(g.internLiteral(vec, lit.text));
        return g.addTerm(out, out.add(std::move(node)));
    }
    return std::nullopt;
}

// identityOf(?z): the identity user function on the type of ?z's values (float, int, float4),
// to copy a reduction's result into local or global memory in a macro's right-hand side
// (toLocal(MapSeq(?id)) $ ...); `id` in rule syntax is the Id view, which copies nothing.
std::optional<EClassId> identityOf(EGraph& g, Args a) {
    if (!g.data(a[0].eclass).isData()) {
        return std::nullopt;
    }
    TermArena t;
    std::optional<TermId> id = identityTerm(g, g.data(a[0].eclass).type, t);
    if (!id) {
        return std::nullopt;
    }
    return g.addTerm(t, *id);
}

// elementIdentityOf(?x): the identity user function on the scalars of the array ?x (at its
// innermost level), for a copy of an array a right-hand side writes itself:
// `toLocal(Map(Map(?id))) $ block` (stage-local, staging.rules); declines other element types.
std::optional<EClassId> elementIdentityOf(EGraph& g, Args a) {
    const ClassData& d = g.data(a[0].eclass);
    if (!d.isData() || !g.types.isArray(d.type)) {
        return std::nullopt;
    }
    TypeId ty = d.type;
    while (g.types.isArray(ty)) {
        ty = g.types.elemOf(ty);
    }
    TermArena t;
    std::optional<TermId> id = identityTerm(g, ty, t);
    if (!id) {
        return std::nullopt;
    }
    return g.addTerm(t, *id);
}

} // namespace

void addStructuralAppliers(Library& lib) {
    lib.appliers["broadcast"] = {
        {"cs", "the scalar literal of the class as a vector literal of the width (every lane)"},
        broadcast};
    lib.appliers["copyOf"] = {
        {"c+", "Map(..Map(id)) $ (?g $ ?args): a copy of the result (float, int, float4 data)"},
        copyOf};
    lib.appliers["identityOf"] = {
        {"c", "the identity user function on the type of the class's values (float, int, float4)"},
        identityOf};
    lib.appliers["elementIdentityOf"] = {
        {"c", "the identity user function on the scalars of the array (float, int, float4)"},
        elementIdentityOf};
    lib.appliers["interchange"] = {
        {"ccc", "map-map interchange through Transpose of a body using both parameters"},
        interchange};
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
    lib.appliers["reduceFission"] = {
        {"cccc", "reduce-map fission of a fused function whose second argument is used once"},
        reduceFission};
}

} // namespace egopt::egraph::detail
