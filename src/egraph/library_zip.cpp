// Appliers for maps over zips: a map whose function reads each pair only through one half maps
// that half's array alone (mapOfHalf). The pattern language cannot say "only through Get(1)":
// the function's body is copied with the projection replaced by the parameter. And a fold
// over pairs whose step reads both halves from copies made once per step (stagedSlices).
#include "library_parts.hpp"

namespace egopt::egraph::detail {

namespace {

using Args = std::span<const ArgValue>;

// A copy of a term in which `Get(half) $ q` (q the variable at `depth`) is a variable of type
// `elem` at the same index; nullopt when q occurs otherwise, or as a pair whose half is not an
// `elem`: a member that another context, where the variable has another type, left in a class
// the body shares (docs/egraph.md, "Binders").
std::optional<TermId> halfOnly(const lift::TypeArena& types, const TermArena& in, TermId id,
                               int32_t depth, int32_t half, TypeId elem, TermArena& out) {
    TermNode n = in.at(id);
    auto isQ = [&](TermId c) {
        const TermNode& v = in.at(c);
        return v.op == Op::Param && v.eclass == kNoClass && v.ival == depth;
    };
    if (n.op == Op::Apply && n.children.size() == 2 && in.at(n.children[0]).op == Op::Get &&
        in.at(n.children[0]).ival == half && isQ(n.children[1])) {
        const TermNode& q = in.at(n.children[1]);
        if (!q.types.empty()) {
            const lift::TypeNode& pair = types.at(q.types[0]);
            if (pair.kind != lift::TypeKind::Tuple ||
                pair.elems.size() <= static_cast<size_t>(half) || pair.elems[half] != elem) {
                return std::nullopt;
            }
        }
        return out.var(depth, elem);
    }
    if (isQ(id)) {
        return std::nullopt;
    }
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (TermId& c : n.children) {
        auto r = halfOnly(types, in, c, inner, half, elem, out);
        if (!r) {
            return std::nullopt;
        }
        c = *r;
    }
    return out.add(std::move(n));
}

// mapOfHalf(?body, ?b, 1) for Map(fun(q => ?body)) $ (Zip $ (?a, ?b)) where ?body reads q only
// as Get(1) $ q: Map(fun(y => ?body')) $ ?b, ?body' reading y in its place (Zip takes arrays of
// one length, so the map has as many elements); mapOfHalf(?body, ?a, 0) the same for Get(0). The
// body's smallest term is copied, also where a derivation keeps members in copies
// (EGraph::keepMembersInCopies): with a member-keeping copy (every member whose variables have the
// smallest term's types) the local tiles' lifting stage met an ill-typed redex, a lambda over pairs
// applied to an array (measured 2026-11-27). Declines when the smallest term reads q otherwise;
// applied again, it sees the smaller term that an application inside the body made (the local
// tiles: innermost zip first).
std::optional<EClassId> mapOfHalf(EGraph& g, Args a) {
    auto half = static_cast<int32_t>(a[2].number);
    if (half != 0 && half != 1) {
        return std::nullopt;
    }
    TermArena smallest;
    TermId root = g.extract(a[0].eclass, smallest);
    TermArena t;
    auto body =
        halfOnly(g.types, smallest, root, 0, half, g.types.elemOf(g.data(a[1].eclass).type), t);
    if (!body) {
        return std::nullopt;
    }
    return g.addTerm(t, mapOverClass(t, Op::Map, *body, a[1].eclass));
}

// A copy of a fold step's body (t, the step's element, at `depth`) under two more binders
// fun((u, v)) between the step's binders and the body: `Get(0) $ t` becomes u (the variable at
// depth + 1), `Get(1) $ t` v (at `depth`), every variable bound outside the body moves up by
// two. A projection that is a toLocal copy's argument (a slice staged already) stays, shifted.
// `reads` counts the projections replaced per half; nullopt when t's type shows a half that is
// not of `halves` (a member of another context, as in halfOnly) or the term references a class.
struct Halves {
    TypeId types[2];
    size_t reads[2] = {0, 0};
};
std::optional<TermId> throughCopies(const lift::TypeArena& types, const TermArena& in, TermId id,
                                    int32_t depth, bool replace, TermArena& out, Halves& h) {
    TermNode n = in.at(id);
    if (n.eclass != kNoClass) {
        return std::nullopt;
    }
    if (replace && n.op == Op::Apply && n.children.size() == 2 &&
        in.at(n.children[0]).op == Op::Get && in.at(n.children[0]).ival <= 1) {
        const TermNode& q = in.at(n.children[1]);
        auto half = static_cast<size_t>(in.at(n.children[0]).ival);
        if (q.op == Op::Param && q.eclass == kNoClass && q.ival == depth) {
            if (!q.types.empty()) {
                const lift::TypeNode& pair = types.at(q.types[0]);
                if (pair.kind != lift::TypeKind::Tuple || pair.elems.size() != 2 ||
                    pair.elems[0] != h.types[0] || pair.elems[1] != h.types[1]) {
                    return std::nullopt;
                }
            }
            ++h.reads[half];
            return out.var(depth + (half == 0 ? 1 : 0), h.types[half]);
        }
    }
    if (n.op == Op::Param && n.ival >= depth) {
        n.ival += 2;
    }
    bool copy = n.op == Op::Apply && !n.children.empty() && in.at(n.children[0]).op == Op::ToLocal;
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (TermId& c : n.children) {
        auto r = throughCopies(types, in, c, inner, replace && !copy, out, h);
        if (!r) {
            return std::nullopt;
        }
        c = *r;
    }
    return out.add(std::move(n));
}

// toLocal(Map(Map(id))) $ (Get(half) $ t), t the variable at `depth`: a copy of a slice (a
// matrix of `elem`s) in local memory; nullopt when `elem` has no identity.
std::optional<TermId> localCopy(EGraph& g, TypeId matrix, int32_t half, int32_t depth,
                                TermArena& t) {
    if (!g.types.isArray(matrix) || !g.types.isArray(g.types.elemOf(matrix))) {
        return std::nullopt;
    }
    auto id = identityTerm(g, g.types.elemOf(g.types.elemOf(matrix)), t);
    if (!id) {
        return std::nullopt;
    }
    TermId f = *id;
    for (int i = 0; i < 2; ++i) {
        TermNode m;
        m.op = Op::Map;
        m.children = {f};
        f = t.add(std::move(m));
    }
    TermNode local;
    local.op = Op::ToLocal;
    local.children = {f};
    TermNode get;
    get.op = Op::Get;
    get.ival = half;
    TermId v = t.var(depth);
    TermId slice = t.apply(t.add(std::move(get)), std::span<const TermId>(&v, 1));
    return t.apply(t.add(std::move(local)), std::span<const TermId>(&slice, 1));
}

// stagedSlices(?g, ?z, ?x, ?y) for ReduceSeq(fun((acc, t) => ?g)) $ (?z, Zip $ (?x, ?y)):
// ReduceSeq(fun((acc, t) => (fun((u, v) => ?g')) $ (toLocal(Map(Map(id))) $ (Get(0) $ t),
// toLocal(Map(Map(id))) $ (Get(1) $ t)))) $ (?z, Zip $ (?x, ?y)), ?g' reading u in place of
// Get(0) $ t and v in place of Get(1) $ t (stage-fold-slices in staging.rules): both slices are
// copied once per step and every read of them in the step reads the copies. The whole right-hand
// side is built here: a class bound by `where` is a term of the rule's top level, which the
// right-hand side would shift under the step's binders. The body's smallest term is copied.
// Declines unless it reads each half somewhere other than in a toLocal copy (staged already).
std::optional<EClassId> stagedSlices(EGraph& g, Args a) {
    const ClassData& x = g.data(a[2].eclass);
    const ClassData& y = g.data(a[3].eclass);
    if (!x.isData() || !y.isData() || !g.types.isArray(x.type) || !g.types.isArray(y.type)) {
        return std::nullopt;
    }
    Halves h{{g.types.elemOf(x.type), g.types.elemOf(y.type)}};
    TermArena smallest;
    TermId root = g.extract(a[0].eclass, smallest);
    TermArena t;
    auto body = throughCopies(g.types, smallest, root, 0, true, t, h);
    if (!body || h.reads[0] == 0 || h.reads[1] == 0) {
        return std::nullopt;
    }
    auto copyX = localCopy(g, h.types[0], 0, 0, t);
    auto copyY = localCopy(g, h.types[1], 1, 0, t);
    if (!copyX || !copyY) {
        return std::nullopt;
    }
    TermId staged =
        t.apply(t.lambda({h.types[0], h.types[1]}, 2, *body), std::vector<TermId>{*copyX, *copyY});
    TermNode fold;
    fold.op = Op::ReduceSeq;
    fold.children = {t.lambda({}, 2, staged)};
    TermNode zip;
    zip.op = Op::Zip;
    zip.ival = 2;
    std::vector<TermId> halves{t.ref(a[2].eclass), t.ref(a[3].eclass)};
    TermId pairs = t.apply(t.add(std::move(zip)), halves);
    return g.addTerm(
        t, t.apply(t.add(std::move(fold)), std::vector<TermId>{t.ref(a[1].eclass), pairs}));
}

} // namespace

void addZipAppliers(Library& lib) {
    lib.appliers["mapOfHalf"] = {
        {"ccn", "a map over a zip whose function reads only one half of the pairs (0 or 1), as a "
                "map over that half's array"},
        mapOfHalf};
    lib.appliers["stagedSlices"] = {
        {"cccc", "a fold over the pairs of two arrays of matrices whose step reads both halves "
                 "from copies in local memory made once per step"},
        stagedSlices};
}

} // namespace egopt::egraph::detail
