// The walk over a kernel's facts that features.cpp scales into KernelFeatures: a representative
// work-item's statements, loops and accesses, with execution weights (how often a statement runs
// per work-item, on average and on the busiest work-item). Internal to the costmodel module.
#pragma once

#include "detail.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace egopt::costmodel::detail {

using codegen::KernelNode;
using codegen::MemoryAccess;
using codegen::MemorySpace;
using codegen::ThreadIndex;
using Env = arith::Bindings;

// Loops up to this many iterations are walked iteration by iteration (iterate loops change
// their lengths), within a budget of walked iterations per kernel.
constexpr int64_t kExpandTrips = 16;
constexpr int64_t kExpandBudget = 20000;
constexpr int64_t kIfSamples = 4096;

// The thread-index variables (codegen::threadIndexVar) of dimension d: global, local, group.
inline const std::array<std::string, 3>& threadVars(int d) {
    static const auto vars = [] {
        std::array<std::array<std::string, 3>, 3> v;
        for (int dim = 0; dim < 3; ++dim) {
            v[static_cast<size_t>(dim)] = {codegen::threadIndexVar(ThreadIndex::Global, dim),
                                           codegen::threadIndexVar(ThreadIndex::Local, dim),
                                           codegen::threadIndexVar(ThreadIndex::Group, dim)};
        }
        return v;
    }();
    return vars.at(static_cast<size_t>(d));
}

struct Walker {
    Walker(const codegen::KernelFacts& k, const std::map<std::string, double>& ops)
        : facts(k), userFunOps(ops) {}
    const codegen::KernelFacts& facts;
    const std::map<std::string, double>& userFunOps;
    std::array<int64_t, 3> global{1, 1, 1}, local{1, 1, 1};
    Env base, next; // the representative work-item, and its neighbour in dimension 0
    bool singleItem = false;
    bool sequentialItems = false;  // CPU: each work-item runs its loops alone (profile.gpu false)
    double maxCoalescedBytes = 0;  // DeviceProfile::maxCoalescedBytes
    double coalescedSpanBytes = 0; // DeviceProfile::coalescedSpanBytes
    double warpLanes = 1;          // GPU: work-items that share one warp-uniform read
    double transactionBytes = 0;   // DeviceProfile::transactionBytes (0: not counted)
    bool registersRename = false;  // GPU: private moves are register renames (registerMove)
    double sectorBytes = 0;        // DeviceProfile::sectorBytes (0: sectors not counted)
    int64_t localBanks = 0;        // DeviceProfile::localBanks (0: bank conflicts not counted)
    // The representative warp's work-items in the order of their local ids (dimension 0
    // fastest), where sectors or banks are counted; the first `sectorLanes` of them run along
    // dimension 0 (the sectors' lanes).
    std::vector<Env> lanes;
    size_t sectorLanes = 0;
    std::set<std::string> written; // buffers the kernel stores to (the others are read-only)
    struct LoopVar {
        std::string var;
        int64_t step = 1, trips = 1;
        std::set<std::string> stores; // the buffers its body stores to
        bool barrier = false;         // a barrier in its body
    };
    std::vector<LoopVar> loops;      // enclosing loops, innermost last
    std::set<std::string> constants; // the sizes' names (bound: the kernel sees constants)
    detail::ReadsInFlight inFlight;
    int64_t budget = kExpandBudget;
    // Per work-item: expected counts; the busiest work-item's statements, trips, barriers and
    // global reads.
    KernelFeatures avg;
    double maxStmts = 0, maxTrips = 0, maxBarriers = 0, maxReads = 0;
    // Expected global bytes read per work-item by buffer: coalesced, strided.
    detail::ReadsByBuffer readsByBuffer;

    void setThreads(Env& env, int64_t gid0) const {
        for (int d = 0; d < 3; ++d) {
            auto ud = static_cast<size_t>(d);
            int64_t g = d == 0 ? gid0 : 0;
            const auto& [gid, lid, grp] = threadVars(d);
            env[gid] = g;
            env[lid] = g % local[ud];
            env[grp] = g / local[ud];
        }
    }

