// Local tiles of a stencil's neighbourhoods without macros (docs/search.md, "Local tiles of a
// stencil"): stencils.rules joins the lowering phase, its overlapped tiles are staged in local
// memory, exploration's local-tile guides replay them (also after copy-elim merged the copy with
// the tile), and the replayed kernels validate on PoCL.
#include "../../src/pipeline/stages.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/pipeline/saturation.hpp"

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
// copy with the tile).
struct Saturated {
    lift::Program program;
    egraph::EGraph g;
    egraph::Inserted ins;
    egraph::RewriteContext ctx;
    std::vector<PhaseResult> phases;
};

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
    if (std::getenv("IT0")) {
        o.phases[0].limits.iterations = std::stoul(std::getenv("IT0"));
        o.phases[1].limits.iterations = std::stoul(std::getenv("IT1"));
    }
    auto more = saturate(s.g, s.ctx, o, true, {});
    s.phases.insert(s.phases.end(), more.begin(), more.end());
}

// The guided replays of `guides` under the GPU cost at `sizes` (8 draws per guide).
std::vector<extract::Candidate> replays(const Saturated& s,
                                        const std::vector<std::vector<egraph::ENodeId>>& guides,
                                        const arith::Bindings& sizes) {
    extract::ExtractOptions eo;
    eo.k = 2;
    eo.sizes = sizes;
    eo.multipleKernels = true;
    eo.explore.draws = 16;
    eo.explore.guides = guides;
    eo.explore.guidedDraws = 8;
    eo.exploreChecks = 64;
    extract::StructuralCost cost(s.g, s.ctx.tuning, eo.sizes,
                                 extract::StructuralCost::Params::gpu());
    auto r = extract::extractCandidates(s.g, s.ctx.tuning, s.ins.root, s.ins.signature, cost, eo);
    std::vector<extract::Candidate> out;
    std::copy_if(r.explored.begin(), r.explored.end(), std::back_inserter(out),
                 [](const extract::Candidate& c) { return c.guided; });
    return out;
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

TEST_CASE("without macros the search reaches and validates local tiles of 1-D and 2-D stencils",
          "[pipeline]") {
    struct Case {
        std::string name;
        arith::Bindings sizes;
        std::vector<std::string> parts; // of the staged tile's kernel
    };
    // 1-D: tiles of the padded array; 2-D: strips of each window of 3 rows (stencil-tile-columns).
    for (const Case& c :
         {Case{
              "jacobi3", {{"N", 4096}}, {"Join $ (MapWrg(", "toLocal(MapLcl(id, 0))", "Slide(v__"}},
          Case{"stencil2d_jacobi",
               {{"M", 512}, {"N", 512}},
               {"MapWrg(", "toLocal(MapLcl(", "(Transpose $ (Map(Slide(v__"}}}) {
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
            return std::all_of(c.parts.begin(), c.parts.end(), [&](const std::string& p) {
                return k.text.find(p) != std::string::npos;
            });
        });
        REQUIRE(staged != r.candidates.end());
        INFO(staged->text << ": " << staged->reason);
        CHECK(staged->status == CandidateResult::Status::Valid);
    }
}

TEST_CASE("DEBUG 2d tiles", "[pipeline][debug]") {
    std::string name = std::getenv("ST") ? std::getenv("ST") : "stencil2d_jacobi";
    size_t limit = std::getenv("LIM") ? std::stoul(std::getenv("LIM")) : 8;
    auto s = saturated(name);
    saturateOnce(*s);
    auto guides = localTiles(s->g, s->ins.root, limit, {});
    WARN("guides " << guides.size());
    size_t i = 0;
    for (const auto& gd : guides) {
        std::string ops;
        int wrg = 0;
        for (auto n : gd) {
            ops += std::string(lift::opName(s->g.node(n).op)) + std::to_string(s->g.node(n).ival) + " ";
            wrg += s->g.node(n).op == lift::Op::MapWrg;
        }
        auto rs = replays(*s, {gd}, {{"M", 64}, {"N", 64}, {"O", 64}});
        if (gd.size() >= 14 || wrg >= 2) {
            WARN("guide " << i << " replays " << rs.size() << ": " << ops);
        }
        for (const auto& c : rs) {
            WARN(i << " " << c.text);
        }
        ++i;
    }
}
