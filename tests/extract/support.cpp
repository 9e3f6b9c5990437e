#include "support.hpp"

#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/rules/loader.hpp"
#include "egopt/runtime/device.hpp"

#include <sstream>
#include <stdexcept>

namespace egopt::extract::test {

using lift::NodeId;
using lift::Op;

std::string shared(const std::string& path) {
    return std::string(EGOPT_SHARED_DIR) + "/examples/" + path;
}

std::string data(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/extract/data/" + name;
}

std::vector<egraph::Rule> rules(const std::vector<std::string>& names, const egraph::Library& lib) {
    std::vector<egraph::Rule> out;
    for (const std::string& n : names) {
        std::string path =
            n == "core.rules" ? std::string(EGOPT_SOURCE_DIR) + "/rules/core.rules" : data(n);
        auto more = rules::loadRules(path, lib);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

std::vector<egraph::Rule> catalogue(const std::string& file, const std::set<std::string>& names,
                                    const egraph::Library& lib) {
    std::vector<egraph::Rule> out;
    for (auto& r : rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/" + file, lib)) {
        if (names.contains(r.name)) {
            out.push_back(std::move(r));
        }
    }
    if (out.size() != names.size()) {
        throw std::runtime_error("rules/" + file + " lacks some of the rules asked for");
    }
    return out;
}

void insertAndSaturate(Graph& graph, const std::string& path,
                       const std::vector<std::string>& ruleFiles, size_t iterations) {
    lift::Program p = lift::parseFile(path);
    graph.main = egraph::insertProgram(graph.g, p);
    saturate(graph, ruleFiles, iterations);
}

void saturate(Graph& graph, const std::vector<std::string>& ruleFiles, size_t iterations) {
    if (ruleFiles.empty()) {
        return;
    }
    egraph::Library lib = egraph::Library::standard();
    auto rs = rules(ruleFiles, lib);
    egraph::Runner runner(graph.g, rs, lib, graph.rw);
    runner.limits.iterations = iterations;
    runner.limits.nodes = 50'000;
    runner.run();
}

void saturateCatalogue(Graph& graph,
                       const std::vector<std::pair<std::string, std::set<std::string>>>& rules,
                       size_t iterations) {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rs;
    for (const auto& [file, names] : rules) {
        for (auto& r : catalogue(file, names, lib)) {
            rs.push_back(std::move(r));
        }
    }
    egraph::Runner runner(graph.g, rs, lib, graph.rw);
    runner.limits.iterations = iterations;
    runner.run();
}

ExtractOptions guidedOptions(const arith::Bindings& sizes, std::vector<egraph::ENodeId> guide) {
    ExtractOptions opt;
    opt.k = 2;
    opt.sizes = sizes;
    opt.explore.draws = 4;
    opt.explore.guidedDraws = 16;
    opt.explore.guides.push_back(std::move(guide));
    return opt;
}

ExtractResult extractMain(const Graph& graph, const ExtractOptions& opt) {
    return extractCandidates(graph.g, graph.rw.tuning, graph.main.root, graph.main.signature,
                             StructuralCost(graph.g, graph.rw.tuning, opt.sizes), opt);
}

void unionWith(Graph& graph, const std::string& path) {
    lift::Program p = lift::parseFile(path);
    egraph::Inserted other = egraph::insertProgram(graph.g, p);
    graph.g.merge(graph.main.root, other.root,
                  {egraph::Justification::Kind::Rule, graph.rw.rules.id("test-union")});
    graph.g.rebuild();
    graph.main.root = graph.g.find(graph.main.root);
}

namespace {

struct Hierarchy {
    uint8_t glb = 0, wrg = 0, lcl = 0;
};

// Walks functions and expressions; `h` is the enclosing thread maps.
std::string check(const lift::Program& p, NodeId id, Hierarchy h) {
    Op op = p.op(id);
    int d = p.node(id).ival;
    auto bit = static_cast<uint8_t>(1u << std::clamp(d, 0, 2));
    std::string name(lift::opName(op));
    switch (op) {
    case Op::Map:
    case Op::Reduce:
    case Op::PartRed:
        return name + " is not lowered";
    case Op::MapGlb:
        if (h.wrg || h.lcl || (h.glb & bit)) {
            return "MapGlb(" + std::to_string(d) + ") nested wrongly";
        }
        h.glb |= bit;
        break;
    case Op::MapWrg:
        if (h.glb || h.lcl || (h.wrg & bit)) {
            return "MapWrg(" + std::to_string(d) + ") nested wrongly";
        }
        h.wrg |= bit;
        break;
    case Op::MapLcl:
        if (!h.wrg || h.glb || (h.lcl & bit)) {
            return "MapLcl(" + std::to_string(d) + ") outside MapWrg or nested wrongly";
        }
        h.lcl |= bit;
        break;
    case Op::ToLocal:
        if (!h.wrg) {
            return "toLocal outside a work-group";
        }
        break;
    default:
        break;
    }
    if (op == Op::Lambda) {
        return check(p, p.lambdaBody(id), h);
    }
    for (NodeId c : p.children(id)) {
        if (std::string e = check(p, c, h); !e.empty()) {
            return e;
        }
    }
    return "";
}

} // namespace

runtime::Session& session() {
    static runtime::Session s(runtime::selectDevice(""));
    return s;
}

std::string hierarchyError(const lift::Program& p) {
    return check(p, p.lambdaBody(p.root), {});
}

codegen::RunResult validate(const Candidate& c, const arith::Bindings& sizes) {
    lift::Program p = substituteSizes(c.program, c.tuningValues);
    lift::TypeInfo info = lift::typecheck(p);
    codegen::GeneratedCode code = codegen::generate(p, info, sizes);
    codegen::RunOptions o;
    o.runs = 1;
    o.warmup = 0;
    return codegen::runAndValidate(session(), p, info, sizes, code, o);
}

std::string listing(const ExtractResult& r) {
    std::ostringstream os;
    for (const Candidate& c : r.candidates) {
        os << c.cost << "  " << c.text << "\n";
    }
    return os.str();
}

} // namespace egopt::extract::test