    // A work-item of the first work-group by its local id in the group's order (dimension 0
    // fastest): the lanes of a warp.
    void setLane(Env& env, int64_t linear) const {
        for (int d = 0; d < 3; ++d) {
            auto ud = static_cast<size_t>(d);
            const auto& [gid, lid, grp] = threadVars(d);
            env[gid] = env[lid] = linear % local[ud];
            env[grp] = 0;
            linear /= local[ud];
        }
    }

    // An expression's value, the index functions it mentions evaluated first (into `env`, then
    // removed again).
    std::optional<int64_t> eval(const arith::Size& e, Env& env) const {
        if (facts.indexFunctions.empty()) {
            return e.evaluate(env);
        }
        std::vector<std::string> bound;
        for (const std::string& v : e.variables()) {
            auto f = facts.indexFunctions.find(v);
            if (f == facts.indexFunctions.end() || env.contains(v)) {
                continue;
            }
            auto i = eval(f->second.index, env);
            auto n = eval(f->second.length, env);
            auto value = i && n ? detail::indexFunction(f->second.kind, *i, *n) : std::nullopt;
            if (value) {
                env[v] = *value;
                bound.push_back(v);
            }
        }
        auto result = e.evaluate(env);
        for (const std::string& v : bound) {
            env.erase(v);
        }
        return result;
    }

    // Consecutive accesses in the order the device runs them: on a GPU the neighbouring
    // work-item's (lanes of a warp); on a CPU the innermost enclosing loop's next iteration (a
    // work-item runs its loops by itself; only loop-free code is vectorised across work-items),
    // else the neighbouring work-item's.
    bool coalesced(const MemoryAccess& a) {
        auto x = eval(a.index, base);
        std::optional<int64_t> y;
        bool alongLoop = singleItem || (sequentialItems && !loops.empty());
        if (!alongLoop) {
            if (maxCoalescedBytes > 0 && a.bytes > maxCoalescedBytes) {
                return false; // split into pieces that the neighbours' pieces interleave
            }
            y = eval(a.index, next);
        } else if (!loops.empty()) {
            Env e = base; // the innermost loop's next iteration
            e[loops.back().var] += loops.back().step;
            y = eval(a.index, e);
        } else {
            return true; // one access by one work-item
        }
        // The offset is the same in both: the byte addresses differ by whole elements. Along a
        // loop the access must be contiguous; between work-items a GPU's sectors allow a span,
        // but only where each work-item goes on to read the bytes up to its neighbour's start
        // in its own next iterations (from the L1): otherwise each lane's sector is fetched
        // for one element and the rest of it is fetched again, later, for another.
        if (!x || !y) {
            return false;
        }
        double apart = std::abs(static_cast<double>(*y - *x)) * static_cast<double>(a.elementBytes);
        if (alongLoop || apart <= a.bytes) {
            return apart <= a.bytes;
        }
        return apart <= coalescedSpanBytes && readsOnward(a, *x);
    }

    // Whether the innermost enclosing loop's next iteration reads the bytes right after this
    // one's (the work-item walks through its sector).
    bool readsOnward(const MemoryAccess& a, int64_t at) {
        if (loops.empty()) {
            return false;
        }
        Env e = base;
        e[loops.back().var] += loops.back().step;
        auto z = eval(a.index, e);
        return z && std::abs(static_cast<double>(*z - at)) * a.elementBytes <= a.bytes;
    }

    // A read of a buffer the kernel does not store to at the same address in every iteration of
    // the innermost enclosing loop: the compiler keeps it in a register (the buffers are `const
    // restrict`; an unrolled loop's copies are one load), so it runs once per entry of the loop.
    bool loopInvariant(const MemoryAccess& a) const {
        if (a.write || loops.empty() || written.contains(a.buffer) || throughIndexFunction(a)) {
            return false; // an index function's value may coincide at the representative only
        }
        auto vars = a.index.variables(); // structurally: the index names no loop variable
        return std::find(vars.begin(), vars.end(), loops.back().var) == vars.end();
    }

    bool throughIndexFunction(const MemoryAccess& a) const {
        auto vars = a.index.variables();
        return std::any_of(vars.begin(), vars.end(),
                           [&](const std::string& v) { return facts.indexFunctions.contains(v); });
    }

