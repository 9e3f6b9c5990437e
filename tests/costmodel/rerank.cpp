// A hidden case (never run by ctest): re-predicts recorded runs of another device with the
// features recomputed from each record's program by the current code generator and feature
// code, so that a feature change can be judged on measurements taken before it:
//   EGOPT_RERANK_IN=costmodel/data/nvidia-h200.jsonl EGOPT_RERANK_CLASS=nvidia-gpu
//   EGOPT_RERANK_CU=132 EGOPT_RERANK_MHZ=1980 test_costmodel "[.rerank]"
// EGOPT_RERANK_MODEL picks the model (default "analytic"), EGOPT_RERANK_SIZES (e.g.
// M=4096,N=4096,K=4096,v__3=16) evaluates every program at other sizes or binds its tuning
// variables (a measured time belongs to the recorded sizes), and EGOPT_RERANK_VERBOSE=1 prints
// every record.
#include "support.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

DeviceProfile rerankProfile(const Model& model) {
    runtime::Device device;
    device.name = "NVIDIA H200";
    device.vendor = "NVIDIA Corporation";
    device.type = "GPU";
    DeviceProfile p = model.profile(device);
    std::string cls = envOr("EGOPT_RERANK_CLASS", "");
    if (const auto* a = dynamic_cast<const AnalyticModel*>(&model)) {
        for (const auto& c : a->classes()) {
            if (c.deviceClass == cls) {
                p = queryProfile(device, c.constants);
                p.deviceClass = c.deviceClass;
            }
        }
    }
    p.computeUnits = std::stod(envOr("EGOPT_RERANK_CU", "132"));
    p.clockHz = std::stod(envOr("EGOPT_RERANK_MHZ", "1980")) * 1e6;
    p.maxWorkGroupSize = 1024;
    return p;
}

arith::Bindings rerankSizes(const std::string& text) {
    arith::Bindings out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        auto eq = item.find('=');
        if (eq != std::string::npos) {
            out[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
        }
    }
    return out;
}

// A recorded program is the body of the label's program: its file's text up to the first `=>`
// (sizes, types, parameters) is put around it.
std::string wholeProgram(const Record& r) {
    if (!r.source.empty()) {
        return r.source;
    }
    if (r.program.starts_with("val ") || r.program.starts_with("//")) {
        return r.program;
    }
    std::ifstream in(sourceDir() + "/" + r.label);
    std::stringstream file;
    file << in.rdbuf();
    std::string text = file.str();
    auto arrow = text.find("=>");
    return arrow == std::string::npos ? r.program
                                      : text.substr(0, arrow + 2) + " " + r.program + ")";
}

// Recomputes a record's features from its program at its sizes (tuning variables, which records
// do not hold, can be given in EGOPT_RERANK_SIZES; a record whose program needs others keeps its
// recorded features).
void recompute(Record& r, const DeviceProfile& prof) {
    std::string text = wholeProgram(r);
    lift::Program p = lift::parseProgram(text, r.label);
    lift::TypeInfo info = lift::typecheck(p);
    r.features = computeFeatures(codegen::generate(p, info, r.sizes), r.sizes, prof);
}

} // namespace

TEST_CASE("re-predict recorded runs with recomputed features", "[.rerank]") {
    auto records = readRecords(envOr("EGOPT_RERANK_IN", "records.jsonl"));
    auto model = loadModel(envOr("EGOPT_RERANK_MODEL", "analytic"));
    DeviceProfile prof = rerankProfile(*model);
    arith::Bindings sizes = rerankSizes(envOr("EGOPT_RERANK_SIZES", ""));
    bool verbose = envOr("EGOPT_RERANK_VERBOSE", "") == "1";
    std::string out = envOr("EGOPT_RERANK_OUT", "");
    size_t failed = 0;
    for (auto& r : records) {
        for (const auto& [name, value] : sizes) {
            r.sizes[name] = value;
        }
        try {
            recompute(r, prof);
        } catch (const std::exception& e) {
            if (verbose) {
                std::printf("%s: %s\n", r.label.c_str(), e.what());
            }
            ++failed;
        }
        if (!out.empty()) {
            appendRecord(out, r); // recomputed, or as recorded
        }
        if (verbose) {
            const KernelFeatures& t = r.features.total;
            std::printf("%s measured %.4g ms predicted %.4g ms (recorded %.4g) read %.4g/%.4g "
                        "cached %.4g/%.4g items %.4g private %.4g\n",
                        r.label.c_str(), r.measuredSeconds * 1e3,
                        model->predictSeconds(r.features, prof) * 1e3, r.predicted * 1e3,
                        t.globalReadCoalesced, t.globalReadStrided, t.cachedReadCoalesced,
                        t.cachedReadStrided, t.workItems, t.privateBytes);
        }
    }
    auto runs =
        rankRuns(records, [&](const Record& r) { return model->predictSeconds(r.features, prof); });
    std::cout << "model " << model->source() << ", class " << prof.deviceClass << ", "
              << records.size() << " records (" << failed << " kept their recorded features)\n";
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        std::printf("%-4zu %-24s %3zu candidates  tau %.3f  gap %.3f\n", i + 1, r.label.c_str(),
                    r.measured.size(), r.tauPredicted, r.gapPredicted);
    }
}
