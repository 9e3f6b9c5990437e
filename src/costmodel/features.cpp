// Features of generated code: each kernel's text is walked once for a representative work-item,
// with execution weights (how often a statement runs per work-item, on average and on the busiest
// work-item), then scaled by the NDRange. See docs/cost-models.md for the definitions.
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"
#include "kernel_text.hpp"

#include <algorithm>
#include <cmath>

namespace egopt::costmodel {

using detail::CEnv;
using detail::CExpr;
using detail::MemAccess;
using detail::Space;
using detail::TextNode;

const std::vector<std::string>& featureNames() {
    static const std::vector<std::string> names{"global_read_coalesced",
                                                "global_read_strided",
                                                "global_write_coalesced",
                                                "global_write_strided",
                                                "local_bytes",
                                                "private_statements",
                                                "arith_ops",
                                                "user_fun_calls",
                                                "work_items",
                                                "work_groups",
                                                "work_group_size",
                                                "work_per_item",
                                                "barriers",
                                                "loop_trips",
                                                "launches"};
    return names;
}

std::vector<double> KernelFeatures::values() const {
    return {globalReadCoalesced,
            globalReadStrided,
            globalWriteCoalesced,
            globalWriteStrided,
            localBytes,
            privateAccesses,
            arithOps,
            userFunCalls,
            workItems,
            workGroups,
            workGroupSize,
            workPerItem,
            barriers,
            loopTrips,
            launches};
}

void KernelFeatures::setValues(const std::vector<double>& v) {
    double* fields[] = {&globalReadCoalesced,
                        &globalReadStrided,
                        &globalWriteCoalesced,
                        &globalWriteStrided,
                        &localBytes,
                        &privateAccesses,
                        &arithOps,
                        &userFunCalls,
                        &workItems,
                        &workGroups,
                        &workGroupSize,
                        &workPerItem,
                        &barriers,
                        &loopTrips,
                        &launches};
    for (size_t i = 0; i < std::size(fields) && i < v.size(); ++i) {
        *fields[i] = v[i];
    }
}

namespace {

// Loops up to this many iterations are walked iteration by iteration (iterate loops change
// their lengths), within a budget of walked iterations per kernel.
constexpr int64_t kExpandTrips = 16;
constexpr int64_t kExpandBudget = 20000;
constexpr int64_t kIfSamples = 4096;

struct Walker {
    explicit Walker(const detail::SourceText& s) : src(s) {}
    const detail::SourceText& src;
    std::array<int64_t, 3> global{1, 1, 1}, local{1, 1, 1};
    CEnv base, next; // the representative work-item, and its neighbour in dimension 0
    bool singleItem = false;
    bool sequentialItems = false; // CPU: each work-item runs its loops alone (profile.gpu false)
    std::vector<std::pair<std::string, int64_t>> loops; // enclosing loop vars and steps
    int64_t budget = kExpandBudget;
    // Per work-item: expected counts; the busiest work-item's statements, trips, barriers.
    KernelFeatures avg;
    double maxStmts = 0, maxTrips = 0, maxBarriers = 0;

    void setThreads(CEnv& env, int64_t gid0) const {
        for (int d = 0; d < 3; ++d) {
            std::string s = std::to_string(d);
            int64_t g = d == 0 ? gid0 : 0;
            env["gid" + s] = g;
            env["lid" + s] = g % local[d];
            env["grp" + s] = g / local[d];
            env["gsz" + s] = global[d];
            env["lsz" + s] = local[d];
            env["ngrp" + s] = global[d] / local[d];
        }
    }

    // Consecutive accesses in the order the device runs them: on a GPU the neighbouring
    // work-item's (lanes of a warp); on a CPU the innermost enclosing loop's next iteration (a
    // work-item runs its loops by itself; only loop-free code is vectorised across work-items),
    // else the neighbouring work-item's.
    bool coalesced(const MemAccess& a) const {
        auto x = detail::evalCExpr(a.address, base);
        std::optional<int64_t> y;
        bool alongLoop = singleItem || (sequentialItems && !loops.empty());
        if (!alongLoop) {
            y = detail::evalCExpr(a.address, next);
        } else if (!loops.empty()) {
            CEnv e = base; // the innermost loop's next iteration
            e[loops.back().first] += loops.back().second;
            y = detail::evalCExpr(a.address, e);
        } else {
            return true; // one access by one work-item
        }
        return x && y && std::abs(static_cast<double>(*y - *x)) <= a.bytes;
    }