    // A GPU read whose address is the same for the neighbouring work-item: the lanes of a warp
    // (consecutive in dimension 0) read one address, and one access serves them all. An index
    // through an index function (a clamped or mirrored border) is not: its values coincide at
    // the representative work-item on the border only.
    bool warpUniform(const MemoryAccess& a) {
        if (a.write || warpLanes <= 1 || singleItem || sequentialItems) {
            return false;
        }
        if (throughIndexFunction(a)) {
            return false;
        }
        auto x = eval(a.index, base), y = eval(a.index, next);
        return x && y && *x == *y;
    }

    // A work-item's share of the memory transactions of one execution of a global access: per
    // scalar piece (a vloadN runs as N loads), one per line the warp's lanes touch, from one
    // (warp-uniform) to one per lane (scattered, or an index that cannot be evaluated).
    double transactions(const MemoryAccess& a) {
        if (transactionBytes <= 0) {
            return 0;
        }
        double pieces = a.vectorWidth > 1 ? a.vectorWidth : 1;
        double pieceBytes = a.bytes / pieces;
        auto x = eval(a.index, base), y = eval(a.index, next);
        if (singleItem || !x || !y) {
            return pieces;
        }
        // Through an index function the neighbours' indices can coincide on the border only
        // (warpUniform): count such an access as one element apart.
        double stride = std::abs(static_cast<double>(*y - *x)) * a.elementBytes;
        if (stride == 0 && throughIndexFunction(a)) {
            stride = a.elementBytes;
        }
        if (stride == 0) {
            return pieces / warpLanes;
        }
        double span = warpLanes * std::max(stride, pieceBytes);
        return pieces * std::min(warpLanes, std::ceil(span / transactionBytes)) / warpLanes;
    }

    // The bytes the representative warp's sectors move per byte its lanes ask for (at least 1),
    // where every lane's address evaluates: memory moves whole sectors, so a warp whose lanes
    // read 4 bytes 32 bytes apart moves 8 times what it uses.
    std::optional<double> sectorFactor(const MemoryAccess& a) {
        if (sectorBytes <= 0 || sectorLanes < 2 || throughIndexFunction(a) ||
            (maxCoalescedBytes > 0 && a.bytes > maxCoalescedBytes)) {
            return std::nullopt; // wider accesses are split into interleaved pieces
        }
        auto sb = static_cast<int64_t>(sectorBytes);
        std::set<int64_t> sectors;
        for (size_t l = 0; l < sectorLanes; ++l) {
            auto x = eval(a.index, lanes[l]);
            if (!x || *x < 0) {
                return std::nullopt;
            }
            int64_t start = *x * a.elementBytes + a.offset;
            for (int64_t s = start / sb; s <= (start + a.bytes - 1) / sb; ++s) {
                sectors.insert(s);
            }
        }
        double asked = static_cast<double>(sectorLanes) * a.bytes;
        return std::max(1.0, static_cast<double>(sectors.size()) * sectorBytes / asked);
    }

    // A local read at the same address in every iteration of the innermost enclosing loop,
    // whose body neither stores to the buffer nor waits at a barrier: the compiler loads it once
    // per entry of the loop (its unrolled copies are one load).
    bool localLoopInvariant(const MemoryAccess& a) const {
        if (a.write || loops.empty() || throughIndexFunction(a) ||
            loops.back().stores.contains(a.buffer) || loops.back().barrier) {
            return false;
        }
        auto vars = a.index.variables();
        return std::find(vars.begin(), vars.end(), loops.back().var) == vars.end();
    }

