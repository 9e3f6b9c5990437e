// The analytic model's shape, Kendall's tau, fitting, model files and the `egopt fit` command.
#include "egopt/support/diagnostic.hpp"
#include "support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

AnalyticModel shippedAnalytic() {
    auto m = loadModel("analytic");
    REQUIRE(m->kind() == "analytic");
    return *dynamic_cast<AnalyticModel*>(m.get());
}

// The shipped analytic model's NVIDIA class.
DeviceProfile nvidiaConstants(const AnalyticModel& m) {
    for (const auto& c : m.classes()) {
        if (c.deviceClass == "nvidia-gpu") {
            return c.constants;
        }
    }
    FAIL("no nvidia-gpu class in costmodel/analytic.json");
    return {};
}

std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("egopt_costmodel_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

} // namespace

TEST_CASE("analytic predictions grow with the size", "[models]") {
    AnalyticModel m = shippedAnalytic();
    DeviceProfile p = m.classes().front().constants;
    p.computeUnits = 2;
    double last = 0;
    for (int64_t n : {1024, 4096, 16384, 65536, 262144}) {
        double t = m.predictSeconds(featuresOf(kCopy, {{"N", n}}), p);
        CHECK(t > last);
        last = t;
    }
}

TEST_CASE("analytic predictions penalise uncoalesced access", "[models]") {
    AnalyticModel m = shippedAnalytic();
    for (const auto& c : m.classes()) {
        DeviceProfile p = c.constants;
        arith::Bindings sizes{{"M", 256}, {"N", 256}, {"K", 256}};
        std::string dir = sourceDir() + "/tests/costmodel/data/mm/";
        double good = m.predictSeconds(featuresOfFile(dir + "naive_glb10.lift", sizes, p), p);
        double bad = m.predictSeconds(featuresOfFile(dir + "naive_glb01.lift", sizes, p), p);
        INFO(c.deviceClass);
        CHECK(bad > good);
        // Same features with the traffic moved to strided costs more.
        KernelFeatures k;
        k.globalReadCoalesced = 1e6;
        k.workItems = 1e5;
        k.workGroups = 1e3;
        k.workGroupSize = 100;
        KernelFeatures s = k;
        std::swap(s.globalReadCoalesced, s.globalReadStrided);
        CHECK(m.kernelSeconds(s, p) > m.kernelSeconds(k, p));
    }
}

TEST_CASE("analytic model on a CPU: cores in waves, scalar loops, same work same time",
          "[models]") {
    AnalyticModel m = shippedAnalytic();
    DeviceProfile p = m.classes().front().constants;
    REQUIRE(!p.gpu);
    p.computeUnits = 2;
    KernelFeatures k;
    k.arithOps = 1e8;
    k.privateAccesses = 1e8;
    k.workItems = 4096;
    k.workGroupSize = 64;
    k.loopTrips = 1000;
    auto withGroups = [&](double groups) {
        KernelFeatures g = k;
        g.workGroups = groups;
        g.workItems = groups * g.workGroupSize;
        return m.kernelSeconds(g, p);
    };
    // One group uses one core; three groups on two cores take two waves.
    CHECK(withGroups(1) > 1.9 * withGroups(2));
    CHECK(withGroups(3) > 1.3 * withGroups(4));
    CHECK(withGroups(64) == Approx(withGroups(128)).epsilon(0.01));
    // Work-items with long loops run scalar; loop-free (or fully unrolled) ones are vectorised.
    KernelFeatures loopFree = k;
    loopFree.workGroups = 64;
    loopFree.loopTrips = 32;
    KernelFeatures looped = loopFree;
    looped.loopTrips = 1000;
    CHECK(m.kernelSeconds(looped, p) > 4 * m.kernelSeconds(loopFree, p));
    // The mm variants that differ only in the order of work-items over the output (naive
    // MapGlb either way, work-groups per row, 2D tiles) do the same work on a CPU (measured:
    // docs/cost-models.md); the model predicts them within 10 %.
    arith::Bindings sizes{{"M", 256}, {"N", 256}, {"K", 256}};
    std::string dir = sourceDir() + "/tests/costmodel/data/mm/";
    std::vector<double> t;
    for (const char* v : {"naive_glb10", "naive_glb01", "wrg_row_t32", "tile2d_8x8"}) {
        t.push_back(m.predictSeconds(featuresOfFile(dir + v + ".lift", sizes, p), p));
    }
    auto [lo, hi] = std::minmax_element(t.begin(), t.end());
    CHECK(*hi < 1.1 * *lo);
}

