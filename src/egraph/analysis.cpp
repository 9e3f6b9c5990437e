// The e-class analyses (make and merge hooks): type or function signature, free De Bruijn
// variables, constant outer length, and the smallest member term; and their propagation to
// parents when a rebuild changed a class's data.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <bit>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

namespace {

constexpr uint64_t kCostCap = uint64_t(1) << 50;

InlineVec<int32_t> unite(const InlineVec<int32_t>& a, const InlineVec<int32_t>& b) {
    InlineVec<int32_t> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

// `into` ∪= `from` (both sorted); true if `into` grew. No allocation when `from` adds nothing,
// the common case (a class's members use the same variables).
bool uniteInto(InlineVec<int32_t>& into, const InlineVec<int32_t>& from) {
    if (std::includes(into.begin(), into.end(), from.begin(), from.end())) {
        return false;
    }
    into = into.empty() ? from : unite(into, from);
    return true;
}

} // namespace

ClassFacts EGraph::make(const ENode& n, TypeId applyType) {
    ClassFacts d = remake(n); // cost, free variables, a lambda's or user function's signature
    const Attr& a = attrs_.at(n.attr);
    switch (n.op) {
    case Op::Param:
        d.type = a.types.at(0);
        break;
    case Op::Literal:
        d.type = literals.at(static_cast<size_t>(n.ival)).type;
        break;
    case Op::Generate: {
        // The generator's user function (the child class) gives the element type.
        ClassData f = dataOf(n.children.at(0));
        d.type = f.fun.result;
        for (size_t i = a.sizes.size(); i-- > 0;) {
            d.type = types.array(d.type, a.sizes[i]);
        }
        break;
    }
    case Op::Apply: {
        InlineVec<TypeId> args; // no allocation for up to three arguments
        for (size_t i = 1; i < n.children.size(); ++i) {
            ClassData cd = dataOf(n.children[i]);
            if (!cd.isData()) {
                throw TypeError("argument " + std::to_string(i) +
                                " of an application is a function");
            }
            args.push_back(cd.type);
        }
        if (dataOf(n.children.at(0)).isData()) {
            throw TypeError("applying a value that is not a function");
        }
        d.type = applyType != lift::kNoType
                     ? applyType
                     : resultOf(n.children[0], std::span<const TypeId>(args.data(), args.size()));
        break;
    }
    case Op::Lambda:
        if (!dataOf(n.children.at(0)).isData()) {
            throw TypeError("the body of a lambda is a function");
        }
        break;
    case Op::UserFun:
        break;
    default:
        d.fun.kind = isIndexFunction(n.op) ? FunSig::Kind::Index : FunSig::Kind::Poly;
        break;
    }
    return d;
}

// make's cost, free variables and signature, which are all that mergeData reads of it: no type
// inference. A class's type never changes on merges, and a node's signature depends only on its
// operator, attribute and the types of its children, so re-deriving the type of every parent of
// a class whose data changed (most of rebuilding's time on mm) would find what make found.
ClassFacts EGraph::remake(const ENode& n) const {
    ClassFacts d;
    uint64_t cost = 1;
    // The children's free variables united as a bit set while every index is below 64 (nearly
    // always), and the sorted list built once: uniting list by list allocated a list per child
    // once a set outgrew the three inline values (arith's sums use up to eleven variables).
    uint64_t bits = 0;
    bool small = true;
    for (EClassId c : n.children) {
        ClassData cd = dataOf(findConst(c));
        cost = std::min(kCostCap, cost + cd.cost);
        if (n.op != Op::Lambda) {
            for (int32_t v : cd.freeVars) {
                small = small && v >= 0 && v < 64;
                bits |= small ? uint64_t(1) << v : 0;
            }
        }
    }
    if (small) {
        for (; bits != 0; bits &= bits - 1) {
            d.freeVars.push_back(std::countr_zero(bits));
        }
    } else {
        for (EClassId c : n.children) {
            uniteInto(d.freeVars, dataOf(findConst(c)).freeVars);
        }
    }
    d.cost = cost;
    switch (n.op) {
    case Op::Param:
        d.freeVars = {n.ival};
        break;
    case Op::Lambda: {
        ClassData body = dataOf(findConst(n.children.at(0)));
        for (int32_t v : body.freeVars) {
            if (v >= n.ival) {
                d.freeVars.push_back(v - n.ival);
            }
        }
        d.fun = {attrs_.at(n.attr).types, body.type, FunSig::Kind::Mono};
        break;
    }
    case Op::UserFun: {
        const auto& decl = userFuns.at(static_cast<size_t>(n.ival));
        d.fun = {decl.paramTypes, decl.returnType, FunSig::Kind::Mono};
        break;
    }
    default:
        break;
    }
    return d;
}

bool EGraph::wouldChange(EClassId into, const ClassFacts& from) const {
    const ClassSlot& k = cls(into);
    const Shape& s = shapes_[k.shape];
    return (s.fun.kind == FunSig::Kind::Poly && from.fun.kind == FunSig::Kind::Mono) ||
           !std::includes(s.freeVars.begin(), s.freeVars.end(), from.freeVars.begin(),
                          from.freeVars.end()) ||
           std::pair(from.cost, from.best) < std::pair(costOf(into), k.best);
}

bool EGraph::mergeData(EClassId into, const FunSig& fun, const InlineVec<int32_t>& freeVars,
                       uint64_t cost, ENodeId best) {
    bool changed = false;
    ClassSlot& k = cls(into);
    const Shape& s = shapes_[k.shape];
    bool filled = s.fun.kind == FunSig::Kind::Poly && fun.kind == FunSig::Kind::Mono;
    bool grown =
        !std::includes(s.freeVars.begin(), s.freeVars.end(), freeVars.begin(), freeVars.end());
    if (filled || grown) {
        Shape next{filled ? fun : s.fun, s.freeVars, s.type};
        uniteInto(next.freeVars, freeVars);
        k.shape = shapes_.intern(next);
        changed = true;
    }
    if (std::pair(cost, best) < std::pair(costOf(into), k.best)) {
        setCost(into, cost);
        k.best = best;
        changed = true;
    }
    return changed;
}

void EGraph::checkCompatible(EClassId a, EClassId b) const {
    ClassData x = dataOf(a);
    ClassData y = dataOf(b);
    std::string why;
    if (x.isData() != y.isData()) {
        why = "a value and a function";
    } else if (x.isData() && x.type != y.type) {
        why = "types " + types.show(x.type) + " and " + types.show(y.type);
    } else if (x.fun.kind == FunSig::Kind::Mono && y.fun.kind == FunSig::Kind::Mono &&
               x.fun != y.fun) {
        why = "functions of different signatures";
    }
    if (!why.empty()) {
        throw TypeError("cannot equate " + why, a, b);
    }
}

TypeId EGraph::resultOf(EClassId fn, std::span<const TypeId> args) {
    fn = findConst(fn); // no path compression: planners call it concurrently (planTerm)
    const ClassSlot& k = cls(fn);
    if (shapes_[k.shape].fun.kind == FunSig::Kind::Index) {
        throw TypeError("an index function is applied to data");
    }
    // Any member gives the same type; the first is the oldest, hence deterministic.
    std::span<const ENodeId> members = membersOf(k);
    if (members.empty()) {
        throw std::logic_error("resultOf: a class without members");
    }
    ENode n = canonicalize(node(members[0]));
    return patternResult(n, args);
}

std::optional<int64_t> EGraph::constLength(EClassId c) const {
    TypeId t = data(c).type;
    if (t == lift::kNoType || !types.isArray(t)) {
        return std::nullopt;
    }
    return types.lengthOf(t).constant();
}

std::string EGraph::showType(EClassId c) const {
    const ClassData& d = data(c);
    if (d.isData()) {
        return types.show(d.type);
    }
    if (d.fun.kind != FunSig::Kind::Mono) {
        return "function";
    }
    std::string out = "(";
    for (size_t i = 0; i < d.fun.params.size(); ++i) {
        out += (i ? ", " : "") + types.show(d.fun.params[i]);
    }
    return out + ") -> " + types.show(d.fun.result);
}

// Rounds over the classes whose data changed: each offers its parents' nodes (remake) to their
// classes. The offers of a round are computed in parallel against the data the round began
// with and kept only where they would change it (data only grows: an offer that changes
// nothing now changes nothing later in the round), then merged in class and parent order. The
// analysis is a monotone join (union of free variables, minimum of (cost, best), a signature
// only ever filled in), so the data it settles on does not depend on the order of the offers:
// the result is the one a worklist in any order reaches, for any thread count.
void EGraph::propagateAnalysis() {
    struct Offer {
        EClassId into;
        ClassFacts data;
    };
    std::vector<EClassId> round;
    std::vector<ENodeId> parents;
    while (!analysisPending_.empty()) {
        round.swap(analysisPending_);
        analysisPending_.clear();
        rootSet(round);
        parents.clear();
        for (EClassId c : round) {
            std::span<const ENodeId> ps = parentsOf(cls(c));
            parents.insert(parents.end(), ps.begin(), ps.end());
        }
        // Chunks of fixed size with a result slot each, read back in order: the offers are the
        // same for any thread count.
        constexpr size_t kChunk = 512;
        std::vector<std::vector<Offer>> offers((parents.size() + kChunk - 1) / kChunk);
        auto offer = [&](size_t chunk) {
            size_t end = std::min(parents.size(), (chunk + 1) * kChunk);
            for (size_t i = chunk * kChunk; i < end; ++i) {
                ENodeId p = parents[i];
                ClassFacts fresh = remake(node(p));
                fresh.best = p;
                EClassId pc = findConst(p);
                if (wouldChange(pc, fresh)) {
                    offers[chunk].push_back({pc, std::move(fresh)});
                }
            }
        };
        if (offers.size() > 1) {
            tbb::parallel_for(size_t(0), offers.size(), offer);
        } else if (!offers.empty()) {
            offer(0);
        }
        for (auto& chunk : offers) {
            for (Offer& o : chunk) {
                const ClassFacts& d = o.data;
                ENodeId best = cls(o.into).best;
                VarTypesId varTypes = cls(o.into).varTypes;
                if (mergeData(o.into, d.fun, d.freeVars, d.cost, d.best)) {
                    analysisPending_.push_back(o.into);
                    if (cls(o.into).best != best) {
                        varTypesOnNewBest(o.into, varTypes);
                    }
                }
            }
        }
    }
}

} // namespace egopt::egraph