    // A work-item's share of the bytes the bank-conflict passes of one execution of a local
    // access take: each pass beyond a phase's first (detail::bankConflictPasses, from the
    // representative warp's addresses; a vloadN runs as N loads) occupies the banks as a full
    // phase of `localBanks` words does. An index that does not evaluate for every lane counts as
    // conflict-free.
    double conflictBytes(const MemoryAccess& a) {
        if (localBanks <= 0 || lanes.size() < 2) {
            return 0;
        }
        int64_t pieces = a.vectorWidth > 1 ? a.vectorWidth : 1;
        int64_t pieceBytes = std::max<int64_t>(1, a.bytes / pieces);
        std::vector<int64_t> starts;
        for (Env& lane : lanes) {
            auto x = eval(a.index, lane);
            if (!x || *x < 0) {
                return 0;
            }
            starts.push_back(*x * a.elementBytes + a.offset);
        }
        double passes = 0;
        for (int64_t p = 0; p < pieces; ++p) {
            passes += detail::bankConflictPasses(starts, pieceBytes, localBanks);
            for (int64_t& s : starts) {
                s += pieceBytes;
            }
        }
        return passes * static_cast<double>(localBanks * 4) / static_cast<double>(lanes.size());
    }

    void localAccess(const MemoryAccess& a, double w) {
        if (localLoopInvariant(a)) {
            w /= static_cast<double>(std::max<int64_t>(1, loops.back().trips));
        }
        // The lanes of a warp reading one local address get it in one broadcast; lanes reading
        // distinct words of one bank wait for each other (the passes beyond the first).
        avg.localBytes += w * a.bytes / (warpUniform(a) ? warpLanes : 1.0);
        avg.localConflictBytes += w * conflictBytes(a);
    }

    void access(const MemoryAccess& a, double w) {
        if (a.space == MemorySpace::Private) {
            return; // registers: counted as statements
        }
        if (a.space == MemorySpace::Local) {
            localAccess(a, w);
            return;
        }
        bool c = coalesced(a);
        double bytes = w * a.bytes;
        double tx = w * transactions(a);
        if (loopInvariant(a)) {
            double trips = static_cast<double>(std::max<int64_t>(1, loops.back().trips));
            bytes /= trips;
            tx /= trips;
        }
        avg.globalTransactions += tx;
        if (warpUniform(a)) {
            bytes /= warpLanes; // the bytes the warp moves, shared by its lanes
        } else if (auto sectors = c ? std::nullopt : sectorFactor(a)) {
            bytes *= *sectors; // the sectors' bytes, moved like a coalesced access's
            c = true;
        }
        double& slot = a.write ? (c ? avg.globalWriteCoalesced : avg.globalWriteStrided)
                               : (c ? avg.globalReadCoalesced : avg.globalReadStrided);
        slot += bytes;
        if (!a.write) {
            auto& [co, st] = readsByBuffer[a.buffer];
            (c ? co : st) += bytes;
        }
    }

    void assign(const std::string& var, const arith::Size& value) {
        auto a = eval(value, base);
        auto b = eval(value, next);
        a ? void(base[var] = *a) : void(base.erase(var));
        b ? void(next[var] = *b) : void(next.erase(var));
        for (Env& lane : lanes) {
            auto v = eval(value, lane);
            v ? void(lane[var] = *v) : void(lane.erase(var));
        }
    }

    // On a GPU, a statement that only moves private values (a copy between private arrays, a
    // tuple of values, a constant) is no instruction: private data lives in registers (larger
    // kernels are ruled out, analytic.cpp) and the compiler renames them.
    bool registerMove(const KernelNode& n) const {
        if (!registersRename || !n.calls.empty() || !n.intVar.empty() || n.barrier) {
            return false;
        }
        return std::all_of(n.accesses.begin(), n.accesses.end(),
                           [](const MemoryAccess& a) { return a.space == MemorySpace::Private; });
    }

    void stmt(const KernelNode& n, double w, double wmax) {
        if (!n.intVar.empty()) {
            assign(n.intVar, n.intValue);
        }
        double work =
            n.threadIndexRead || registerMove(n) ? 0.0 : static_cast<double>(n.statements);
        avg.privateAccesses += w * work;
        maxStmts += wmax * work;
        maxBarriers += n.barrier ? wmax : 0;
        for (const auto& c : n.calls) {
            auto ops = userFunOps.find(c);
            avg.userFunCalls += w;
            avg.arithOps += w * (ops == userFunOps.end() ? 0.0 : ops->second);
        }
        for (const auto& a : n.accesses) {
            access(a, w);
            if (a.space == MemorySpace::Global && !a.write) {
                double once =
                    loopInvariant(a)
                        ? 1.0 / static_cast<double>(std::max<int64_t>(1, loops.back().trips))
                        : 1.0;
                maxReads += wmax * once;
                inFlight.read(wmax > 0 ? a.bytes * once : 0.0);
            }
        }
    }

