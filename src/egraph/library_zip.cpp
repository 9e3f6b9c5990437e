// Appliers for maps over zips: a map whose function reads each pair only through one half maps
// that half's array alone (mapOfHalf). The pattern language cannot say "only through Get(1)":
// the function's body is copied with the projection replaced by the parameter.
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

} // namespace

void addZipAppliers(Library& lib) {
    lib.appliers["mapOfHalf"] = {
        {"ccn", "a map over a zip whose function reads only one half of the pairs (0 or 1), as a "
                "map over that half's array"},
        mapOfHalf};
}

} // namespace egopt::egraph::detail
