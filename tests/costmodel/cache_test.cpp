// Re-reads served by the cache (features and the analytic model's cache term) and the ranking of
// recorded runs (rankRuns, `egopt rank`).
#include "support.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

Features naiveMm(double cacheBytes) {
    DeviceProfile p = testGpuProfile();
    p.cacheBytes = cacheBytes;
    return featuresOfFile(mmFile("naive_glb10"), kMm, p);
}

// A GPU kernel of 2^20 work-items in groups of 256 that reads `bytes` coalesced, on a profile of
// 1 TB/s whose bandwidth needs one work-item per compute unit in flight.
KernelFeatures streamingKernel(DeviceProfile& p, double bytes) {
    p.globalBandwidth = 1e12;
    p.saturationItems = 1;
    KernelFeatures k;
    k.workItems = 1 << 20;
    k.workGroupSize = 256;
    k.workGroups = k.workItems / 256;
    k.globalReadCoalesced = bytes;
    return k;
}

Record record(const std::string& label, const std::string& program, double predicted,
              double measured) {
    Record r;
    r.label = label;
    r.sizes = {{"N", 64}};
    r.program = program;
    r.predicted = predicted;
    r.measuredSeconds = measured;
    return r;
}

} // namespace

// Each of the 64 x 32 work-items reads a row of A (64 x 16 floats, 4 KB) and a column of B
// (16 x 32 floats, 2 KB): 128 KB of B in all, and of A 4 KB, its size (the 32 lanes of a warp
// read one row: one access per warp). A buffer the cache holds is fetched once; the rest of its
// reads are re-reads.
TEST_CASE("re-reads of a buffer that fits in the cache are counted as cached", "[features]") {
    const double each = 64.0 * 32 * 16 * 4;
    Features none = naiveMm(0);
    CHECK(none.total.cachedReadCoalesced == 0);
    CHECK(none.total.cachedReadStrided == 0);
    Features onlyB = naiveMm(3000); // B (2 KB) fits, A (4 KB, read once) does not
    CHECK(onlyB.total.globalReadCoalesced == each + each / 32);
    CHECK(onlyB.total.cachedReadCoalesced == Approx(each - 2048));
    // A cache of half of B holds half of it: half of B's re-reads come from the cache.
    Features halfB = naiveMm(1024);
    CHECK(halfB.total.cachedReadCoalesced == Approx((each - 2048) / 2));
    Features both = naiveMm(1 << 20); // A is read once: no re-reads
    CHECK(both.total.cachedReadCoalesced == Approx(each - 2048));
    CHECK(both.total.cachedReadStrided == 0);
}

// A v x 1 register block (tests/costmodel/data/mm_block_v16x1.lift): a work-item per column of
// B and 16 rows of A, 16 private accumulators; step k reads a[16 rows][k], the same address for
// every lane of a warp, and b[k][column] once for the 16 products (the generated loop over the
// rows re-reads it at an address that does not change with the row).
TEST_CASE("warp-uniform reads count once per warp, loop-invariant reads once per loop",
          "[features]") {
    const int64_t n = 256;
    arith::Bindings sizes{{"M", n}, {"N", n}, {"K", n}};
    DeviceProfile p = testGpuProfile();
    p.driverLocalSize = 256;
    Features f =
        featuresOfFile(sourceDir() + "/tests/costmodel/data/mm_block_v16x1.lift", sizes, p);
    double items = double(n) * n / 16, steps = n;
    double a = items * steps * 16 * 4 / 32; // one warp-wide access per row and step
    double b = items * steps * 4;           // once per step, not once per row
    CHECK(f.total.globalReadCoalesced + f.total.globalReadStrided == Approx(a + b));
    // A CPU runs each work-item alone: a's reads are not shared, b's are still hoisted.
    Features cpu = featuresOfFile(sourceDir() + "/tests/costmodel/data/mm_block_v16x1.lift", sizes);
    CHECK(cpu.total.globalReadCoalesced + cpu.total.globalReadStrided ==
          Approx(items * steps * 16 * 4 + b));
}

TEST_CASE("analytic GPU model: cached re-reads move at the cache's bandwidth", "[models]") {
    DeviceProfile p = testGpuProfile();
    KernelFeatures k = streamingKernel(p, 1e9);
    k.cachedReadCoalesced = 0.9e9;
    AnalyticModel m({});
    double dram = m.kernelSeconds(k, p); // no cache bandwidth: every byte from DRAM
    p.cacheBandwidth = 1e13;
    double cached = m.kernelSeconds(k, p);
    CHECK(cached < dram);
    // A warp half filled moves half the bytes per cache access: the cached part costs twice.
    KernelFeatures half = k;
    half.workGroupSize = 16;
    half.workGroups = k.workItems / 16;
    double slower = m.kernelSeconds(half, p);
    CHECK(slower > cached);
}

