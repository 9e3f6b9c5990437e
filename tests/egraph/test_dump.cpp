// Dumps: the JSON is in the egraph-serialize shape (nodes with op, children, eclass and cost;
// root_eclasses; class_data) and describes exactly the e-graph's classes and canonical nodes;
// the Graphviz output is a well-formed digraph with a vertex per class and per node. Checked
// through the API and through `egopt saturate --dump-egraph`.
#include "cli_helper.hpp"
#include "egopt/egraph/dump.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

using namespace egopt;
using namespace egopt::egraph;
using test::dataFile;
using Json = nlohmann::json;

namespace {

struct Saturated {
    Library lib = Library::standard();
    std::vector<Rule> rules = rules::loadRules(dataFile("fusion.rules"), lib);
    EGraph g;
    RewriteContext ctx;
    Inserted ins;

    Saturated() {
        lift::Program p = lift::parseFile(dataFile("chain3.lift"));
        ins = insertProgram(g, p);
        Runner(g, rules, lib, ctx).run();
    }
};

// The shape egraph-serialize reads; returns the e-class ids that have nodes.
std::set<std::string> checkSerializeShape(const Json& doc) {
    std::set<std::string> classes;
    REQUIRE(doc.is_object());
    REQUIRE(doc.contains("nodes"));
    REQUIRE(doc["nodes"].is_object());
    REQUIRE_FALSE(doc["nodes"].empty());
    for (const auto& [id, node] : doc["nodes"].items()) {
        INFO("node " << id);
        REQUIRE(node["op"].is_string());
        REQUIRE(node["eclass"].is_string());
        REQUIRE(node["cost"].is_number());
        REQUIRE(node["children"].is_array());
        for (const auto& child : node["children"]) {
            REQUIRE(child.is_string());
            CHECK(doc["nodes"].contains(child.get<std::string>())); // refers to a node id
        }
        classes.insert(node["eclass"].get<std::string>());
    }
    REQUIRE(doc["root_eclasses"].is_array());
    REQUIRE_FALSE(doc["root_eclasses"].empty());
    for (const auto& root : doc["root_eclasses"]) {
        CHECK(classes.count(root.get<std::string>()) == 1);
    }
    // Every class with data has nodes and the other way round.
    std::set<std::string> withData;
    for (const auto& [id, data] : doc["class_data"].items()) {
        CHECK(data["type"].is_string());
        withData.insert(id);
    }
    CHECK(withData == classes);
    return classes;
}

struct DotShape {
    size_t vertices = 0;
    size_t edges = 0;
    std::set<std::string> classLabels; // "c12"
};

// Structural checks of Boost.Graph's write_graphviz output: balanced braces outside quotes,
// declared vertices, edges between declared vertices.
DotShape checkDot(const std::string& dot) {
    REQUIRE(dot.rfind("digraph G {\n", 0) == 0);
    REQUIRE(dot.ends_with("}\n"));
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i < dot.size(); ++i) {
        if (dot[i] == '"' && (i == 0 || dot[i - 1] != '\\')) {
            quoted = !quoted;
        } else if (!quoted && (dot[i] == '{' || dot[i] == '}')) {
            depth += dot[i] == '{' ? 1 : -1;
            REQUIRE(depth >= 0);
        }
    }
    CHECK(depth == 0);
    CHECK_FALSE(quoted);
    // Labels are quoted strings or plain DOT identifiers (escape_dot_string quotes as needed).
    std::regex vertex(
        R"re(^(\d+)\[label=(?:"((?:[^"\\]|\\.)*)"|[A-Za-z_0-9.]+)(, shape=box, style=dashed)?\];$)re");
    std::regex edge(R"(^(\d+)->(\d+) ;$)");
    std::istringstream in(dot);
    std::string line;
    std::getline(in, line); // digraph G {
    DotShape shape;
    std::set<std::string> declared;
    while (std::getline(in, line) && line != "}") {
        std::smatch m;
        if (std::regex_match(line, m, vertex)) {
            CHECK(declared.insert(m[1]).second);
            if (m[3].matched) {
                shape.classLabels.insert(m[2].str().substr(0, m[2].str().find(" : ")));
            }
            ++shape.vertices;
        } else if (std::regex_match(line, m, edge)) {
            CHECK(declared.count(m[1]) == 1); // vertices come before edges
            CHECK(declared.count(m[2]) == 1);
            ++shape.edges;
        } else {
            FAIL("not a vertex or an edge: " << line);
        }
    }
    return shape;
}

// Graphviz itself, where installed, must accept the file.
void checkWithGraphviz(const std::string& path) {
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        CHECK(std::system(("dot -Tsvg " + path + " -o /dev/null").c_str()) == 0);
    }
}

} // namespace

