// Features of generated code: each kernel's facts (codegen::KernelFacts) are walked once for a
// representative work-item, with execution weights (how often a statement runs per work-item, on
// average and on the busiest work-item), then scaled by the NDRange. See docs/cost-models.md for
// the definitions.
#include "detail.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"
#include "walker.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace egopt::costmodel {

namespace {

using detail::Walker;
using Env = arith::Bindings;

KernelFeatures kernelFeatures(const codegen::KernelInfo& info,
                              const std::map<std::string, double>& userFunOps,
                              const std::map<std::string, double>& bytes,
                              const arith::Bindings& sizes, const DeviceProfile& profile) {
    codegen::LaunchConfig lc = info.launch.bind(sizes);
    Walker wk(info.facts, userFunOps);
    for (uint32_t d = 0; d < lc.dims; ++d) {
        wk.global[d] = static_cast<int64_t>(std::max<size_t>(1, lc.global[d]));
        wk.local[d] = lc.driverLocal ? 1 : static_cast<int64_t>(std::max<size_t>(1, lc.local[d]));
    }
    if (lc.driverLocal) {
        // A CPU runtime (PoCL) keeps at least one work-group per compute unit when it can.
        double preferred = profile.driverLocalSize;
        if (!profile.gpu) {
            preferred = std::min(preferred, std::max(1.0, static_cast<double>(wk.global[0]) /
                                                              std::max(1.0, profile.computeUnits)));
        }
        wk.local[0] = detail::driverLocal(wk.global[0], preferred);
        if (!profile.gpu && detail::smallRange(wk.global, profile)) {
            wk.local = wk.global; // one work-group: one core
        }
    }
    wk.singleItem = wk.global[0] == 1;
    wk.sequentialItems = !profile.gpu;
    wk.maxCoalescedBytes = profile.maxCoalescedBytes;
    wk.coalescedSpanBytes = profile.gpu ? profile.coalescedSpanBytes : 0;
    wk.transactionBytes = profile.gpu ? profile.transactionBytes : 0;
    wk.registersRename = profile.gpu;
    // A warp is `lanes` consecutive work-items of dimension 0, within one work-group.
    wk.warpLanes =
        profile.gpu ? static_cast<double>(std::min<int64_t>(
                          std::max<int64_t>(1, static_cast<int64_t>(profile.lanes)), wk.local[0]))
                    : 1;
    detail::collectWritten(info.facts.body, wk.written);
    for (const auto& [name, value] : sizes) {
        wk.base[name] = value;
        wk.constants.insert(name);
    }
    wk.setThreads(wk.base, 0);
    wk.next = wk.base;
    wk.setThreads(wk.next, wk.global[0] > 1 ? 1 : 0);
    if (profile.gpu && (profile.sectorBytes > 0 || profile.localBanks > 0) && !wk.singleItem) {
        wk.sectorBytes = profile.sectorBytes;
        wk.localBanks = static_cast<int64_t>(profile.localBanks);
        // A warp is `lanes` consecutive work-items of a work-group (dimension 0 fastest); the
        // sectors' lanes are its first ones, along dimension 0.
        int64_t groupSize = wk.local[0] * wk.local[1] * wk.local[2];
        int64_t warp =
            std::min(std::max<int64_t>(1, static_cast<int64_t>(profile.lanes)), groupSize);
        wk.sectorLanes =
            static_cast<size_t>(std::min({static_cast<int64_t>(wk.warpLanes), wk.global[0], warp}));
        for (int64_t l = 0; l < warp; ++l) {
            Env e = wk.base;
            wk.setLane(e, l);
            wk.lanes.push_back(std::move(e));
        }
    }
    wk.walk(info.facts.body, 1, 1);

    double items = static_cast<double>(wk.global[0] * wk.global[1] * wk.global[2]);
    double groupSize = static_cast<double>(wk.local[0] * wk.local[1] * wk.local[2]);
    std::vector<double> v = wk.avg.values();
    for (double& x : v) {
        x *= items; // per-work-item expectations to totals
    }
    KernelFeatures k;
    k.setValues(v);
    k.name = info.name;
    k.workItems = items;
    k.workGroupSize = groupSize;
    k.workGroups = std::ceil(items / groupSize);
    k.workPerItem = wk.maxStmts;
    k.loopTrips = wk.maxTrips;
    k.readsPerItem = wk.maxReads;
    k.barriers = wk.maxBarriers;
    k.launches = 1;
    k.privateBytes = static_cast<double>(info.privateBytes);
    k.readBytesInFlight = profile.gpu ? wk.inFlight.bytes() : 0.0;
    k.cachedReadCoalesced = k.cachedReadStrided = 0;
    if (profile.cacheBytes > 0) {
        detail::cachedReads(k, wk.readsByBuffer, bytes, items, profile.cacheBytes,
                            detail::producedEarlier(info, groupSize >= profile.lanes));
    }
    return k;
}

} // namespace

Features computeFeatures(const codegen::GeneratedCode& code, const arith::Bindings& sizes,
                         const DeviceProfile& profile) {
    std::map<std::string, double> userFunOps;
    for (const auto& fun : code.functions) {
        userFunOps[fun.name] = detail::countOps(fun.name, fun.body, fun.lanes);
    }
    Features f;
    f.total.name = "total";
    f.total.launches = 0;
    for (const auto& info : code.kernels) {
        KernelFeatures k = kernelFeatures(info, userFunOps, detail::bufferBytes(info, code, sizes),
                                          sizes, profile);
        std::vector<double> sum = f.total.values(), add = k.values();
        for (size_t i = 0; i < sum.size(); ++i) {
            sum[i] += add[i];
        }
        double groupSize = std::max(f.total.workGroupSize, k.workGroupSize);
        f.total.setValues(sum);
        f.total.workGroupSize = groupSize; // a sum of group sizes means nothing
        f.total.privateBytes = std::max(f.total.privateBytes, k.privateBytes);
        f.total.readBytesInFlight = std::max(f.total.readBytesInFlight, k.readBytesInFlight);
        f.kernels.push_back(std::move(k));
    }
    return f;
}

} // namespace egopt::costmodel