    void access(const MemAccess& a, double w) {
        if (a.space == Space::Local) {
            avg.localBytes += w * a.bytes;
            return;
        }
        bool c = coalesced(a);
        double& slot = a.write ? (c ? avg.globalWriteCoalesced : avg.globalWriteStrided)
                               : (c ? avg.globalReadCoalesced : avg.globalReadStrided);
        slot += w * a.bytes;
    }

    void assign(const std::string& var, const CExpr& value) {
        auto a = detail::evalCExpr(value, base);
        auto b = detail::evalCExpr(value, next);
        a ? void(base[var] = *a) : void(base.erase(var));
        b ? void(next[var] = *b) : void(next.erase(var));
    }

    void stmt(const TextNode& n, double w, double wmax) {
        if (!n.intVar.empty()) {
            assign(n.intVar, n.intValue);
        }
        double work = n.idRead ? 0.0 : 1.0;
        avg.privateAccesses += w * work;
        maxStmts += wmax * work;
        maxBarriers += n.barrier ? wmax : 0;
        for (const auto& c : n.calls) {
            avg.userFunCalls += w;
            avg.arithOps += w * src.userFunOps.at(c);
        }
        for (const auto& a : n.accesses) {
            access(a, w);
        }
    }

    // The fraction of work-items (sampled along dimension 0) for which `cond` holds.
    double fraction(const CExpr& cond) {
        static const std::vector<std::string> ids{"gid0", "lid0", "grp0"};
        if (!detail::mentions(cond, ids) || singleItem) {
            auto v = detail::evalCExpr(cond, base);
            return v ? (*v ? 1.0 : 0.0) : 1.0;
        }
        // Whole work-groups (consecutive ids), so conditions on local ids are not aliased.
        int64_t samples = std::min(global[0], std::max(kIfSamples, local[0])), on = 0;
        CEnv env = base;
        int64_t groups = std::max<int64_t>(1, samples / local[0]);
        int64_t groupStride = std::max<int64_t>(1, global[0] / local[0] / groups);
        for (int64_t s = 0; s < samples; ++s) {
            int64_t g =
                std::min(s / local[0] * groupStride * local[0] + s % local[0], global[0] - 1);
            setThreads(env, g);
            auto v = detail::evalCExpr(cond, env);
            on += (!v || *v) ? 1 : 0;
        }
        return static_cast<double>(on) / static_cast<double>(samples);
    }

    void loop(const TextNode& n, double w, double wmax) {
        auto a = detail::evalCExpr(n.init, base), b = detail::evalCExpr(n.bound, base),
             s = detail::evalCExpr(n.step, base);
        auto an = detail::evalCExpr(n.init, next);
        int64_t step = s && *s > 0 ? *s : 1;
        int64_t trips = a && b ? std::max<int64_t>(0, (*b - *a + step - 1) / step) : 1;
        maxTrips += wmax * static_cast<double>(trips);
        loops.emplace_back(n.var, step);
        if (trips <= kExpandTrips && budget >= trips) {
            budget -= trips;
            for (int64_t i = 0; i < trips; ++i) {
                base[n.var] = a.value_or(0) + i * step;
                next[n.var] = an.value_or(0) + i * step;
                walk(n.body, w, wmax);
            }
        } else if (trips > 0) {
            base[n.var] = a.value_or(0);
            next[n.var] = an.value_or(0);
            double t = static_cast<double>(trips);
            walk(n.body, w * t, wmax * t);
        }
        loops.pop_back();
        base.erase(n.var);
        next.erase(n.var);
    }