TEST_CASE("the JSON dump is the e-graph in egraph-serialize shape", "[egraph]") {
    Saturated s;
    std::ostringstream out;
    dumpJson(s.g, {s.ins.root}, out);
    Json doc = Json::parse(out.str());
    std::set<std::string> classes = checkSerializeShape(doc);
    std::set<std::string> expected;
    for (EClassId c : s.g.classIds()) {
        expected.insert(std::to_string(c));
    }
    CHECK(classes == expected); // every class covered
    CHECK(doc["nodes"].size() == s.g.numNodes());
    CHECK(doc["root_eclasses"] == Json::array({std::to_string(s.g.find(s.ins.root))}));
    // Each node's children are, in order, the e-graph node's child classes.
    for (EClassId c : s.g.classIds()) {
        const auto& members = s.g.eclass(c).nodes;
        for (size_t i = 0; i < members.size(); ++i) {
            const Json& node = doc["nodes"][std::to_string(c) + "." + std::to_string(i)];
            const ENode& n = s.g.node(members[i]);
            REQUIRE(node["children"].size() == n.children.size());
            for (size_t k = 0; k < n.children.size(); ++k) {
                std::string child = node["children"][k];
                CHECK(doc["nodes"][child]["eclass"] == std::to_string(s.g.find(n.children[k])));
            }
        }
    }
}

TEST_CASE("the Graphviz dump has a vertex per class and per node", "[egraph]") {
    Saturated s;
    std::ostringstream out;
    dumpDot(s.g, out);
    DotShape shape = checkDot(out.str());
    size_t childEdges = 0;
    std::set<std::string> expected;
    for (EClassId c : s.g.classIds()) {
        expected.insert("c" + std::to_string(c));
        for (ENodeId n : s.g.eclass(c).nodes) {
            childEdges += s.g.node(n).children.size();
        }
    }
    CHECK(shape.classLabels == expected);
    CHECK(shape.vertices == s.g.numClasses() + s.g.numNodes());
    CHECK(shape.edges == s.g.numNodes() + childEdges); // class -> member, node -> child class
    checkWithGraphviz(test::scratchFile("api.dot", out.str()));
}

TEST_CASE("egopt saturate --dump-egraph writes JSON and Graphviz", "[egraph]") {
    std::string base = "saturate " + dataFile("chain3.lift") + " --rules " +
                       dataFile("fusion.rules") + " --dump-egraph ";
    std::string json = (test::scratchDir() / "cli.json").string();
    auto r = test::egopt(base + json);
    INFO(r.out << r.err);
    REQUIRE(r.exitCode == 0);
    Json doc = Json::parse(test::readFile(json));
    std::set<std::string> classes = checkSerializeShape(doc);
    // The run's final size is the dump's size.
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(final: (\d+) e-nodes, (\d+) e-classes)")));
    CHECK(doc["nodes"].size() == std::stoul(m[1]));
    CHECK(classes.size() == std::stoul(m[2]));

    std::string dot = (test::scratchDir() / "cli.dot").string();
    r = test::egopt(base + dot);
    REQUIRE(r.exitCode == 0);
    DotShape shape = checkDot(test::readFile(dot));
    CHECK(shape.classLabels.size() == classes.size());
    CHECK(shape.vertices == classes.size() + doc["nodes"].size());
    checkWithGraphviz(dot);

    r = test::egopt(base + (test::scratchDir() / "cli.txt").string());
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("--dump-egraph expects a file ending in .json or .dot") != std::string::npos);
}
