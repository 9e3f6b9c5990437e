// Lift's overlapped tiles of 2-D and 3-D stencils from primitive steps (rules/stencils.rules,
// docs/rules-catalogue.md): each step is a single equality of at most 12 operators a side (so
// --no-macros loads it), the steps apply one after another on a 2-D and a 3-D stencil of the
// corpus, and no tile is cut into tiles again (`untiled`).
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/composite.hpp"
#include "egopt/rules/loader.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

const char* const kGridSteps[] = {"stencil-tile-rows", "stencil-column-tiles"};
const char* const kVolumeSteps[] = {"stencil-planes", "stencil-window-columns"};

std::vector<Rule> stencilRules(const Library& lib) {
    std::vector<Rule> rules;
    for (const char* f : {"core.rules", "stencils.rules"}) {
        auto more = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/" + f, lib);
        rules.insert(rules.end(), more.begin(), more.end());
    }
    return rules;
}

struct Saturated {
    EGraph g;
    RunReport report;
};

// A corpus program saturated with core.rules and stencils.rules for `iterations` iterations.
std::unique_ptr<Saturated> saturated(const std::string& name, size_t iterations) {
    Library lib = Library::standard();
    std::vector<Rule> rules = stencilRules(lib);
    auto s = std::make_unique<Saturated>();
    lift::Program program =
        lift::parseFile(std::string(EGOPT_SOURCE_DIR) + "/tests/lift/corpus/" + name + ".lift");
    insertProgram(s->g, program);
    RewriteContext ctx;
    Runner runner(s->g, rules, lib, ctx);
    runner.limits.iterations = iterations;
    s->report = runner.run();
    return s;
}

size_t applications(const RunReport& r, const std::string& rule) {
    auto it = std::find_if(r.rules.begin(), r.rules.end(),
                           [&](const RuleStats& s) { return s.name == rule; });
    return it == r.rules.end() ? 0 : it->applications;
}

bool holdsTuningVariable(const arith::Size& s) {
    auto vars = s.variables();
    return std::any_of(vars.begin(), vars.end(),
                       [](const std::string& v) { return v.rfind("v__", 0) == 0; });
}

// Slides whose window is a tuning size (a tile) applied to an array whose length holds one (a
// tile already).
size_t tilesOfTiles(const EGraph& g) {
    size_t n = 0;
    for (size_t id = 0; id < g.numNodeIds(); ++id) {
        const ENode& app = g.node(static_cast<ENodeId>(id));
        if (app.op != lift::Op::Apply || app.children.size() != 2) {
            continue;
        }
        const ClassData& arg = g.data(g.findConst(app.children[1]));
        if (!arg.isData() || !g.types.isArray(arg.type) ||
            !holdsTuningVariable(g.types.lengthOf(arg.type))) {
            continue;
        }
        for (ENodeId f : g.eclass(g.findConst(app.children[0])).nodes) {
            const ENode& slide = g.node(f);
            n += slide.op == lift::Op::Slide && holdsTuningVariable(g.attrOf(slide).sizes.at(0));
        }
    }
    return n;
}

} // namespace

TEST_CASE("the 2-D and 3-D stencil tiles' steps are primitive rules", "[rules]") {
    Library lib = Library::standard();
    std::vector<Rule> rules = stencilRules(lib);
    for (const auto* steps : {&kGridSteps, &kVolumeSteps}) {
        for (const char* name : *steps) {
            INFO(name);
            auto it = std::find_if(rules.begin(), rules.end(),
                                   [&](const Rule& r) { return r.name == name; });
            REQUIRE(it != rules.end());
            CHECK_FALSE(rules::isComposite(*it));
        }
    }
}

TEST_CASE("a 2-D stencil's grid is cut into blocks of rows and their column tiles", "[rules]") {
    for (const char* name : {"stencil2d_jacobi", "stencil2d_ninepoint"}) {
        INFO(name);
        auto s = saturated(name, 3);
        for (const char* step : kGridSteps) {
            INFO(step);
            CHECK(applications(s->report, step) > 0);
        }
        CHECK(tilesOfTiles(s->g) == 0);
    }
}

TEST_CASE("a 3-D stencil's windows of planes are cut into tiles of rows and columns", "[rules]") {
    auto s = saturated("stencil3d_clamp", 5);
    for (const auto* steps : {&kVolumeSteps, &kGridSteps}) {
        for (const char* step : *steps) {
            INFO(step);
            CHECK(applications(s->report, step) > 0);
        }
    }
    CHECK(tilesOfTiles(s->g) == 0);
}
