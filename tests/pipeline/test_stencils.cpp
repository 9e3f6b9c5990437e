// Local tiles of a stencil's neighbourhoods without macros (docs/search.md, "Local tiles of a
// stencil"): stencils.rules joins the algorithmic and lowering phases, its overlapped tiles (1-D,
// 2-D u x v, 3-D) are staged in local memory, exploration's local-tile guides replay them (also
// after copy-elim merged the copy with the tile), and the replayed kernels validate on PoCL.
#include "../../src/pipeline/stages.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/pipeline/saturation.hpp"
#include "goal_fixtures.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::pipeline;

namespace {

std::string stencilFile(const std::string& name) {
    if (name == "jacobi3") {
        return std::string(EGOPT_SHARED_DIR) + "/examples/jacobi3.lift";
    }
    return std::string(EGOPT_SOURCE_DIR) + "/tests/lift/corpus/" + name + ".lift";
}

// A program's e-graph after the default GPU phases without macros, `rounds` times (a second
// round rewrites what the first wrote, as a later search stage does: copy-elim merges a tile's
// copy with the tile): the goal fixtures' program, e-graph, context and phases.
using Saturated = goal_fixtures::Saturated;

std::unique_ptr<Saturated> saturated(const std::string& name) {
    auto s = std::make_unique<Saturated>();
    s->program = lift::parseFile(stencilFile(name));
    s->ins = egraph::insertProgram(s->g, s->program);
    return s;
}

void saturateOnce(Saturated& s) {
    SaturationOptions o;
    o.noMacros = true;
    o.phases = defaultPhases(true);
    auto more = saturate(s.g, s.ctx, o, true, {});
    s.phases.insert(s.phases.end(), more.begin(), more.end());
}

// The guided replays of `guides` under the GPU cost at `sizes` (8 draws per guide).
std::vector<extract::Candidate> replays(const Saturated& s,
                                        const std::vector<std::vector<egraph::ENodeId>>& guides,
                                        const arith::Bindings& sizes) {
    extract::ExtractOptions eo;
    eo.sizes = sizes;
    eo.explore.draws = 16;
    eo.explore.guides = guides;
    eo.explore.guidedDraws = 8;
    return goal_fixtures::guidedDraws(s, std::move(eo));
}

// jacobi3's tiles staged whole in local memory, a work-group per tile, its work-items computing
// the tile's neighbourhoods from the copy.
bool stagedTile(const std::string& text) {
    return text.rfind("Join $ (MapWrg(fun(x1 => MapLcl(", 0) == 0 &&
           text.find("(Slide(3, 1) $ (toLocal(MapLcl(id, 0)) $ x1))") != std::string::npos &&
           text.find("(Slide(v__") != std::string::npos;
}

bool anyStagedTile(const std::vector<extract::Candidate>& cs) {
    for (const auto& c : cs) {
        UNSCOPED_INFO(c.text);
    }
    return std::any_of(cs.begin(), cs.end(),
                       [](const extract::Candidate& c) { return stagedTile(c.text); });
}

} // namespace

TEST_CASE("without macros, a GPU phase tiles a stencil and stages each tile in local memory",
          "[pipeline]") {
    auto s = saturated("jacobi3");
    saturateOnce(*s);
    REQUIRE(s->phases.size() == 2);
    const auto& files = s->phases[1].ruleFiles;
    CHECK(std::any_of(files.begin(), files.end(), [](const std::string& f) {
        return f.find("stencils.rules") != std::string::npos;
    }));
    auto guides = localTiles(s->g, s->ins.root, 8, {});
    REQUIRE(!guides.empty());
    CHECK(anyStagedTile(replays(*s, guides, {{"N", 4096}})));
}

TEST_CASE("a local tile's guide replays after copy-elim merged the copy with the tile",
          "[pipeline]") {
    auto s = saturated("jacobi3");
    saturateOnce(*s);
    auto first = localTiles(s->g, s->ins.root, 8, {});
    REQUIRE(!first.empty());
    saturateOnce(*s); // as a later stage: the tile's copy is now in the tile's class
    // The earlier guides first: the ways found in the grown e-graph pass later rewrites.
    auto guides = localTiles(s->g, s->ins.root, 8, first);
    REQUIRE(guides.size() >= first.size());
    CHECK(anyStagedTile(replays(*s, {guides.front()}, {{"N", 4096}})));
}

namespace {

// Occurrences of `part` in `text`.
size_t occurrences(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++n;
    }
    return n;
}

} // namespace

TEST_CASE("without macros the search reaches and validates local tiles of 1-D, 2-D and 3-D "
          "stencils",
          "[pipeline]") {
    struct Case {
        std::string name;
        arith::Bindings sizes;
        // The staged tile's kernel: parts and how often each occurs at least.
        std::vector<std::pair<std::string, size_t>> parts;
    };
    // 1-D: tiles of the padded array, a work-group each. 2-D: u x v tiles of the grid (blocks
    // of rows cut into tiles of columns, two tile sizes), a work-group each, staged whole. 3-D:
    // such tiles of each window of 3 planes' grid of columns, a work-group per window and tile.
    for (const Case& c :
         {Case{"jacobi3",
               {{"N", 4096}},
               {{"Join $ (MapWrg(", 1}, {"toLocal(MapLcl(id, 0))", 1}, {"Slide(v__", 1}}},
          Case{"stencil2d_jacobi",
               {{"M", 512}, {"N", 512}},
               {{"MapWrg(", 2}, {"toLocal(MapLcl(MapLcl(id", 1}, {"Slide(v__", 2}}},
          Case{"stencil2d_ninepoint",
               {{"M", 512}, {"N", 512}},
               {{"MapWrg(", 2}, {"toLocal(MapLcl(MapLcl(id", 1}, {"Slide(v__", 2}}},
          Case{"stencil3d_clamp",
               {{"M", 64}, {"N", 64}, {"O", 16}},
               {{"MapWrg(", 3}, {"toLocal(MapLcl(MapLcl(", 1}, {"Slide(v__", 2}}}}) {
        INFO(c.name);
        Options o;
        o.file = stencilFile(c.name);
        o.sizes = c.sizes;
        o.saturation.noMacros = true;
        o.search.target = ExtractTarget::Gpu;
        o.search.stages = 1;
        o.search.draws = 64;
        o.tune.budget = 20;
        o.tune.runs = 1;
        o.tune.farRatio = 0;   // every candidate measured
        o.tune.validate = 100; // and validated against the interpreter
        Result r = run(o);
        auto staged = std::find_if(r.candidates.begin(), r.candidates.end(), [&](const auto& k) {
            UNSCOPED_INFO(k.text);
            return std::all_of(c.parts.begin(), c.parts.end(), [&](const auto& p) {
                return occurrences(k.text, p.first) >= p.second;
            });
        });
        REQUIRE(staged != r.candidates.end());
        INFO(staged->text << ": " << staged->reason);
        CHECK(staged->status == CandidateResult::Status::Valid);
    }
}