TEST_CASE("rankRuns: runs by label, candidates at their fastest configuration", "[tau]") {
    std::vector<Record> rs{record("a.lift", "p1", 1, 10), record("a.lift", "p1", 1, 5),
                           record("a.lift", "p2", 2, 20), record("a.lift", "p3", 3, 30),
                           record("b.lift", "q1", 1, 30), record("b.lift", "q2", 2, 10)};
    auto runs = rankRuns(rs, [](const Record& r) { return r.predicted; });
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].records == 4);
    CHECK(runs[0].measured == std::vector<double>{5, 20, 30});
    CHECK(runs[0].tauPredicted == Approx(1));
    CHECK(runs[0].gapPredicted == Approx(1));
    CHECK(runs[1].tauPredicted == Approx(-1));
    CHECK(runs[1].gapPredicted == Approx(3)); // predicted best measured 30, best 10
    auto flipped = rankRuns(rs, [](const Record& r) { return 1 / r.predicted; });
    CHECK(flipped[0].tauRecorded == Approx(1));
    CHECK(flipped[0].tauPredicted == Approx(-1));
}

TEST_CASE("egopt rank: recorded runs re-predicted, tau per run", "[tau]") {
    auto dir = std::filesystem::temp_directory_path();
    std::string data = (dir / ("egopt_rank_" + std::to_string(::getpid()) + ".jsonl")).string();
    std::string out = data + ".out";
    std::remove(data.c_str());
    for (int n : {1024, 4096, 16384}) {
        Record r = record("copy.lift", "copy " + std::to_string(n), 1e-6 * n, 2e-6 * n);
        r.features = featuresOf(kCopy, {{"N", n}});
        appendRecord(data, r);
    }
    std::string cmd = std::string(EGOPT_CLI) + " rank " + data + " --compute-units 2 > " + out;
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::stringstream text;
    text << std::ifstream(out).rdbuf();
    CHECK_THAT(text.str(), Catch::Contains("copy.lift"));
    CHECK_THAT(text.str(), Catch::Contains("tau model"));
    std::remove(data.c_str());
    std::remove(out.c_str());
}

// Naive mm 1024^3 on an H200 with 1024, 256 and 128 work-groups of 256 (about 2000, 500 and 250
// work-items per compute unit) took 0.35, 0.6-0.7 and 1.2-1.4 ms: its re-reads need more
// work-items in flight than DRAM streaming does (cacheSaturationItems).
TEST_CASE("analytic GPU model: the cache's bandwidth needs its own work-items in flight",
          "[models]") {
    DeviceProfile p = testGpuProfile();
    p.computeUnits = 100;
    p.saturationItems = 256;
    p.cacheBandwidth = 1e13;
    p.cacheSaturationItems = 1024;
    KernelFeatures k;
    k.workGroupSize = 256;
    k.globalReadCoalesced = k.cachedReadCoalesced = 1e9;
    AnalyticModel m({});
    auto at = [&](double itemsPerCu) {
        k.workItems = itemsPerCu * 100;
        k.workGroups = k.workItems / 256;
        return m.kernelSeconds(k, p);
    };
    CHECK(at(256) == Approx(4 * at(1024)).epsilon(0.05));
    CHECK(at(2048) == Approx(at(1024)).epsilon(0.05));
}

TEST_CASE("analytic GPU model: load/store transactions bound memory time", "[models]") {
    DeviceProfile p = testGpuProfile();
    p.clockHz = 1e9;
    KernelFeatures k = streamingKernel(p, 1e6); // 1 us from DRAM
    k.globalTransactions = 1e6; // 500 us at one transaction per cycle on 2 compute units
    AnalyticModel m({});
    double bytes = m.kernelSeconds(k, p);
    p.transactionsPerCuPerCycle = 1;
    double lsu = m.kernelSeconds(k, p);
    // The larger of the two memory paths, a quarter of the smaller; overheads as before.
    CHECK(lsu > 3 * bytes);
    CHECK(lsu == Approx(bytes - 1e-6 + 500e-6 + 0.25 * 1e-6).epsilon(1e-6));
}
