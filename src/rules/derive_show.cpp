// The right-hand side as a derivation's stated steps wrote it (derive_show.hpp).
#include "derive_show.hpp"

#include "egopt/lift/ir.hpp"

#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace egopt::rules::detail {

namespace {

using egraph::EClassId;
using egraph::EGraph;
using egraph::ENodeId;

uint64_t weight(const egraph::ENode& n) {
    if (n.op == lift::Op::Lambda && n.ival == 2) {
        return 100'000;
    }
    if (n.op == lift::Op::Tuple) {
        return 10'000;
    }
    return lift::isLowLevel(n.op) ? 1000 : 1;
}

struct Best {
    uint64_t cost = 0;
    ENodeId node = 0;
};

// Each class's cheapest member, by fixpoint iteration: costs only decrease, so the loop ends
// (a cycle through a class never makes a member cheaper than the class's best).
std::unordered_map<EClassId, Best> cheapest(const EGraph& g) {
    std::unordered_map<EClassId, Best> best;
    const std::vector<EClassId> ids = g.classIds();
    for (bool changed = true; changed;) {
        changed = false;
        for (EClassId c : ids) {
            for (ENodeId n : g.eclass(c).nodes) {
                const egraph::ENode& e = g.node(n);
                uint64_t cost = weight(e);
                bool known = true;
                for (EClassId k : e.children) {
                    auto it = best.find(g.findConst(k));
                    if (it == best.end()) {
                        known = false;
                        break;
                    }
                    cost += it->second.cost;
                }
                auto it = best.find(c);
                if (known && (it == best.end() || cost < it->second.cost)) {
                    best[c] = {cost, n};
                    changed = true;
                }
            }
        }
    }
    return best;
}

} // namespace

std::string showStructured(const EGraph& g, EClassId root, const std::vector<std::string>& names) {
    const std::unordered_map<EClassId, Best> best = cheapest(g);
    egraph::TermArena out;
    std::function<egraph::TermId(EClassId)> build = [&](EClassId c) {
        const egraph::ENode& n = g.node(best.at(g.findConst(c)).node);
        egraph::TermNode t;
        t.op = n.op;
        t.ival = n.ival;
        t.sizes = g.attrOf(n).sizes;
        t.types = g.attrOf(n).types;
        for (EClassId k : n.children) {
            t.children.push_back(build(k));
        }
        return out.add(std::move(t));
    };
    return egraph::showTerm(g, out, build(root), names);
}

std::vector<EClassId> structuredClasses(const EGraph& g, const std::vector<EClassId>& roots) {
    const std::unordered_map<EClassId, Best> best = cheapest(g);
    std::vector<EClassId> out;
    std::unordered_set<EClassId> seen;
    std::vector<EClassId> todo;
    for (EClassId r : roots) {
        todo.push_back(g.findConst(r));
    }
    while (!todo.empty()) {
        EClassId c = todo.back();
        todo.pop_back();
        if (!seen.insert(c).second) {
            continue;
        }
        out.push_back(c);
        for (EClassId k : g.node(best.at(c).node).children) {
            todo.push_back(g.findConst(k));
        }
    }
    return out;
}

} // namespace egopt::rules::detail
