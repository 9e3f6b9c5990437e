// A work-group's fold over slices of two tiles stages each slice in local memory once per step
// (rules/staging.rules, stage-fold-slices; docs/search-goal.md, "Slices of two tiles
// in local memory"): the work-items' register blocks then read the staged slices, and the
// candidate computes what the interpreter computes on the default device (PoCL).
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <set>

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

// tile_slices.lift saturated for 6 iterations with the named rules of staging.rules and the
// lowerings of the copies' maps.
void stageSlices(test::Graph& gr, const std::set<std::string>& staging) {
    test::insertAndSaturate(gr, test::data("tile_slices.lift"), {}, 0); // inserted only
    REQUIRE(localCopies(gr.g).empty());
    test::saturateCatalogue(
        gr,
        {{"staging.rules", staging}, {"opencl.rules", {"lower-lcl0", "lower-lcl1", "lower-seq"}}},
        6);
}

// Whether the hand-written program `name` (tests/extract/data) is in the e-graph already:
// inserting it adds no e-class and lands in the program's class.
bool holdsProgram(test::Graph& gr, const std::string& name) {
    size_t classes = gr.g.numClasses();
    lift::Program hand = lift::parseFile(test::data(name));
    egraph::Inserted other = egraph::insertProgram(gr.g, hand);
    return gr.g.numClasses() == classes && gr.g.find(other.root) == gr.g.find(gr.main.root);
}

// The program `name` extracted alone at 64^3, checked to copy two slices into local memory in
// the fold's step (outside the work-items' maps that read them) and run on the default device
// against the interpreter.
void checkStagedKernel(const std::string& name) {
    test::Graph alone;
    lift::Program hand = lift::parseFile(test::data(name));
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
    INFO(c.text);
    CHECK(count(c.text, std::regex(R"(toLocal\(MapLcl\()")) == 2);
    CHECK(std::regex_search(c.text, std::regex(R"(ReduceSeq\(fun\(\(x\d+, x\d+\) => \(fun)")));
    codegen::RunResult run = test::validate(c, sizes);
    INFO(run.summary());
    CHECK(run.ok);
}

} // namespace

TEST_CASE("a work-group's fold over tile slices reads both slices from local memory", "[extract]") {
    test::Graph gr;
    stageSlices(gr, {"stage-fold-slices"});
    // One copy per slice: the rule declines once the slices are read only as copies' arguments,
    // so the step is staged once, not once per iteration.
    CHECK(localCopies(gr.g).size() == 2);
    // The rewrite is the staged form as written by hand, which is a kernel.
    CHECK(holdsProgram(gr, "tile_slices_staged.lift"));
    checkStagedKernel("tile_slices_staged.lift");
}

TEST_CASE("a staged slice of B may be stored transposed", "[extract]") {
    test::Graph gr;
    stageSlices(gr, {"stage-fold-slices", "local-copy-transposed"});
    // Both slices' copies as they are and of their transposes (the same two toLocal e-nodes
    // applied to other arrays), and both staged forms in the program's class.
    CHECK(localCopies(gr.g).size() == 2);
    CHECK(holdsProgram(gr, "tile_slices_staged.lift"));
    CHECK(holdsProgram(gr, "tile_slices_staged_bt.lift"));
    checkStagedKernel("tile_slices_staged_bt.lift");
}

// Guided replays of the staged fold in tile_slices.lift after the staging and lowering rules,
// with the toLocal e-nodes as the guide: the staged replays the code generator accepts.
ExtractResult stagedExtraction(bool varyListed) {
    test::Graph gr;
    stageSlices(gr, {"stage-fold-slices"});
    ExtractOptions opt = test::guidedOptions({{"M", 64}, {"N", 64}, {"K", 64}}, localCopies(gr.g));
    opt.explore.varyListed = varyListed;
    return test::extractMain(gr, opt);
}

std::vector<Candidate> stagedReplays(const ExtractResult& r) {
    std::vector<Candidate> out;
    for (const Candidate& c : r.explored) {
        if (c.guided && count(c.text, std::regex(R"(toLocal\()")) == 2) {
            out.push_back(c);
        }
    }
    return out;
}

TEST_CASE("guided replays of the staged slices vary their terms off the guide", "[extract]") {
    // The best listed term above the fold (the result's copy to global memory lowered as
    // MapLcl(1, MapSeq(MapSeq(idF4)))) is one the code generator refuses, so every replay that
    // takes it is refused; later draws that take other listed terms there are accepted.
    ExtractResult fixed = stagedExtraction(false);
    CHECK(stagedReplays(fixed).empty());
    // The refused replays are counted and the first ones kept with the code generator's reason.
    CHECK(fixed.guidedRejectedCount >= fixed.guidedRejected.size());
    REQUIRE(!fixed.guidedRejected.empty());
    INFO(fixed.guidedRejected.front().reason);
    CHECK(fixed.guidedRejected.front().reason.find("MapLcl") != std::string::npos);
    CHECK(fixed.guidedRejected.size() <= ExtractResult::kGuidedRejectionsKept);
    std::vector<Candidate> replays = stagedReplays(stagedExtraction(true));
    REQUIRE(!replays.empty());
    INFO(replays.front().text);
    codegen::RunResult run = test::validate(replays.front(), {{"M", 64}, {"N", 64}, {"K", 64}});
    INFO(run.summary());
    CHECK(run.ok);
}

