// The term of a class that a derivation's last steps built (derive_show.hpp).
#include "derive_show.hpp"

#include "egopt/lift/ir.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

namespace egopt::rules::detail {

namespace {

using egraph::EClassId;
using egraph::EGraph;
using egraph::ENodeId;
using egraph::TermId;

struct NewestBuilder {
    const EGraph& g;
    egraph::TermArena out;
    std::set<EClassId> building;                // the classes on the current path
    std::unordered_map<EClassId, TermId> built; // each class's term, once built

    // The term of the member `id`, or none when a child leads back to a class being built.
    std::optional<TermId> member(ENodeId id) {
        const egraph::ENode& n = g.node(id);
        egraph::TermNode t;
        t.op = n.op;
        t.ival = n.ival;
        t.sizes = g.attrOf(n).sizes;
        t.types = g.attrOf(n).types;
        for (EClassId k : n.children) {
            std::optional<TermId> child = eclass(k);
            if (!child) {
                return std::nullopt;
            }
            t.children.push_back(*child);
        }
        return out.add(std::move(t));
    }

    std::optional<TermId> eclass(EClassId c) {
        c = g.findConst(c);
        if (auto it = built.find(c); it != built.end()) {
            return it->second;
        }
        if (!building.insert(c).second) {
            return std::nullopt;
        }
        std::vector<ENodeId> nodes(g.eclass(c).nodes.begin(), g.eclass(c).nodes.end());
        std::sort(nodes.rbegin(), nodes.rend()); // newest first: ids grow as nodes are added
        std::optional<TermId> term;
        for (bool lowLevel : {false, true}) { // an OpenCL-specific member only if all are
            for (auto it = nodes.begin(); it != nodes.end() && !term; ++it) {
                if (lift::isLowLevel(g.node(*it).op) == lowLevel) {
                    term = member(*it);
                }
            }
        }
        building.erase(c);
        if (!term) {
            term = g.extract(c, out);
        }
        built.emplace(c, *term);
        return term;
    }
};

} // namespace

std::string showNewest(const EGraph& g, EClassId root, const std::vector<std::string>& names) {
    NewestBuilder b{g, {}, {}, {}};
    TermId term = *b.eclass(root);
    return egraph::showTerm(g, b.out, term, names);
}

} // namespace egopt::rules::detail
