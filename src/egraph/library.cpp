// The built-in conditions, generators and appliers that rule files refer to by name.
#include "library_parts.hpp"

#include <algorithm>

namespace egopt::egraph {

const arith::Size* detail::outerLength(const EGraph& g, EClassId c) {
    const ClassData& d = g.data(c);
    if (!d.isData() || !g.types.isArray(d.type)) {
        return nullptr;
    }
    return &g.types.lengthOf(d.type);
}

namespace {

using detail::outerLength;

// The length of the elements of an array of arrays (in the type arena, as outerLength's).
const arith::Size* innerLength(const EGraph& g, EClassId c) {
    const ClassData& d = g.data(c);
    if (!d.isData() || !g.types.isArray(d.type) || !g.types.isArray(g.types.elemOf(d.type))) {
        return nullptr;
    }
    return &g.types.lengthOf(g.types.elemOf(d.type));
}

// The tuning variable of every split of an array of length `len` (one per length, see tuning).
arith::Size splitVar(TuningSpace& tuning, const arith::Size& len) {
    return tuning.splitVariable(len);
}

using Args = std::span<const ArgValue>;

// Substitutes the arguments for the lambda's k parameters in a copy of its body term.
TermId substitute(const TermArena& in, TermId id, std::span<const ArgValue> args, int32_t depth,
                  TermArena& out) {
    TermNode n = in.at(id);
    auto k = static_cast<int32_t>(args.size());
    if (n.op == Op::Param && n.eclass == kNoClass && n.ival >= depth) {
        int32_t rel = n.ival - depth;
        if (rel < k) {
            return out.ref(args[static_cast<size_t>(k - 1 - rel)].eclass, depth);
        }
        n.ival -= k;
    }
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (TermId& c : n.children) {
        c = substitute(in, c, args, inner, out);
    }
    return out.add(std::move(n));
}

// The values v for which class c holds `Get(i) $ v`.
std::vector<EClassId> projected(const EGraph& g, EClassId c, int32_t i) {
    std::vector<EClassId> out;
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& e = g.node(n);
        if (e.op != Op::Apply || e.children.size() != 2) {
            continue;
        }
        for (ENodeId f : g.eclass(e.children[0]).nodes) {
            if (g.node(f).op == Op::Get && g.node(f).ival == i) {
                out.push_back(g.findConst(e.children[1]));
            }
        }
    }
    return out;
}

// x holds `Get(0) $ v` and y holds `Get(1) $ v` for one value v: (x, y) is v's own pair. A rule
// that builds a zip from a pair's parts (`map-pair-zip`) refuses it: its right-hand side's map
// has that pair, and would match again without end.
bool pairOfOneValue(const EGraph& g, EClassId x, EClassId y) {
    std::vector<EClassId> firsts = projected(g, x, 0);
    std::vector<EClassId> seconds = projected(g, y, 1);
    return std::any_of(seconds.begin(), seconds.end(), [&](EClassId v) {
        return std::find(firsts.begin(), firsts.end(), v) != firsts.end();
    });
}

// Conditions on sizes and shapes that the catalogue's rules state.
void addShapeConditions(Library& lib) {
    lib.conditions["notPairOf"] = {{"cc", "the two classes are not Get(0) and Get(1) of one value"},
                                   [](const EGraph& g, const SizeFacts&, Args a) {
                                       return !pairOfOneValue(g, a[0].eclass, a[1].eclass);
                                   }};
    lib.conditions["same"] = {{"cc", "both variables denote the same e-class"},
                              [](const EGraph& g, const SizeFacts&, Args a) {
                                  return g.findConst(a[0].eclass) == g.findConst(a[1].eclass);
                              }};
    lib.conditions["lengthIs"] = {{"cs", "the array's outer length is this size"},
                                  [](const EGraph& g, const SizeFacts&, Args a) {
                                      auto n = outerLength(g, a[0].eclass);
                                      return n && *n == a[1].size;
                                  }};
    lib.conditions["innerLengthKnown"] = {
        {"c", "the class is an array of arrays"}, [](const EGraph& g, const SizeFacts&, Args a) {
            const ClassData& d = g.data(a[0].eclass);
            return d.isData() && g.types.isArray(d.type) && g.types.isArray(g.types.elemOf(d.type));
        }};
    lib.conditions["sizeDivides"] = {{"ss", "the first size provably divides the second"},
                                     [](const EGraph&, const SizeFacts& facts, Args a) {
                                         return facts.divides(a[0].size, a[1].size);
                                     }};
    lib.conditions["atLeast"] = {{"sn", "the size is a constant >= n"},
                                 [](const EGraph&, const SizeFacts&, Args a) {
                                     auto c = a[0].size.constant();
                                     return c && *c >= a[1].number;
                                 }};
    lib.conditions["vectorsOf"] = {{"cs", "the class is an array of vectors of this width"},
                                   [](const EGraph& g, const SizeFacts&, Args a) {
                                       const ClassData& d = g.data(a[0].eclass);
                                       if (!d.isData() || !g.types.isArray(d.type)) {
                                           return false;
                                       }
                                       const auto& e = g.types.at(g.types.elemOf(d.type));
                                       auto w = a[1].size.constant();
                                       return e.kind == lift::TypeKind::Vector && w &&
                                              *w == static_cast<int64_t>(e.width);
                                   }};
}

void addConditions(Library& lib) {
    lib.conditions["notFree"] = {
        {"cn", "the class does not use De Bruijn variable n"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            auto n = static_cast<int32_t>(a[1].number);
            const auto& fv = g.data(a[0].eclass).freeVars;
            if (!std::binary_search(fv.begin(), fv.end(), n)) {
                return true;
            }
            // Some member may use it; the class does not depend on
            // it when its smallest term does not (the right side
            // is built from that term: EGraph::shift).
            auto best = g.smallestTermFreeVars(a[0].eclass);
            return !std::binary_search(best.begin(), best.end(), n);
        }};
    lib.conditions["divides"] = {
        {"sc", "the size divides the outer length of the array"},
        [](const EGraph& g, const SizeFacts& facts, std::span<const ArgValue> a) {
            auto n = outerLength(g, a[1].eclass);
            return n && facts.divides(a[0].size, *n);
        }};
    lib.conditions["innerDivides"] = {
        {"sc", "the size divides the inner length of the array of arrays"},
        [](const EGraph& g, const SizeFacts& facts, std::span<const ArgValue> a) {
            auto n = innerLength(g, a[1].eclass);
            return n && facts.divides(a[0].size, *n);
        }};
    lib.conditions["innerLength"] = {
        {"cs", "the class is an array of arrays of this length"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            auto n = innerLength(g, a[0].eclass);
            return n && *n == a[1].size;
        }};
    lib.conditions["lengthAtDepth"] = {
        {"cns", "the array's dimension n (0: the outer one) has this length"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            const ClassData& d = g.data(a[0].eclass);
            if (!d.isData()) {
                return false;
            }
            lift::TypeId t = d.type;
            for (int64_t depth = 0; depth < a[1].number; ++depth) {
                if (!g.types.isArray(t)) {
                    return false;
                }
                t = g.types.elemOf(t);
            }
            return g.types.isArray(t) && g.types.lengthOf(t) == a[2].size;
        }};
    // An array whose length holds a tuning variable is a tile or a chunk an earlier rule cut
    // (TuningSpace names its variables v__K): a stencil's tile of a tile reuses nothing more.
    lib.conditions["untiled"] = {
        {"c", "the class is an array whose length holds no tuning variable (not a tile or chunk)"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            const arith::Size* n = outerLength(g, a[0].eclass);
            if (!n) {
                return false;
            }
            auto vars = n->variables();
            return std::none_of(vars.begin(), vars.end(),
                                [](const std::string& v) { return v.rfind("v__", 0) == 0; });
        }};
    lib.conditions["isArray"] = {
        {"c", "the class is an array"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            return outerLength(g, a[0].eclass) != nullptr;
        }};
    lib.conditions["lengthAtLeast"] = {
        {"cn", "the array has a constant length >= n"},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            auto c = g.constLength(a[0].eclass);
            return c && *c >= a[1].number;
        }};
    lib.conditions["isUserFun"] = {
        {"c", "the function class holds a user function", false, Op::UserFun},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            for (ENodeId n : g.eclass(a[0].eclass).nodes) {
                if (g.node(n).op == Op::UserFun) {
                    return true;
                }
            }
            return false;
        }};
    addShapeConditions(lib);
}

} // namespace

