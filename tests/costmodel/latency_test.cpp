// Launches too small to fill a GPU (asum's and dot's tail kernels): what their work-items wait
// on. Strided words cost latency, not sectors, below saturation; a group narrower than a warp
// issues as a warp; a work-item's reads in sequence bound the launch (reads_per_item,
// read_latency); partial results an earlier kernel wrote come from the L2 (docs/cost-models.md).
#include "support.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

AnalyticModel latencyModel() {
    auto m = loadModel(sourceDir() + "/costmodel/analytic.json");
    return *dynamic_cast<AnalyticModel*>(m.get());
}

DeviceProfile latencyH200(const AnalyticModel& m) {
    for (const auto& c : m.classes()) {
        if (c.deviceClass == "nvidia-gpu") {
            DeviceProfile p = c.constants;
            p.computeUnits = 132;
            p.clockHz = 1980e6;
            p.maxWorkGroupSize = 1024;
            return p;
        }
    }
    FAIL("no nvidia-gpu class in costmodel/analytic.json");
    return {};
}

// `groups` work-groups of `groupSize` work-items that read `bytes`, coalesced or strided.
KernelFeatures reader(double groups, double groupSize, double bytes, bool strided) {
    KernelFeatures k;
    k.workGroups = groups;
    k.workGroupSize = groupSize;
    k.workItems = groups * groupSize;
    (strided ? k.globalReadStrided : k.globalReadCoalesced) = bytes;
    return k;
}

} // namespace

// A strided word wastes the rest of its sector, which costs DRAM bandwidth; a launch of 128
// one-work-item groups uses a tiny share of that bandwidth and waits on each read's latency, the
// same for a strided word as for a coalesced one. A saturated launch pays the sectors.
TEST_CASE("analytic GPU model: strided words cost latency below saturation, sectors above",
          "[models]") {
    AnalyticModel m = latencyModel();
    DeviceProfile p = latencyH200(m);
    REQUIRE(p.stridedPenalty > 1);
    double few = 1 << 20, many = 1 << 28;
    CHECK(m.kernelSeconds(reader(128, 1, few, true), p) ==
          Approx(m.kernelSeconds(reader(128, 1, few, false), p)));
    double overhead = p.launchOverhead + std::ceil((1 << 16) / 132.0) * p.groupOverhead;
    double full = m.kernelSeconds(reader(1 << 16, 256, many, false), p) - overhead;
    double fullStrided = m.kernelSeconds(reader(1 << 16, 256, many, true), p) - overhead;
    CHECK(fullStrided == Approx(p.stridedPenalty * full).epsilon(0.01));
}

// A one-work-item group runs on a warp of which one lane works: laneUse charges the idle lanes,
// and the warp hides latency as any warp does. 132 such groups doing 10^4 statements each take
// as long as 132 full warps doing 10^4 statements per work-item.
TEST_CASE("analytic GPU model: a group narrower than a warp issues as a warp", "[models]") {
    AnalyticModel m = latencyModel();
    DeviceProfile p = latencyH200(m);
    p.readLatency = 0;
    auto busy = [&](double groupSize) {
        KernelFeatures k = reader(132, groupSize, 0, false);
        k.privateAccesses = 1e4 * k.workItems;
        return m.kernelSeconds(k, p) - p.launchOverhead - p.groupOverhead;
    };
    INFO("one work-item " << busy(1) << " s, a warp " << busy(p.lanes) << " s");
    CHECK(busy(1) == Approx(busy(p.lanes)));
}

// A kernel of one work-item summing 8192 floats: its statements take about 20 us at one warp's
// issue rate, but the work-item waits for its 8192 reads in sequence, about 10 ns each on an
// H200 (the difference between asum candidates whose final kernel sums 2048 or 8192 floats).
TEST_CASE("features count the busiest work-item's global reads, and the model waits for them",
          "[models]") {
    AnalyticModel m = latencyModel();
    DeviceProfile p = latencyH200(m);
    REQUIRE(p.readLatency > 0);
    const char* sum = R"(val N = SizeVar("N")
fun(ArrayType(Float, N), xs => ReduceSeq(add, 0.0f) $ xs))";
    Features f = computeFeatures(generateText(sum, {{"N", 8192}}), {{"N", 8192}}, p);
    REQUIRE(f.kernels.size() == 1);
    CHECK(f.kernels[0].readsPerItem == 8192);
    double t = m.kernelSeconds(f.kernels[0], p) - p.launchOverhead - p.groupOverhead;
    CHECK(t == Approx(8192 * p.readLatency).epsilon(0.01));
    DeviceProfile noLatency = p;
    noLatency.readLatency = 0;
    CHECK(m.kernelSeconds(f.kernels[0], noLatency) - p.launchOverhead < t / 3);
}

// asum's tail as one work-group (tests/costmodel/data/asum_tail_one_group.lift) reads the 65,536
// partial sums the first kernel wrote: 256 KB that the L2 holds, which its 256 work-items read
// at the cache's bandwidth (3.2 us measured for the whole kernel on an H200). Of three tail
// kernels, the two of full warps read their input from the cache too; the last, one work-item,
// keeps its DRAM reads: a group narrower than a warp waits on each read's latency wherever the
// data is.
TEST_CASE("reads of partial sums an earlier kernel wrote come from the cache", "[features]") {
    AnalyticModel m = latencyModel();
    DeviceProfile p = latencyH200(m);
    REQUIRE(p.cacheBytes > 0);
    auto [oneGroup, kernels] = asumTails(p);
    const KernelFeatures& tail = oneGroup.kernels[1];
    CHECK(oneGroup.kernels[0].cachedReadCoalesced == 0); // the input, read once
    CHECK(tail.cachedReadCoalesced + tail.cachedReadStrided ==
          Approx(tail.globalReadCoalesced + tail.globalReadStrided));
    CHECK(tail.cachedReadCoalesced + tail.cachedReadStrided == Approx(65536.0 * 4));
    auto cached = [](const KernelFeatures& k) {
        return k.cachedReadCoalesced + k.cachedReadStrided;
    };
    REQUIRE(kernels.kernels[1].workGroupSize >= p.lanes);
    CHECK(cached(kernels.kernels[1]) ==
          Approx(kernels.kernels[1].globalReadCoalesced + kernels.kernels[1].globalReadStrided));
    REQUIRE(kernels.kernels[3].workGroupSize == 1);
    CHECK(kernels.kernels[3].globalReadCoalesced + kernels.kernels[3].globalReadStrided > 0);
    CHECK(cached(kernels.kernels[3]) == 0);
    DeviceProfile noCache = p;
    noCache.cacheBytes = 0;
    Features uncached = asumTails(noCache).oneGroup;
    CHECK(uncached.kernels[1].cachedReadCoalesced == 0);
    CHECK(m.kernelSeconds(tail, p) < m.kernelSeconds(uncached.kernels[1], p) / 1.5);
}
