// A hidden case (never run by ctest): re-predicts recorded runs of another device with the
// features recomputed from each record's program by the current code generator and feature
// code, so that a feature change can be judged on measurements taken before it:
//   EGOPT_RERANK_IN=costmodel/data/nvidia-h200.jsonl EGOPT_RERANK_CLASS=nvidia-gpu
//   EGOPT_RERANK_CU=132 EGOPT_RERANK_MHZ=1980 test_costmodel "[.rerank]"
// EGOPT_RERANK_MODEL picks the model (default "analytic"), EGOPT_RERANK_SIZES (e.g.
// M=4096,N=4096,K=4096,v__3=16) evaluates every program at other sizes or binds its tuning
// variables (a measured time belongs to the recorded sizes), EGOPT_RERANK_VERBOSE=1 prints
// every record, and EGOPT_RERANK_OUT=FILE appends every record, with its recomputed features where
// its program parses (its `source`, else its printed term inside the label's file), to FILE.
#include "recorded.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

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

} // namespace

TEST_CASE("re-predict recorded runs with recomputed features", "[.rerank]") {
    auto records = readRecords(envOr("EGOPT_RERANK_IN", "records.jsonl"));
    auto model = loadModel(envOr("EGOPT_RERANK_MODEL", "analytic"));
    DeviceProfile prof = recordedProfile(*model, envOr("EGOPT_RERANK_CLASS", ""),
                                         std::stod(envOr("EGOPT_RERANK_CU", "132")),
                                         std::stod(envOr("EGOPT_RERANK_MHZ", "1980")));
    arith::Bindings sizes = rerankSizes(envOr("EGOPT_RERANK_SIZES", ""));
    bool verbose = envOr("EGOPT_RERANK_VERBOSE", "") == "1";
    std::string out = envOr("EGOPT_RERANK_OUT", "");
    size_t failed = 0;
    for (auto& r : records) {
        for (const auto& [name, value] : sizes) {
            r.sizes[name] = value;
        }
        try {
            recomputeFeatures(r, prof);
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