Library Library::standard() {
    Library lib;
    addConditions(lib);
    // One tuning variable per divided length (not per match): every split of an array of
    // length N shares a factor, which keeps the number of variables, and so of distinct e-nodes,
    // proportional to the lengths in the program instead of to the number of matches.
    lib.generators["tuning"] = {
        {"c", "a fresh tuning variable that divides the outer length of the array"},
        [](const EGraph& g, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            auto n = outerLength(g, a[0].eclass);
            arith::Size len = n ? *n : arith::Size(1);
            return splitVar(tuning, len);
        }};
    // The outer length over its tuning variable (exact: the variable divides the length by its
    // constraint): the number of chunks of a split by tuning(?x). As a stride,
    // `Split(tuning) $ Gather(ReorderWithStride(cotuning))` gives chunk g the elements g, g + s,
    // g + 2s, ...: adjacent threads read adjacent elements (coalesced on a GPU).
    lib.generators["cotuning"] = {
        {"c", "the outer length of the array divided by its tuning variable: N /^ tuning(?x)"},
        [](const EGraph& g, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            auto n = outerLength(g, a[0].eclass);
            arith::Size len = n ? *n : arith::Size(1);
            return exactDiv(len, splitVar(tuning, len));
        }};
    lib.generators["tuningInner"] = {
        {"c", "a fresh tuning variable that divides the inner length of an array of arrays"},
        [](const EGraph& g, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            const arith::Size* n = innerLength(g, a[0].eclass);
            return splitVar(tuning, n ? *n : arith::Size(1));
        }};
    // The same two for a size that a rule computes (a length after asVector, the number of
    // chunks of an earlier split): a multi-level split names each level's length in its `where`.
    lib.generators["tuningOf"] = {
        {"s", "a tuning variable that divides the size (shared with every split of that length)"},
        [](const EGraph&, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            return splitVar(tuning, a[0].size);
        }};
    lib.generators["cotuningOf"] = {
        {"s", "the size divided by tuningOf(size): s /^ tuningOf(s)"},
        [](const EGraph&, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            return exactDiv(a[0].size, splitVar(tuning, a[0].size));
        }};
    lib.generators["lengthOf"] = {
        {"c", "the outer length of the array (not a fresh variable)"},
        [](const EGraph& g, TuningSpace&, const std::string&, std::span<const ArgValue> a) {
            auto n = outerLength(g, a[0].eclass);
            return n ? *n : arith::Size(1);
        }};
    // A size that several splits share must divide each of their lengths: a work-group's side
    // splits the matrix and also the tile copies' elements (macro-mm-local-tiles). One variable
    // per combination of lengths.
    lib.generators["commonTuningOf"] = {
        {"s+", "a tuning variable that divides every one of the sizes"},
        [](const EGraph&, TuningSpace& tuning, const std::string&, std::span<const ArgValue> a) {
            std::vector<arith::Size> lengths;
            std::string key = "split all";
            for (const ArgValue& v : a) {
                lengths.push_back(v.size);
                key += " " + v.size.toString();
            }
            return tuning.variable(key, lengths);
        }};
    lib.generators["innerLengthOf"] = {
        {"c", "the inner length of an array of arrays (not a fresh variable)"},
        [](const EGraph& g, TuningSpace&, const std::string&, std::span<const ArgValue> a) {
            auto n = innerLength(g, a[0].eclass);
            return n ? *n : arith::Size(1);
        }};
    detail::addFunctionConditions(lib);
    detail::addStructuralAppliers(lib);
    detail::addZipAppliers(lib);
    detail::addFoldAppliers(lib);
    addUserFunConditions(lib);
    lib.appliers["beta"] = {
        {"c+", "beta-reduction: the body of a k-ary lambda with its k arguments substituted"},
        [](EGraph& g, std::span<const ArgValue> a) -> std::optional<EClassId> {
            TermArena body;
            TermId root = g.extract(a[0].eclass, body);
            TermArena out;
            TermId r = substitute(body, root, a.subspan(1), 0, out);
            return g.addTerm(out, r);
        }};
    return lib;
}

} // namespace egopt::egraph