TEST_CASE("Kendall's tau-b on known rankings", "[tau]") {
    CHECK(kendallTau({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1.0));
    CHECK(kendallTau({1, 2, 3, 4}, {40, 30, 20, 10}) == Approx(-1.0));
    // One discordant pair of six: (5 - 1) / 6.
    CHECK(kendallTau({1, 2, 3, 4}, {1, 3, 2, 4}) == Approx(4.0 / 6.0));
    // Ties: x = (1,1,2), y = (1,2,3): 2 concordant, 1 tie in x; tau-b = 2 / sqrt(2 * 3).
    CHECK(kendallTau({1, 1, 2}, {1, 2, 3}) == Approx(2.0 / std::sqrt(6.0)));
    CHECK(kendallTau({1}, {2}) == 0.0);
    CHECK(kendallTau({1, 1, 1}, {1, 2, 3}) == 0.0);
    CHECK_THROWS_AS(kendallTau({1, 2}, {1}), Error);
}

TEST_CASE("fitting recovers known coefficients from synthetic records", "[fit]") {
    // seconds = e^-3 * (1 + reads)^0.8 * (1 + ops)^0.3, with small multiplicative noise.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> logv(2, 14), noise(-0.01, 0.01);
    std::vector<Record> records;
    for (int i = 0; i < 200; ++i) {
        Record r;
        r.features.total.globalReadCoalesced = std::exp(logv(rng));
        r.features.total.arithOps = std::exp(logv(rng));
        r.measuredSeconds = std::exp(-3 + 0.8 * std::log1p(r.features.total.globalReadCoalesced) +
                                     0.3 * std::log1p(r.features.total.arithOps) + noise(rng));
        records.push_back(r);
    }
    FitOptions opt;
    opt.ridge = 1e-6;
    opt.features = {"global_read_coalesced", "arith_ops", "work_items"};
    LearnedModel m = fitLearned(records, opt);
    REQUIRE(m.weights.size() == 3);
    CHECK(m.weights[0] == Approx(0.8).margin(0.01));
    CHECK(m.weights[1] == Approx(0.3).margin(0.01));
    CHECK(m.weights[2] == 0.0); // constant column
    CHECK(m.bias == Approx(-3).margin(0.05));
    CHECK(m.predictSeconds(records[0].features, {}) ==
          Approx(records[0].measuredSeconds).epsilon(0.05));
    // A model file round trip predicts the same.
    auto back = parseModel(m.toJson(), "round-trip");
    CHECK(back->predictSeconds(records[1].features, {}) ==
          Approx(m.predictSeconds(records[1].features, {})));
    CHECK_THROWS_AS(fitLearned({records[0]}), Error);
}

TEST_CASE("records round-trip through JSONL", "[fit]") {
    std::string path = tempPath("records.jsonl");
    std::remove(path.c_str());
    Record r;
    r.device = "dev";
    r.sizes = {{"N", 1024}};
    r.program = "MapGlb(0)(id) $ xs";
    r.features = featuresOf(kCopy, {{"N", 1024}});
    r.predicted = 1e-5;
    r.measuredSeconds = 2e-5;
    appendRecord(path, r);
    appendRecord(path, r);
    auto back = readRecords(path);
    REQUIRE(back.size() == 2);
    CHECK(back[1].sizes.at("N") == 1024);
    CHECK(back[1].features.total.globalReadCoalesced == 4096);
    CHECK(back[1].features.kernels.size() == 1);
    CHECK(back[1].measuredSeconds == 2e-5);
    std::ofstream(path, std::ios::app) << "{not json\n";
    CHECK_THROWS_WITH(readRecords(path), Catch::Contains(path + ":3"));
    std::remove(path.c_str());
}

TEST_CASE("model files: names, paths and clear errors", "[models]") {
    CHECK(loadModel("analytic")->kind() == "analytic");
    CHECK(loadModel("learned")->kind() == "learned");
    CHECK_THROWS_WITH(loadModel("/nonexistent/model.json"), Catch::Contains("cannot read"));
    CHECK_THROWS_WITH(parseModel("{", "f.json"), Catch::Contains("f.json: not valid JSON"));
    CHECK_THROWS_WITH(parseModel(R"({"kind": "magic"})", "f.json"),
                      Catch::Contains("unknown kind 'magic'"));
    CHECK_THROWS_WITH(parseModel(R"({"kind": "analytic"})", "f.json"),
                      Catch::Contains("needs 'classes'"));
    CHECK_THROWS_WITH(
        parseModel(R"({"kind": "analytic", "classes": [{"class": "x", "lanes": "many"}]})", "f"),
        Catch::Contains("'lanes' must be a number"));
    CHECK_THROWS_WITH(
        parseModel(R"({"kind": "analytic", "classes": [{"class": "x", "lane": 4}]})", "f"),
        Catch::Contains("unknown key 'lane'"));
    CHECK_THROWS_WITH(parseModel(R"({"kind": "learned", "features": ["bogus"], "weights": [1],
                                     "bias": 0})",
                                 "f"),
                      Catch::Contains("unknown feature \"bogus\""));
    CHECK_THROWS_WITH(parseModel(R"({"kind": "learned", "features": ["arith_ops"], "weights": [],
                                     "bias": 0})",
                                 "f"),
                      Catch::Contains("1 features but 0 weights"));
}