    void walk(const std::vector<TextNode>& nodes, double w, double wmax) {
        for (const auto& n : nodes) {
            if (n.kind == TextNode::Kind::Stmt) {
                stmt(n, w, wmax);
            } else if (n.kind == TextNode::Kind::For) {
                loop(n, w, wmax);
            } else {
                double f = fraction(n.cond);
                walk(n.body, w * f, f > 0 ? wmax : 0);
                walk(n.elseBody, w * (1 - f), f < 1 ? wmax : 0);
            }
        }
    }
};

// The work-group size a driver picks for dimension 0: the largest divisor of the global size
// that is at most the profile's preference.
int64_t driverLocal(int64_t global, double preferred) {
    for (int64_t l = std::max<int64_t>(1, static_cast<int64_t>(preferred)); l > 1; --l) {
        if (global % l == 0) {
            return l;
        }
    }
    return 1;
}

// PoCL (3.1, probed on the 2-core EPYC) does not split an NDRange into work-groups of fewer than
// kMinSplitItems work-items: 48 work-items, or [1,1,2], run as one work-group on one core, 64 as
// two groups of 32 (in any dimension).
constexpr int64_t kMinSplitItems = 32;
bool smallRange(const std::array<int64_t, 3>& global, const DeviceProfile& profile) {
    int64_t items = global[0] * global[1] * global[2];
    return items < 2 * kMinSplitItems && static_cast<double>(items) <= profile.maxWorkGroupSize;
}

KernelFeatures kernelFeatures(const detail::SourceText& src, const detail::KernelText& text,
                              const codegen::KernelInfo& info, const arith::Bindings& sizes,
                              const DeviceProfile& profile) {
    codegen::LaunchConfig lc = info.launch.bind(sizes);
    Walker wk(src);
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
        wk.local[0] = driverLocal(wk.global[0], preferred);
        if (!profile.gpu && smallRange(wk.global, profile)) {
            wk.local = wk.global; // one work-group: one core
        }
    }
    wk.singleItem = wk.global[0] == 1;
    wk.sequentialItems = !profile.gpu;
    for (const auto& [name, value] : sizes) {
        wk.base[name] = value;
    }
    wk.setThreads(wk.base, 0);
    wk.next = wk.base;
    wk.setThreads(wk.next, wk.global[0] > 1 ? 1 : 0);
    wk.walk(text.body, 1, 1);

    double items = static_cast<double>(wk.global[0] * wk.global[1] * wk.global[2]);
    double groupSize = static_cast<double>(wk.local[0] * wk.local[1] * wk.local[2]);
    std::vector<double> v = wk.avg.values();
    for (double& x : v) {
        x *= items; // per-work-item expectations to totals
    }
    KernelFeatures k;
    k.setValues(v);
    k.name = text.name;
    k.workItems = items;
    k.workGroupSize = groupSize;
    k.workGroups = std::ceil(items / groupSize);
    k.workPerItem = wk.maxStmts;
    k.loopTrips = wk.maxTrips;
    k.barriers = wk.maxBarriers;
    k.launches = 1;
    return k;
}

} // namespace

Features computeFeatures(const codegen::GeneratedCode& code, const arith::Bindings& sizes,
                         const DeviceProfile& profile) {
    detail::SourceText src = detail::parseSource(code.source);
    Features f;
    f.total.name = "total";
    f.total.launches = 0;
    for (const auto& info : code.kernels) {
        auto it = std::find_if(src.kernels.begin(), src.kernels.end(),
                               [&](const detail::KernelText& k) { return k.name == info.name; });
        if (it == src.kernels.end()) {
            throw Error(ErrorKind::Internal, "costmodel: kernel " + info.name + " not in source");
        }
        KernelFeatures k = kernelFeatures(src, *it, info, sizes, profile);
        std::vector<double> sum = f.total.values(), add = k.values();
        for (size_t i = 0; i < sum.size(); ++i) {
            sum[i] += add[i];
        }
        double groupSize = std::max(f.total.workGroupSize, k.workGroupSize);
        f.total.setValues(sum);
        f.total.workGroupSize = groupSize; // a sum of group sizes means nothing
        f.kernels.push_back(std::move(k));
    }
    return f;
}

} // namespace egopt::costmodel
