// The .lift corpus (tests/lift/corpus/): programs written the way Lift's own sources and printed
// expressions are, each checked, typed and interpreted against the result that
// tests/lift/corpus/reference.py computes independently (NAME.case.json).
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using egopt::interp::Value;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(EGOPT_SOURCE_DIR) / "tests" / "lift" / "corpus";

std::vector<fs::path> corpusPrograms() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(kCorpus)) {
        if (e.path().extension() == ".lift") {
            out.push_back(e.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

nlohmann::json readJson(const fs::path& p) {
    std::ifstream in(p);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

void flatten(const nlohmann::json& j, std::vector<double>& out) {
    if (j.is_array()) {
        for (const auto& e : j) {
            flatten(e, out);
        }
        return;
    }
    out.push_back(j.get<double>());
}

} // namespace

TEST_CASE("the corpus has at least 40 programs, each with a reference", "[interp][corpus]") {
    auto programs = corpusPrograms();
    CHECK(programs.size() >= 40);
    for (const fs::path& p : programs) {
        INFO(p.filename().string());
        CHECK(fs::exists(fs::path(p).replace_extension(".case.json")));
    }
}

TEST_CASE("every corpus program interprets to its independent reference", "[interp][corpus]") {
    for (const fs::path& path : corpusPrograms()) {
        std::string name = path.stem().string();
        fs::path casePath = fs::path(path).replace_extension(".case.json");
        if (!fs::exists(casePath)) {
            continue; // reported by the test above
        }
        nlohmann::json c = readJson(casePath);
        INFO(name);
        egopt::arith::Bindings sizes;
        for (const auto& [k, v] : c["sizes"].items()) {
            sizes[k] = v.get<int64_t>();
        }
        egopt::lift::Program p = egopt::lift::parseFile(path.string());
        egopt::lift::TypeInfo info = egopt::lift::typecheck(p);
        std::vector<Value> args = egopt::interp::inputsFromJson(p, sizes, c["inputs"].dump(), 1);
        egopt::interp::Interpreter interp(p, info, sizes);
        std::vector<double> got;
        std::vector<double> want;
        egopt::interp::flattenScalars(interp.run(args), got);
        flatten(c["expected"], want);
        double tol = c.value("tolerance", 1e-4);
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
            CHECK(std::abs(got[i] - want[i]) <= tol * (1.0 + std::abs(want[i])));
        }
    }
}