namespace {

// The e-nodes of a fold over slices (seq-fold-slices): a ReduceSeq whose step's body is a Join
// of a fold, and an application of its class; empty when there is none.
std::vector<egraph::ENodeId> sliceFold(const egraph::EGraph& g) {
    for (size_t id = 0; id < g.numNodeIds(); ++id) {
        auto r = static_cast<egraph::ENodeId>(id);
        const egraph::ENode& fold = g.node(r);
        if (fold.op != lift::Op::ReduceSeq) {
            continue;
        }
        bool sliced = false;
        for (egraph::ENodeId l : g.eclass(g.findConst(fold.children[0])).nodes) {
            const egraph::ENode& lambda = g.node(l);
            if (lambda.op != lift::Op::Lambda || lambda.ival != 2) {
                continue;
            }
            for (egraph::ENodeId b : g.eclass(g.findConst(lambda.children[0])).nodes) {
                const egraph::ENode& body = g.node(b);
                sliced =
                    sliced || (body.op == lift::Op::Apply && body.children.size() == 2 &&
                               g.eclass(g.findConst(body.children[0])).mayHold(lift::Op::Join));
            }
        }
        if (!sliced) {
            continue;
        }
        for (egraph::ENodeId p : g.eclass(g.findConst(r)).parents) {
            if (g.node(p).op == lift::Op::Apply && g.node(p).children.size() == 3) {
                return {r, p};
            }
        }
    }
    return {};
}

// The classes that class `c` applies a function holding `op` to (its applications' arguments).
std::vector<egraph::EClassId> appliedTo(const egraph::EGraph& g, egraph::EClassId c, lift::Op op) {
    std::vector<egraph::EClassId> out;
    for (egraph::ENodeId n : g.eclass(g.findConst(c)).nodes) {
        const egraph::ENode& app = g.node(n);
        if (app.op == lift::Op::Apply && g.eclass(g.findConst(app.children[0])).mayHold(op)) {
            for (size_t i = 1; i < app.children.size(); ++i) {
                out.push_back(g.findConst(app.children[i]));
            }
        }
    }
    return out;
}

// Whether data class `c` holds Map(...) $ (Zip $ (Map(...) $ x, Split(n) $ y)): split-zip's
// form of the slices of a zip, the first half the transposed slices of A's rows
// (split-transpose), the second the slices of B's column.
bool zipOfSlices(const egraph::EGraph& g, egraph::EClassId c) {
    for (egraph::EClassId zipped : appliedTo(g, c, lift::Op::Map)) {
        std::vector<egraph::EClassId> halves = appliedTo(g, zipped, lift::Op::Zip);
        for (size_t i = 0; i + 1 < halves.size(); i += 2) {
            if (!appliedTo(g, halves[i], lift::Op::Map).empty() &&
                !appliedTo(g, halves[i + 1], lift::Op::Split).empty()) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

TEST_CASE("a work-item's fold over K becomes a fold over slices of its two operands", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("tile_items.lift"), {}, 0); // inserted only
    REQUIRE(sliceFold(gr.g).empty());
    test::saturateCatalogue(gr,
                            {{"staging.rules", {"seq-fold-slices", "split-transpose"}},
                             {"algebra.rules", {"split-zip"}}},
                            4);
    std::vector<egraph::ENodeId> guide = sliceFold(gr.g);
    REQUIRE(guide.size() == 2);
    // The slices' data is also the zip of the slices of the work-item's two operands.
    CHECK(zipOfSlices(gr.g, gr.g.findConst(gr.g.node(guide[1]).children[2])));

    ExtractOptions opt = test::guidedOptions({{"M", 64}, {"N", 64}, {"K", 64}}, guide);
    opt.explore.towardsRoot = true;
    opt.explore.varyListed = true;
    ExtractResult r = test::extractMain(gr, opt);
    INFO(test::listing(r));
    // A replay: each work-item folds over slices of K (a tuning variable), each step folding
    // one slice from the accumulator, inside the work-items' maps.
    const std::regex sliced(
        R"(MapLcl\(fun\(x\d+ => .*ReduceSeq\(fun\(\(x\d+, x\d+\) => Join \$ \(ReduceSeq\(.*Split\(v__\d+\))");
    const Candidate* found = nullptr;
    for (const Candidate& c : r.explored) {
        UNSCOPED_INFO(c.text);
        if (c.guided && std::regex_search(c.text, sliced)) {
            found = &c;
            break;
        }
    }
    REQUIRE(found != nullptr);
    codegen::RunResult run = test::validate(*found, opt.sizes);
    INFO(run.summary());
    CHECK(run.ok);
}
