// Calibration data and the tau report: hidden test cases (not run by ctest, never timed tests)
// that act as the tool described in docs/cost-models.md.
//
//   EGOPT_CALIB_OUT=costmodel/data/pocl-cpu.jsonl test_costmodel "[.calibrate]"
//       runs the mm variants (tests/costmodel/data/mm) and the hand-lowered programs on the
//       default device, appending one record per program and size (median of runs).
//   EGOPT_CALIB_IN=costmodel/data/pocl-cpu.jsonl test_costmodel "[.report]"
//       prints Kendall's tau of the analytic model and of the learned model (held out) on the
//       mm variants, and writes the learned model fitted on all records to EGOPT_CALIB_MODEL.
//   EGOPT_CALIB_IN=costmodel/data/pocl-cpu.jsonl test_costmodel "[.predictions]"
//       prints every record's recomputed features and predictions, and tau per group.
#include "egopt/codegen/validate.hpp"
#include "egopt/runtime/session.hpp"
#include "egopt/support/diagnostic.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;
namespace fs = std::filesystem;

namespace {

// The companion .json's first input combination, else defaults by the number of variables.
std::vector<arith::Bindings> sizesFor(const lift::Program& p, const fs::path& file, bool mm) {
    std::vector<arith::Bindings> out;
    if (mm) {
        out.push_back({{"M", 256}, {"N", 256}, {"K", 256}});
        out.push_back({{"M", 128}, {"N", 512}, {"K", 128}});
        return out;
    }
    fs::path companion = fs::path(file).replace_extension(".json");
    std::vector<int64_t> values;
    if (fs::exists(companion)) {
        auto j = nlohmann::json::parse(std::ifstream(companion), nullptr, false);
        if (j.is_object() && j.contains("input_combinations") && !j["input_combinations"].empty())
            values = j["input_combinations"][0].get<std::vector<int64_t>>();
    }
    arith::Bindings b;
    int64_t dflt = p.sizeVars.size() == 1 ? (1 << 18) : p.sizeVars.size() == 2 ? 512 : 256;
    for (size_t i = 0; i < p.sizeVars.size(); ++i) {
        b[p.sizeVars[i]] = i < values.size() ? values[i] : dflt;
    }
    out.push_back(b);
    return out;
}

void runOne(runtime::Session& s, const Model& model, const DeviceProfile& prof,
            const fs::path& file, bool mm, const std::string& out) {
    lift::Program p = lift::parseFile(file.string());
    lift::TypeInfo info = lift::typecheck(p);
    for (const auto& sizes : sizesFor(p, file, mm)) {
        try {
            codegen::GeneratedCode code = codegen::generate(p, info, sizes);
            codegen::RunOptions opt;
            opt.warmup = 2;
            opt.runs = std::stoi(envOr("EGOPT_CALIB_RUNS", "9"));
            codegen::RunResult r = codegen::runAndValidate(s, p, info, sizes, code, opt);
            Record rec;
            rec.device = prof.name;
            rec.deviceClass = prof.deviceClass;
            rec.sizes = sizes;
            rec.program = file.filename().string();
            rec.label = (mm ? "mm/" : "other/") + file.stem().string();
            rec.features = computeFeatures(code, sizes, prof);
            rec.predicted = model.predictSeconds(rec.features, prof);
            rec.measuredSeconds = static_cast<double>(r.medianNs) * 1e-9;
            if (r.ok) {
                appendRecord(out, rec);
            }
            std::cout << rec.label << " " << (r.ok ? "OK" : "FAIL") << " measured "
                      << rec.measuredSeconds << " predicted " << rec.predicted << "\n";
        } catch (const std::exception& e) {
            std::cout << file.string() << ": skipped: " << e.what() << "\n";
        }
    }
}

std::vector<fs::path> lifts(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".lift") {
            out.push_back(e.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

double tauOf(const std::vector<Record>& rs, const std::function<double(const Record&)>& pred) {
    std::vector<double> p, m;
    for (const auto& r : rs) {
        p.push_back(pred(r));
        m.push_back(r.measuredSeconds);
    }
    return kendallTau(p, m);
}

} // namespace

TEST_CASE("calibration data: run programs and record features and times", "[.calibrate]") {
    std::string out = envOr("EGOPT_CALIB_OUT", "calibration.jsonl");
    auto model = loadModel(envOr("EGOPT_CALIB_MODEL_IN", "analytic"));
    runtime::Session s(runtime::selectDevice(envOr("EGOPT_CALIB_DEVICE", "")));
    DeviceProfile prof = model->profile(s.device());
    std::string src = sourceDir();
    std::string only = envOr("EGOPT_CALIB_ONLY", "");
    for (const auto& f : lifts(src + "/tests/costmodel/data/mm")) {
        if (only.empty() || only == "mm") {
            runOne(s, *model, prof, f, true, out);
        }
    }
    for (const char* dir : {"/tests/codegen/programs", "/examples/lowlevel"}) {
        for (const auto& f : lifts(src + dir)) {
            if (only.empty() || only == "other") {
                runOne(s, *model, prof, f, false, out);
            }
        }
    }
}

namespace {

// Recomputes a record's features from its program (so feature changes need no new measurements).
void refresh(Record& r, const DeviceProfile& prof) {
    std::string src = sourceDir();
    if (r.program.find('/') != std::string::npos && fs::exists(src + "/" + r.program)) {
        lift::Program p = lift::parseFile(src + "/" + r.program); // a [.retime] record
        lift::TypeInfo info = lift::typecheck(p);
        r.features = computeFeatures(codegen::generate(p, info, r.sizes), r.sizes, prof);
        return;
    }
    std::vector<std::string> dirs =
        r.label.starts_with("mm/")
            ? std::vector<std::string>{"/tests/costmodel/data/mm/"}
            : std::vector<std::string>{"/tests/codegen/programs/", "/examples/lowlevel/"};
    for (const auto& d : dirs) {
        if (fs::exists(src + d + r.program)) {
            lift::Program p = lift::parseFile(src + d + r.program);
            lift::TypeInfo info = lift::typecheck(p);
            r.features = computeFeatures(codegen::generate(p, info, r.sizes), r.sizes, prof);
            return;
        }
    }
}

void reportTaus(const std::string& what, const std::vector<Record>& mm,
                const std::function<double(const Record&)>& predict) {
    std::map<std::string, std::vector<Record>> bySize;
    for (const auto& r : mm) {
        bySize[std::to_string(r.sizes.at("M")) + "x" + std::to_string(r.sizes.at("N")) + "x" +
               std::to_string(r.sizes.at("K"))]
            .push_back(r);
    }
    std::cout << what << ": tau all mm " << tauOf(mm, predict);
    for (const auto& [size, rs] : bySize) {
        std::cout << ", " << size << " (" << rs.size() << ") " << tauOf(rs, predict);
    }
    std::cout << "\n";
}

} // namespace

TEST_CASE("calibration report: Kendall's tau on the mm variants", "[.report]") {
    auto records = readRecords(envOr("EGOPT_CALIB_IN", "calibration.jsonl"));
    auto analytic = loadModel(envOr("EGOPT_CALIB_ANALYTIC", "analytic"));
    DeviceProfile prof = analytic->profile(runtime::selectDevice(""));
    std::vector<Record> mm, other;
    for (auto& r : records) {
        refresh(r, prof);
        (r.label.starts_with("mm/") ? mm : other).push_back(r);
    }
    AnalyticModel am({});
    std::cout << "records: " << records.size() << " (mm " << mm.size() << ")\n";
    reportTaus("analytic, shipped constants", mm,
               [&](const Record& r) { return am.predictSeconds(r.features, prof); });
    DeviceProfile heldOut = calibrateAnalytic(other, prof);
    reportTaus("analytic, constants calibrated on non-mm programs", mm,
               [&](const Record& r) { return am.predictSeconds(r.features, heldOut); });
    DeviceProfile all = calibrateAnalytic(records, prof);
    reportTaus("analytic, constants calibrated on all records", mm,
               [&](const Record& r) { return am.predictSeconds(r.features, all); });
    std::cout << "calibrated (all records): "
              << AnalyticModel({{prof.deviceClass, "", all}}).toJson() << "\n";
    std::cout << "calibrated (non-mm records): "
              << AnalyticModel({{prof.deviceClass, "", heldOut}}).toJson() << "\n";
    LearnedModel noMm = fitLearned(other, {});
    reportTaus("learned, fitted on non-mm programs", mm,
               [&](const Record& r) { return noMm.predictSeconds(r.features, prof); });
    std::vector<double> loo, measured;
    for (size_t i = 0; i < records.size(); ++i) {
        if (records[i].label.starts_with("mm/")) {
            std::vector<Record> train = records;
            train.erase(train.begin() + static_cast<long>(i));
            loo.push_back(fitLearned(train, {}).predictSeconds(records[i].features, prof));
            measured.push_back(records[i].measuredSeconds);
        }
    }
    std::cout << "learned, leave-one-out: tau all mm " << kendallTau(loo, measured) << "\n";
    for (const auto& r : mm) {
        std::cout << "  " << r.label << " " << r.sizes.at("M") << "x" << r.sizes.at("N") << "x"
                  << r.sizes.at("K") << " measured " << r.measuredSeconds * 1e3
                  << " ms, analytic (held-out constants) "
                  << am.predictSeconds(r.features, heldOut) * 1e3 << " ms\n";
    }
    std::string modelOut = envOr("EGOPT_CALIB_MODEL", "");
    if (!modelOut.empty()) {
        LearnedModel fitted = fitLearned(records, {});
        fitted.deviceClass = prof.deviceClass;
        saveModel(fitted, modelOut);
        std::cout << "wrote " << modelOut << "\n";
    }
}

// Every record's features and predictions recomputed from its program with the current code
// generator and cost model, and Kendall's tau per group (mm at each size, the other programs):
//   EGOPT_CALIB_IN=costmodel/data/pocl-cpu.jsonl test_costmodel "[.predictions]"
// Comparing the output of two builds shows which predictions a change moved.
TEST_CASE("predictions of the current model on recorded runs", "[.predictions]") {
    auto records = readRecords(envOr("EGOPT_CALIB_IN", "calibration.jsonl"));
    auto analytic = loadModel("analytic");
    auto learned = loadModel("learned");
    DeviceProfile prof = analytic->profile(runtime::selectDevice(""));
    std::map<std::string, std::vector<Record>> groups;
    std::cout.precision(17);
    for (auto& r : records) {
        refresh(r, prof);
        std::string group = "other";
        if (r.label.starts_with("mm/")) {
            group = "mm " + std::to_string(r.sizes.at("M")) + "x" +
                    std::to_string(r.sizes.at("N")) + "x" + std::to_string(r.sizes.at("K"));
        }
        groups[group].push_back(r);
        std::cout << r.label << " " << group << " analytic "
                  << analytic->predictSeconds(r.features, prof) << " learned "
                  << learned->predictSeconds(r.features, prof) << " measured " << r.measuredSeconds
                  << " features";
        for (double v : r.features.total.values()) {
            std::cout << " " << v;
        }
        std::cout << "\n";
    }
    groups["all"] = records;
    for (const auto& [group, rs] : groups) {
        std::cout
            << "tau " << group << " (" << rs.size() << "): analytic "
            << tauOf(rs,
                     [&](const Record& r) { return analytic->predictSeconds(r.features, prof); })
            << " learned "
            << tauOf(rs, [&](const Record& r) { return learned->predictSeconds(r.features, prof); })
            << "\n";
    }
}
