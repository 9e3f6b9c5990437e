// The e-graph's invariants after rebuild, checked from the outside (public API only):
// canonical hashcons, no congruent nodes in distinct classes, parent lists that agree with the
// members, and analysis data that equals a recomputation from each member node.
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace egopt::test {

namespace detail {

using namespace egopt::egraph;

inline ENode canonical(const EGraph& g, ENode n) {
    for (EClassId& c : n.children) {
        c = g.findConst(c);
    }
    return n;
}

inline std::string nodeText(const ENode& n) {
    std::string s = std::string(lift::opName(n.op)) + "/" + std::to_string(n.ival) + "/a" +
                    std::to_string(n.attr) + "(";
    for (EClassId c : n.children) {
        s += std::to_string(c) + ",";
    }
    return s + ")";
}

// Hashcons and congruence: every member is canonical, in the hashcons under its class, and no
// canonical node belongs to two members (in one class or in two).
inline void checkMembers(const EGraph& g, std::vector<std::string>& bad) {
    std::unordered_map<ENode, EClassId, ENodeHash> seen;
    size_t members = 0;
    for (EClassId c : g.classIds()) {
        const auto& nodes = g.eclass(c).nodes;
        if (nodes.empty()) {
            bad.push_back("class " + std::to_string(c) + " has no member");
        }
        if (!std::is_sorted(nodes.begin(), nodes.end())) {
            bad.push_back("members of class " + std::to_string(c) + " are not sorted");
        }
        for (ENodeId n : nodes) {
            ++members;
            const ENode& node = g.node(n);
            ENode canon = canonical(g, node);
            if (!(canon == node)) {
                bad.push_back("member " + nodeText(canon) + " is not canonical");
            }
            if (g.findConst(n) != c || g.lookup(node) != c) {
                bad.push_back("member " + nodeText(canon) +
                              " is not in the hashcons under its class");
            }
            if (auto [it, fresh] = seen.emplace(canon, c); !fresh) {
                bad.push_back("congruent nodes " + nodeText(canon) + " in classes " +
                              std::to_string(it->second) + " and " + std::to_string(c));
            }
        }
    }
    if (members != g.numNodes()) {
        bad.push_back("members " + std::to_string(members) + " != hashcons size " +
                      std::to_string(g.numNodes()));
    }
    if (g.classIds().size() != g.numClasses()) {
        bad.push_back("numClasses disagrees with the class list");
    }
}

// Parents: each member is listed (as itself or an equal node) by each of its children's
// classes, and each listed parent is a node in the hashcons that has the class as a child.
inline void checkParents(const EGraph& g, std::vector<std::string>& bad) {
    std::unordered_map<EClassId, std::unordered_set<ENode, ENodeHash>> listed;
    for (EClassId c : g.classIds()) {
        auto& forms = listed[c];
        for (ENodeId p : g.eclass(c).parents) {
            ENode pn = canonical(g, g.node(p));
            if (std::find(pn.children.begin(), pn.children.end(), c) == pn.children.end() ||
                g.lookup(pn) != g.findConst(p)) {
                bad.push_back("stale parent " + nodeText(pn) + " of class " + std::to_string(c));
            }
            forms.insert(std::move(pn));
        }
    }
    for (EClassId c : g.classIds()) {
        for (ENodeId n : g.eclass(c).nodes) {
            const ENode& node = g.node(n);
            for (EClassId ch : node.children) {
                if (!listed[g.findConst(ch)].count(node)) {
                    bad.push_back(nodeText(node) + " is missing from the parents of class " +
                                  std::to_string(ch));
                }
            }
        }
    }
}

// The type (or signature) of one member node, as the typing rules compute it.
inline bool memberTypeAgrees(EGraph& g, EClassId c, const ENode& n) {
    const ClassData& d = g.data(c);
    const Attr& a = g.attrOf(n);
    switch (n.op) {
    case lift::Op::Param:
        return d.isData() && a.types.at(0) == d.type;
    case lift::Op::Literal:
        return d.isData() && g.literals.at(size_t(n.ival)).type == d.type;
    case lift::Op::Apply: {
        std::vector<TypeId> args;
        for (size_t i = 1; i < n.children.size(); ++i) {
            args.push_back(g.data(n.children[i]).type);
        }
        try {
            return d.isData() && g.resultOf(n.children[0], args) == d.type;
        } catch (const TypeError&) {
            return false;
        }
    }
    case lift::Op::Lambda:
        return d.fun.kind == FunSig::Kind::Mono && d.fun.params == a.types &&
               d.fun.result == g.data(n.children.at(0)).type;
    case lift::Op::UserFun: {
        const auto& decl = g.userFuns.at(size_t(n.ival));
        return d.fun.kind == FunSig::Kind::Mono && d.fun.params == decl.paramTypes &&
               d.fun.result == decl.returnType;
    }
    default:
        return isIndexFunction(n.op)
                   ? d.fun.kind == FunSig::Kind::Index
                   : d.fun.kind == FunSig::Kind::Poly || d.fun.kind == FunSig::Kind::Mono;
    }
}

// Free variables, cost and the best node, recomputed from the members.
inline void checkAnalysis(EGraph& g, std::vector<std::string>& bad) {
    for (EClassId c : g.classIds()) {
        const ClassData& d = g.data(c);
        uint64_t best = UINT64_MAX;
        std::vector<int32_t> fv;
        for (ENodeId n : g.eclass(c).nodes) {
            const ENode& node = g.node(n);
            if (!memberTypeAgrees(g, c, node)) {
                bad.push_back("member " + nodeText(node) + " of class " + std::to_string(c) +
                              " : " + g.showType(c) + " has another type");
            }
            uint64_t cost = 1;
            for (EClassId ch : node.children) {
                cost += g.data(ch).cost;
                for (int32_t v : g.data(ch).freeVars) {
                    int32_t bound = node.op == lift::Op::Lambda ? node.ival : 0;
                    if (v >= bound) {
                        fv.push_back(v - bound);
                    }
                }
            }
            if (node.op == lift::Op::Param) {
                fv.push_back(node.ival);
            }
            best = std::min(best, cost);
        }
        std::sort(fv.begin(), fv.end());
        fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
        uint64_t bestCost = 1;
        for (EClassId ch : g.originalNode(d.best).children) {
            bestCost += g.data(ch).cost;
        }
        if (d.cost != best || bestCost != best || g.findConst(d.best) != c) {
            bad.push_back("class " + std::to_string(c) + ": cost " + std::to_string(d.cost) +
                          ", recomputed " + std::to_string(best));
        }
        if (d.freeVars != fv) {
            bad.push_back("class " + std::to_string(c) + ": free variables disagree");
        }
    }
}

} // namespace detail

// Every violated invariant, as text (empty when the e-graph is sound).
inline std::vector<std::string> invariantViolations(egraph::EGraph& g) {
    std::vector<std::string> bad;
    if (!g.clean()) {
        bad.push_back("rebuild is pending");
    }
    detail::checkMembers(g, bad);
    detail::checkParents(g, bad);
    detail::checkAnalysis(g, bad);
    return bad;
}

inline void checkInvariants(egraph::EGraph& g) {
    auto bad = invariantViolations(g);
    std::string first;
    for (size_t i = 0; i < std::min<size_t>(bad.size(), 5); ++i) {
        first += bad[i] + "\n";
    }
    INFO(bad.size() << " violation(s):\n" << first);
    CHECK(bad.empty());
}

} // namespace egopt::test
