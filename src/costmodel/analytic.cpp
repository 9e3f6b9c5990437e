// The analytic model: per kernel, the larger of memory time and compute time, each scaled by
// how much of the device the launch can use, plus work-group scheduling, barrier and launch
// overheads (docs/cost-models.md gives the formula and the constants).
#include "detail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace egopt::costmodel {

AnalyticModel::AnalyticModel(std::vector<Calibration> classes) : classes_(std::move(classes)) {}

namespace {

constexpr double kOverlap = 0.25;
// The busiest work-item's loop iterations up to which a CPU compiler unrolls its loops
// completely (LLVM's full unrolling of short constant-trip loops), leaving a loop-free
// work-item body that the loop over work-items can vectorise.
constexpr double kUnrolledTrips = 32;
// Registers every GPU work-item holds besides its private arrays (indices, addresses, loop
// counters): 32 four-byte registers.
constexpr double kBaseRegisterBytes = 128;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// The share of a compute unit's peak throughput that `inFlight` work-items reach: linear up to
// saturationItems, from one work-item in flight on each compute unit used (a work-item streaming
// alone still moves data: 128 one-work-item groups read 1 MB in 45 us on an H200).
double saturationOf(double inFlight, double saturationItems) {
    double items = std::max(1.0, saturationItems);
    return std::clamp(inFlight, 1.0, items) / items;
}

} // namespace

// The first calibration whose `match` occurs in the device's description; the last entry is the
// fallback when none does.
namespace detail {
DeviceProfile profileFrom(const std::vector<Calibration>& classes, const runtime::Device& device) {
    std::string desc = lower(device.platformName + "|" + device.platformVendor + "|" + device.name +
                             "|" + device.vendor + "|" + device.type);
    for (const auto& c : classes) {
        if (c.match.empty() || desc.find(lower(c.match)) != std::string::npos) {
            DeviceProfile p = queryProfile(device, c.constants);
            p.deviceClass = c.deviceClass;
            return p;
        }
    }
    DeviceProfile base;
    base.gpu = device.type.find("GPU") != std::string::npos;
    base.deviceClass = "default";
    return queryProfile(device, base);
}
} // namespace detail

DeviceProfile queryProfile(const runtime::Device& device, DeviceProfile base) {
    base.name = device.name;
    base.computeUnits = std::max<double>(1, device.computeUnits);
    base.maxWorkGroupSize = std::max<double>(1, static_cast<double>(device.maxWorkGroupSize));
    base.localMemBytes = static_cast<double>(device.localMemBytes);
    if (device.maxClockMHz > 0) {
        base.clockHz = device.maxClockMHz * 1e6;
    }
    return base;
}

DeviceProfile AnalyticModel::profile(const runtime::Device& device) const {
    return detail::profileFrom(classes_, device);
}