    // The fraction of work-items (sampled along dimension 0) for which `lhs < rhs` holds.
    double fraction(const KernelNode& n) {
        auto holds = [&](Env& env) {
            auto a = eval(n.lhs, env), b = eval(n.rhs, env);
            return !a || !b || *a < *b;
        };
        auto byThread = [](const arith::Size& e) {
            const auto& ids = threadVars(0);
            auto vars = e.variables();
            return std::any_of(vars.begin(), vars.end(), [&](const std::string& v) {
                return std::find(ids.begin(), ids.end(), v) != ids.end();
            });
        };
        if ((!byThread(n.lhs) && !byThread(n.rhs)) || singleItem) {
            return holds(base) ? 1.0 : 0.0;
        }
        // Whole work-groups (consecutive ids), so conditions on local ids are not aliased.
        int64_t samples = std::min(global[0], std::max(kIfSamples, local[0])), on = 0;
        Env env = base;
        int64_t groups = std::max<int64_t>(1, samples / local[0]);
        int64_t groupStride = std::max<int64_t>(1, global[0] / local[0] / groups);
        for (int64_t s = 0; s < samples; ++s) {
            int64_t g =
                std::min(s / local[0] * groupStride * local[0] + s % local[0], global[0] - 1);
            setThreads(env, g);
            on += holds(env) ? 1 : 0;
        }
        return static_cast<double>(on) / static_cast<double>(samples);
    }

    void loop(const KernelNode& n, double w, double wmax) {
        auto a = eval(n.init, base), b = eval(n.bound, base), s = eval(n.step, base);
        auto an = eval(n.init, next);
        int64_t step = s && *s > 0 ? *s : 1;
        int64_t trips = a && b ? std::max<int64_t>(0, (*b - *a + step - 1) / step) : 1;
        maxTrips += wmax * static_cast<double>(trips);
        LoopVar lv{n.var, step, trips, {}, detail::hasBarrier(n.body)};
        detail::collectWritten(n.body, lv.stores);
        loops.push_back(std::move(lv));
        std::vector<int64_t> laneInit;
        for (Env& lane : lanes) {
            laneInit.push_back(eval(n.init, lane).value_or(0));
        }
        auto at = [&](int64_t i) {
            base[n.var] = a.value_or(0) + i * step;
            next[n.var] = an.value_or(0) + i * step;
            for (size_t l = 0; l < lanes.size(); ++l) {
                lanes[l][n.var] = laneInit[l] + i * step;
            }
        };
        if (trips <= kExpandTrips && budget >= trips) {
            budget -= trips;
            for (int64_t i = 0; i < trips; ++i) {
                at(i);
                walk(n.body, w, wmax);
            }
        } else if (trips > 0) {
            at(0);
            double t = static_cast<double>(trips);
            inFlight.enterLoop(trips, constant(n.init) && constant(n.bound) && constant(n.step));
            walk(n.body, w * t, wmax * t);
            inFlight.leaveLoop();
        }
        loops.pop_back();
        base.erase(n.var);
        next.erase(n.var);
        for (Env& lane : lanes) {
            lane.erase(n.var);
        }
    }

    // Whether an expression mentions only sizes (a loop bound the compiler knows).
    bool constant(const arith::Size& e) const {
        auto vars = e.variables();
        return std::all_of(vars.begin(), vars.end(),
                           [&](const std::string& v) { return constants.contains(v); });
    }

    void walk(const std::vector<KernelNode>& nodes, double w, double wmax) {
        for (const auto& n : nodes) {
            if (n.kind == KernelNode::Kind::Statement) {
                stmt(n, w, wmax);
            } else if (n.kind == KernelNode::Kind::Loop) {
                loop(n, w, wmax);
            } else {
                double f = fraction(n);
                walk(n.body, w * f, f > 0 ? wmax : 0);
            }
        }
    }
};

} // namespace egopt::costmodel::detail