TEST_CASE("egopt fit: records in, model file out", "[fit]") {
    std::string data = tempPath("fit.jsonl"), model = tempPath("fit_model.json");
    std::remove(data.c_str());
    for (int n : {1024, 2048, 4096, 8192, 16384}) {
        Record r;
        r.features = featuresOf(kCopy, {{"N", n}});
        r.measuredSeconds = 1e-6 * n;
        appendRecord(data, r);
    }
    std::string cmd = std::string(EGOPT_CLI) + " fit " + data + " -o " + model + " > " +
                      tempPath("fit.out") + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    auto m = loadModel(model);
    CHECK(m->kind() == "learned");
    Features f = featuresOf(kCopy, {{"N", 4096}});
    CHECK(m->predictSeconds(f, {}) == Approx(4096e-6).epsilon(0.2));
    std::string bad =
        std::string(EGOPT_CLI) + " fit /nonexistent.jsonl -o " + model + " 2>/dev/null";
    CHECK(WEXITSTATUS(std::system(bad.c_str())) == 2);
    std::remove(data.c_str());
    std::remove(model.c_str());
}
// The register-blocked mm (float4 loads of B, a broadcast element of A per row, 4 x 4 results
// per work-item) reads a quarter of the bytes of one result per work-item, all coalesced: the
// GPU calibration predicts it faster (measured on the H200 at 4096^3: 9.1 ms against 26.6 ms).
TEST_CASE("analytic GPU predictions rank mm's register blocking first", "[models]") {
    AnalyticModel m = shippedAnalytic();
    DeviceProfile p = nvidiaConstants(m);
    REQUIRE(p.gpu);
    p.computeUnits = 132; // an H100/H200
    p.maxWorkGroupSize = 1024;
    arith::Bindings sizes{{"M", 4096}, {"N", 4096}, {"K", 4096}};
    std::string dir = sourceDir() + "/examples/lowlevel/";
    Features naive = featuresOfFile(dir + "mm_funcall.lift", sizes, p);
    Features blocked = featuresOfFile(dir + "mm_block2d.lift", sizes, p);
    INFO("naive " << m.predictSeconds(naive, p) << " s, blocked " << m.predictSeconds(blocked, p));
    CHECK(blocked.total.globalReadStrided == 0);
    CHECK(blocked.total.globalReadCoalesced < naive.total.globalReadCoalesced);
    CHECK(m.predictSeconds(blocked, p) < m.predictSeconds(naive, p));
}

// A tree's second level of 128 one-work-item groups read 1 MB in 45 us on the H200, about 0.2 GB/s
// a work-item: the NVIDIA class's throughput grows linearly with the work-items in flight from one
// per compute unit, with no floor at a tenth of the peak (which predicted 4 us).
TEST_CASE("analytic GPU throughput grows with the work-items in flight", "[models]") {
    AnalyticModel m = shippedAnalytic();
    DeviceProfile p = nvidiaConstants(m);
    REQUIRE(p.saturationItems > 10);
    p.computeUnits = 132;
    auto readMegabyte = [&](double groups, double groupSize) {
        KernelFeatures k;
        k.globalReadCoalesced = 1 << 20;
        k.workGroups = groups;
        k.workGroupSize = groupSize;
        k.workItems = groups * groupSize;
        k.launches = 1;
        return m.kernelSeconds(k, p) - p.launchOverhead;
    };
    double full = readMegabyte(132, p.saturationItems);
    INFO("one work-item per group " << readMegabyte(128, 1) << " s, saturated " << full << " s");
    // One work-item on each of 128 compute units: 1/saturationItems of 128/132 of the peak, or
    // at least one compute unit's share of it.
    CHECK(readMegabyte(128, 1) ==
          Approx(full * 132 / std::max(128 / p.saturationItems, 1.0)).epsilon(0.05));
    CHECK(readMegabyte(132, p.saturationItems / 2) == Approx(2 * full).epsilon(0.05));
    CHECK(readMegabyte(132, 4 * p.saturationItems) == Approx(full).epsilon(0.05));
    CHECK(readMegabyte(128, 1) > 20 * full); // a floor of a tenth gave about 10x
}

// asum at 128M on an H200 (docs/search.md): the first level's 65,536 partial sums folded by one
// work-group in local memory (one kernel, workgroups.rules) against three more kernels of strided
// folds. Measured there: each tail kernel 3.4-4.2 us, the macro schedule's one-work-group tail
// 3.2 us.
TEST_CASE("analytic GPU predictions rank a one-work-group tail above three tail kernels",
          "[models]") {
    AnalyticModel m = shippedAnalytic();
    DeviceProfile p = nvidiaConstants(m);
    p.computeUnits = 132;
    p.maxWorkGroupSize = 1024;
    auto [oneGroup, kernels] = asumTails(p);
    double first = m.kernelSeconds(kernels.kernels[0], p);
    double oneTail = m.predictSeconds(oneGroup, p) - first;
    double threeTails = m.predictSeconds(kernels, p) - first;
    INFO("first level " << first << " s, one-work-group tail " << oneTail
                        << " s, three tail kernels " << threeTails << " s");
    CHECK(m.kernelSeconds(oneGroup.kernels[0], p) == Approx(first));
    CHECK(oneTail < threeTails);
}
