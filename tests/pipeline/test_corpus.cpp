// The whole pipeline on the high-level programs of the .lift corpus and its hand-lowered ones
// with Lift's atomic and warp-level maps (tests/lift/corpus/, those whose NAME.case.json says
// "pipeline": true): each must end with a kernel validated against
// the interpreter on PoCL. Small settings keep a program to seconds. With
// EGOPT_CORPUS_PIPELINE_SMOKE set (the sanitizer run, where a 3-D stencil takes minutes) only the
// programs marked "smoke" run: one small program per group.
#include "egopt/pipeline/pipeline.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace egopt;
using namespace egopt::pipeline;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(EGOPT_SOURCE_DIR) / "tests" / "lift" / "corpus";

bool smokeOnly() {
    return std::getenv("EGOPT_CORPUS_PIPELINE_SMOKE") != nullptr;
}

// The corpus programs whose names start with one of `prefixes` and that run end to end.
std::vector<std::pair<fs::path, nlohmann::json>> group(std::initializer_list<const char*> prefixes,
                                                       bool smokeOnly) {
    std::vector<std::pair<fs::path, nlohmann::json>> out;
    for (const auto& e : fs::directory_iterator(kCorpus)) {
        std::string name = e.path().filename().string();
        if (e.path().extension() != ".lift" ||
            std::none_of(prefixes.begin(), prefixes.end(),
                         [&](const char* p) { return name.starts_with(p); })) {
            continue;
        }
        std::ifstream in(fs::path(e.path()).replace_extension(".case.json"));
        if (!in) {
            continue; // the interp corpus test reports a missing reference
        }
        nlohmann::json c = nlohmann::json::parse(in);
        if (c.value("pipeline", false) && (!smokeOnly || c.value("smoke", false))) {
            out.emplace_back(e.path(), std::move(c));
        }
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

void runGroup(std::initializer_list<const char*> prefixes) {
    // The sanitizer run takes the smoke programs only (reference.py's SMOKE): one per group.
    REQUIRE(!group(prefixes, true).empty());
    auto programs = group(prefixes, smokeOnly());
    REQUIRE(!programs.empty());
    for (const auto& [path, c] : programs) {
        INFO(path.filename().string());
        Options o;
        o.file = path.string();
        for (const auto& [k, v] : c["sizes"].items()) {
            o.sizes[k] = v.get<int64_t>();
        }
        o.saturation.phases = defaultPhases();
        o.search.candidates = 2;
        o.search.draws = 0;
        o.tune.budget = 3;
        o.tune.runs = 2;
        Result r = run(o);
        REQUIRE(r.best);
        CHECK(r.candidates[*r.best].status == CandidateResult::Status::Valid);
    }
}

} // namespace

TEST_CASE("corpus end to end: blocks, defs and Scala forms", "[pipeline][corpus]") {
    runGroup({"block_", "def_", "lambda_", "sizevar_", "comments_", "type_", "literal_", "program_",
              "highlevel_"});
}

TEST_CASE("corpus end to end: user functions as Lift writes them", "[pipeline][corpus]") {
    runGroup({"uf_", "value_", "library_"});
}

TEST_CASE("corpus end to end: 1-D stencils, layouts and generators", "[pipeline][corpus]") {
    runGroup({"stencil1d_", "layout_", "generator_"});
}

TEST_CASE("corpus end to end: 2-D stencils and Zip2D", "[pipeline][corpus]") {
    runGroup({"stencil2d_", "zip2d"});
}

TEST_CASE("corpus end to end: 3-D stencils and Zip3D", "[pipeline][corpus]") {
    runGroup({"stencil3d_", "zip3d"});
}

TEST_CASE("corpus end to end: Lift's atomic and warp-level maps", "[pipeline][corpus]") {
    runGroup({"printed_atomic_", "printed_warp_"});
}

TEST_CASE("corpus end to end: Lift's ScanSeq, ReduceWhileSeq and InsertionSortSeq",
          "[pipeline][corpus]") {
    runGroup({"seq_"});
}
