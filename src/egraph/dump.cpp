// JSON (egraph-serialize) and Graphviz dumps.
#include "egopt/egraph/dump.hpp"

// Boost.Graph's edge iterator trips GCC 12's -Wmaybe-uninitialized (a false positive inside
// boost::optional); the warning is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <nlohmann/json.hpp>

namespace egopt::egraph {

namespace {

std::string label(const EGraph& g, const ENode& n) {
    const Attr& a = g.attrOf(n);
    std::string s(lift::opName(n.op));
    switch (n.op) {
    case Op::Param:
        return "%" + std::to_string(n.ival);
    case Op::UserFun:
        return g.userFuns.at(static_cast<size_t>(n.ival)).name;
    case Op::Literal:
        return g.literals.at(static_cast<size_t>(n.ival)).text;
    case Op::Apply:
        return "$";
    case Op::Lambda:
        return "fun" + std::to_string(n.ival);
    default:
        break;
    }
    std::string inside;
    for (const auto& size : a.sizes) {
        inside += (inside.empty() ? "" : ",") + size.toString();
    }
    if (n.op == Op::Get || n.op == Op::MapGlb || n.op == Op::MapWrg || n.op == Op::MapLcl) {
        inside += (inside.empty() ? "" : ",") + std::to_string(n.ival);
    }
    return inside.empty() ? s : s + "(" + inside + ")";
}

// A node of a class, as egraph-serialize refers to children: "class.index".
std::string nodeKey(EClassId c, size_t i) {
    return std::to_string(c) + "." + std::to_string(i);
}

} // namespace

void dumpJson(const EGraph& g, const std::vector<EClassId>& roots, std::ostream& out) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::object();
    nlohmann::ordered_json classData = nlohmann::ordered_json::object();
    for (EClassId c : g.classIds()) {
        const auto& members = g.eclass(c).nodes;
        for (size_t i = 0; i < members.size(); ++i) {
            const ENode& n = g.node(members[i]);
            nlohmann::ordered_json children = nlohmann::ordered_json::array();
            for (EClassId ch : n.children) {
                children.push_back(nodeKey(g.findConst(ch), 0));
            }
            nodes[nodeKey(c, i)] = {{"op", label(g, n)},
                                    {"children", children},
                                    {"eclass", std::to_string(c)},
                                    {"cost", 1.0}};
        }
        classData[std::to_string(c)] = {{"type", g.showType(c)}};
    }
    nlohmann::ordered_json rootIds = nlohmann::ordered_json::array();
    for (EClassId r : roots) {
        rootIds.push_back(std::to_string(g.findConst(r)));
    }
    nlohmann::ordered_json doc = {
        {"nodes", nodes}, {"root_eclasses", rootIds}, {"class_data", classData}};
    out << doc.dump(1) << "\n";
}

void dumpDot(const EGraph& g, std::ostream& out) {
    // Vertices: e-classes (boxes) and e-nodes; edges: class -> member, node -> child class.
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    std::vector<EClassId> ids = g.classIds();
    std::vector<std::string> labels;
    std::vector<bool> isClass;
    std::unordered_map<EClassId, size_t> vertexOf;
    for (EClassId c : ids) {
        vertexOf[c] = labels.size();
        labels.push_back("c" + std::to_string(c) + " : " + g.showType(c));
        isClass.push_back(true);
    }
    std::vector<std::pair<size_t, size_t>> edges;
    for (EClassId c : ids) {
        for (ENodeId n : g.eclass(c).nodes) {
            size_t v = labels.size();
            labels.push_back(label(g, g.node(n)));
            isClass.push_back(false);
            edges.emplace_back(vertexOf[c], v);
            for (EClassId ch : g.node(n).children) {
                edges.emplace_back(v, vertexOf[g.findConst(ch)]);
            }
        }
    }
    Graph graph(edges.begin(), edges.end(), labels.size());
    auto vertexWriter = [&](std::ostream& os, size_t v) {
        os << "[label=" << boost::escape_dot_string(labels[v])
           << (isClass[v] ? ", shape=box, style=dashed" : "") << "]";
    };
    boost::write_graphviz(out, graph, vertexWriter);
}

} // namespace egopt::egraph
