// A work-group's fold over slices of two tiles stages each slice in local memory once per step
// (rules/staging.rules, stage-fold-slices; docs/search-goal.md, "Slices of two tiles
// in local memory"): the work-items' register blocks then read the staged slices, and the
// candidate computes what the interpreter computes on the default device (PoCL).
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <regex>

using namespace egopt;
using namespace egopt::extract;

namespace {

// The toLocal e-nodes of the e-graph.
std::vector<egraph::ENodeId> localCopies(const egraph::EGraph& g) {
    std::vector<egraph::ENodeId> out;
    for (size_t id = 0; id < g.numNodeIds(); ++id) {
        if (g.node(static_cast<egraph::ENodeId>(id)).op == lift::Op::ToLocal) {
            out.push_back(static_cast<egraph::ENodeId>(id));
        }
    }
    return out;
}

// occurrences of `re` in `text`.
size_t count(const std::string& text, const std::regex& re) {
    return static_cast<size_t>(
        std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

} // namespace

TEST_CASE("a work-group's fold over tile slices reads both slices from local memory", "[extract]") {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rs = test::catalogue("staging.rules", {"stage-fold-slices"}, lib);
    for (auto& r :
         test::catalogue("opencl.rules", {"lower-lcl0", "lower-lcl1", "lower-seq"}, lib)) {
        rs.push_back(std::move(r));
    }
    test::Graph gr;
    lift::Program program = lift::parseFile(test::data("tile_slices.lift"));
    gr.main = egraph::insertProgram(gr.g, program);
    REQUIRE(localCopies(gr.g).empty());
    egraph::Runner runner(gr.g, rs, lib, gr.rw);
    runner.limits.iterations = 6;
    runner.run();
    // One copy per slice: the rule declines once the slices are read only as copies' arguments,
    // so the step is staged once, not once per iteration.
    std::vector<egraph::ENodeId> copies = localCopies(gr.g);
    REQUIRE(copies.size() == 2);
    // The rewrite is the staged form as written by hand: inserting it adds no e-class and
    // lands in the program's class.
    size_t classes = gr.g.numClasses();
    lift::Program hand = lift::parseFile(test::data("tile_slices_staged.lift"));
    egraph::Inserted staged = egraph::insertProgram(gr.g, hand);
    CHECK(gr.g.numClasses() == classes);
    CHECK(gr.g.find(staged.root) == gr.g.find(gr.main.root));

    // That form is a kernel: extracted alone, it copies both slices in the fold's step, outside
    // the work-items' maps, and computes what the interpreter computes.
    test::Graph alone;
    alone.main = egraph::insertProgram(alone.g, hand);
    arith::Bindings sizes{{"M", 64}, {"N", 64}, {"K", 64}};
    ExtractOptions opt;
    opt.k = 1;
    opt.sizes = sizes;
    ExtractResult r =
        extractCandidates(alone.g, alone.rw.tuning, alone.main.root, alone.main.signature,
                          StructuralCost(alone.g, alone.rw.tuning, sizes), opt);
    INFO(test::listing(r));
    REQUIRE(r.candidates.size() == 1);
    const Candidate& c = r.candidates.front();
    const std::regex copy(R"(toLocal\(MapLcl\()");
    CHECK(count(c.text, copy) == 2);
    INFO(c.text);
    // The copies are made in the fold's step, outside the work-items' maps that read them.
    CHECK(std::regex_search(c.text, std::regex(R"(ReduceSeq\(fun\(\(x\d+, x\d+\) => \(fun)")));
    codegen::RunResult run = test::validate(c, sizes);
    INFO(run.summary());
    CHECK(run.ok);
}
