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

// A term of `t` for class `c` moved under other binders: with EGraph::keepMembersInCopies a
// reference to its member-keeping copy (`cutoff` and `var` rebind its variables), else
// `smallest` applied to its smallest term. nullopt when the copy declines.
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
    lib.appliers["reduceFission"] = {
        {"cccc", "reduce-map fission of a fused function whose second argument is used once"},
        reduceFission};
}

} // namespace egopt::egraph::detail