double AnalyticModel::kernelSeconds(const KernelFeatures& k, const DeviceProfile& p) const {
    double cus = std::max(1.0, p.computeUnits);
    double lanes = std::max(1.0, p.lanes);
    double usedCus = std::clamp(k.workGroups, 1.0, cus);
    // Lanes a compute unit runs together (warps on GPUs, SIMD on CPUs) that the group fills.
    double laneUse = std::clamp(k.workGroupSize / lanes, 1.0 / lanes, 1.0);
    if (!p.gpu) {
        // A CPU deals the work-groups to its cores in waves; a last, partial wave leaves cores
        // idle (3 groups on 2 cores take 2 waves: 1.5 cores' worth of work).
        usedCus = std::max(1.0, k.workGroups) / std::ceil(std::max(1.0, k.workGroups) / cus);
        // The OpenCL compiler vectorises the loop over a group's work-items only when their
        // body has no loop of its own; otherwise each work-item runs its loops alone, scalar.
        // Loops of at most kUnrolledTrips iterations are unrolled completely first.
        laneUse = k.loopTrips > kUnrolledTrips ? 1.0 / lanes : laneUse;
    }
    // Enough work-items in flight per compute unit to hide latency. On a GPU their registers
    // bound how many a compute unit holds at once (occupancy), and a work-item whose private
    // data exceeds what registers hold spills it to memory: such kernels are not worth running.
    double inFlight = k.workItems / usedCus;
    if (p.gpu && p.registerFileBytes > 0) {
        if (p.privateBytesMax > 0 && k.privateBytes > p.privateBytesMax) {
            return std::numeric_limits<double>::infinity();
        }
        inFlight = std::min(inFlight, p.registerFileBytes / (k.privateBytes + kBaseRegisterBytes));
    }
    double saturation = saturationOf(inFlight, p.saturationItems);
    if (p.dramBytesInFlight > 0 && k.readBytesInFlight > 0) {
        // DRAM streams at its share only with enough read bytes in flight (Little's law): the
        // work-items in flight times the bytes each keeps in flight, else it waits in proportion.
        saturation = std::min(saturation,
                              std::min(1.0, inFlight * k.readBytesInFlight / p.dramBytesInFlight));
    }
    double memShare = std::max(usedCus / cus * saturation, 1.0 / cus);
    double strided = k.globalReadStrided + k.globalWriteStrided;
    double coalesced = k.globalReadCoalesced + k.globalWriteCoalesced;
    double globalBytes = coalesced + p.stridedPenalty * strided;
    double requestBytes = coalesced + strided;
    // Re-reads the cache serves move at its bandwidth instead of DRAM's, reached with its own
    // number of work-items in flight; a cache access moves a warp's bytes, so a partly filled
    // warp gets that share of it.
    double cacheTime = 0;
    if (p.cacheBandwidth > 0) {
        double cached = k.cachedReadCoalesced + p.stridedPenalty * k.cachedReadStrided;
        double items = p.cacheSaturationItems > 0 ? p.cacheSaturationItems : p.saturationItems;
        double cacheShare = std::max(usedCus / cus * saturationOf(inFlight, items), 1.0 / cus);
        globalBytes -= cached;
        requestBytes -= k.cachedReadCoalesced + k.cachedReadStrided;
        cacheTime = cached / (p.cacheBandwidth * cacheShare * laneUse);
    }
    // The strided penalty is bandwidth: the unused bytes of a strided access's sectors occupy
    // DRAM. A launch with too few work-items in flight to fill its share of the bandwidth waits
    // on each access's latency instead, the same for a strided word as for a coalesced one: it
    // pays the bytes it uses at its unsaturated share, and the sectors only at the full share.
    double dram = std::max(globalBytes / (p.globalBandwidth * usedCus / cus),
                           requestBytes / (p.globalBandwidth * memShare));
    // Every global access passes through the compute unit's load/store path, one transaction
    // (line) per cycle: an issue rate, which needs no more work-items in flight than issue the
    // loads (waiting for DRAM is the DRAM term's, whose saturation models it). DRAM and cache
    // traffic overlap with it as memory and computation do.
    double fabric = dram + cacheTime;
    if (p.transactionsPerCuPerCycle > 0) {
        double lsu = k.globalTransactions / (usedCus * p.clockHz * p.transactionsPerCuPerCycle);
        fabric = std::max(fabric, lsu) + kOverlap * std::min(fabric, lsu);
    }
    // Local memory moves an access's bytes once per bank-conflict way: lanes hitting distinct
    // words of one bank are served one after the other.
    double local = (k.localBytes + k.localConflictBytes) / (p.localBandwidth * usedCus / cus);
    double memory = fabric + local;
    // Instructions issue at full rate only with enough warps to hide their operands' latency. A
    // group smaller than a warp still occupies a whole warp's issue slots and registers, so the
    // lanes in flight, idle ones included, count (laneUse already charges the idle lanes' work).
    double issueItems = p.computeSaturationItems > 0 ? p.computeSaturationItems : p.saturationItems;
    double issueLanes = k.workItems / usedCus / laneUse;
    if (p.gpu && p.registerFileBytes > 0) {
        issueLanes =
            std::min(issueLanes, p.registerFileBytes / (k.privateBytes + kBaseRegisterBytes));
    }
    double rate = usedCus * p.clockHz * laneUse * saturationOf(issueLanes, issueItems);
    double compute = k.arithOps / (rate * p.flopsPerCuPerCycle) +
                     k.privateAccesses / (rate * p.stmtsPerCuPerCycle);
    double waves = std::ceil(k.workGroups / cus);
    double overhead =
        waves * (p.groupOverhead + k.barriers * p.barrierCost) + k.launches * p.launchOverhead;
    // Memory and computation overlap imperfectly: the larger dominates, a quarter of the smaller
    // adds (which also keeps the prediction strictly increasing in both). No launch ends before
    // its busiest work-item has waited for its global reads in sequence.
    double work = std::max(memory, compute) + kOverlap * std::min(memory, compute);
    return std::max(work, k.readsPerItem * p.readLatency) + overhead;
}

double AnalyticModel::predictSeconds(const Features& f, const DeviceProfile& p) const {
    double sum = 0;
    for (const auto& k : f.kernels) {
        sum += kernelSeconds(k, p);
    }
    return f.kernels.empty() ? kernelSeconds(f.total, p) : sum;
}

} // namespace egopt::costmodel
