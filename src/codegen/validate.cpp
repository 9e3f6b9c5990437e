// Running generated kernels, timing them, and checking them against the reference interpreter.
#include "egopt/codegen/validate.hpp"

#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"
#include "run_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

namespace egopt::codegen {

namespace {

using interp::Value;
using lift::ScalarKind;

void setScalarArg(runtime::Kernel& k, cl_uint index, const lift::TypeArena& types, lift::TypeId t,
                  const Value& v) {
    if (types.at(t).scalar == ScalarKind::Float) {
        k.setArg(index, static_cast<float>(v.toDouble()));
    } else {
        k.setArg(index, static_cast<int32_t>(v.toDouble()));
    }
}

runtime::NDRange ndRange(uint32_t dims, const std::array<size_t, 3>& s) {
    return dims == 1   ? runtime::NDRange(s[0])
           : dims == 2 ? runtime::NDRange(s[0], s[1])
                       : runtime::NDRange(s[0], s[1], s[2]);
}

struct Launch {
    runtime::Kernel kernel;
    runtime::NDRange global, local;
};

// The device side of one run: inputs shared through DeviceInputs, intermediates and the output
// allocated once, every kernel built with its arguments set.
class Plan {
public:
    Plan(DeviceInputs& inputs, lift::Program& p, const arith::Bindings& sizes,
         const std::string& buildOptions)
        : inputs_(inputs), program_(p), sizes_(sizes), buildOptions_(buildOptions),
          counted_(p.params.size()) {
        for (const auto& [k, v] : sizes) {
            sizeMap_.emplace(k, arith::Size(v));
        }
    }

    void addKernel(const std::string& source, const KernelInfo& info, const GeneratedCode& code) {
        Launch l{session().build(source, info.name, buildOptions_), {}, {}};
        for (size_t i = 0; i < info.args.size(); ++i) {
            setArg(l.kernel, static_cast<cl_uint>(i), info.args[i], code);
        }
        LaunchConfig c = boundedLocal(info.launch.bind(sizes_), info.privateBytes,
                                      session().device().maxWorkGroupSize);
        l.global = ndRange(c.dims, c.global);
        l.local = c.driverLocal ? runtime::NDRange() : ndRange(c.dims, c.local);
        launches.push_back(std::move(l));
    }

    lift::TypeId concrete(lift::TypeId t) { return program_.types.substitute(t, sizeMap_); }
    runtime::Session& session() { return inputs_.session(); }

    std::vector<Launch> launches;
    runtime::Buffer output;
    size_t bytes = 0; // inputs (each once) + output

private:
    void setArg(runtime::Kernel& k, cl_uint index, const KernelArg& a, const GeneratedCode& code) {
        switch (a.kind) {
        case KernelArg::Kind::Input:
            if (!a.isBuffer) {
                setScalarArg(k, index, program_.types, concrete(a.type),
                             inputs_.value(static_cast<size_t>(a.paramIndex)));
                return;
            }
            k.setArg(index, input(a));
            return;
        case KernelArg::Kind::Size:
            k.setArg(index, static_cast<int32_t>(evaluateSize(arith::Size::var(a.name), sizes_)));
            return;
        case KernelArg::Kind::Intermediate: {
            auto i = static_cast<size_t>(a.intermediate);
            intermediates_.resize(code.intermediates.size());
            if (!intermediates_[i]) {
                intermediates_[i] = allocate(code.intermediates[i].byteSize);
            }
            k.setArg(index, *intermediates_[i]);
            return;
        }
        case KernelArg::Kind::Output:
            output = allocate(a.byteSize);
            bytes += output.bytes();
            k.setArg(index, output);
            return;
        case KernelArg::Kind::Temp:
            k.setArg(index, allocate(a.byteSize));
            return;
        }
    }

    runtime::Buffer allocate(const arith::Size& bytes) {
        return session().allocate(std::max<size_t>(evaluateSize(bytes, sizes_), 4));
    }

    runtime::Buffer input(const KernelArg& a) {
        auto p = static_cast<size_t>(a.paramIndex);
        runtime::Buffer b = inputs_.buffer(p, program_.types, concrete(a.type));
        if (!counted_.at(p)) {
            counted_[p] = true;
            bytes += evaluateSize(a.byteSize, sizes_);
        }
        return b;
    }

    DeviceInputs& inputs_;
    lift::Program& program_;
    const arith::Bindings& sizes_;
    std::string buildOptions_;
    std::map<std::string, arith::Size, std::less<>> sizeMap_;
    std::vector<bool> counted_;                                 // inputs in `bytes`, by parameter
    std::vector<std::optional<runtime::Buffer>> intermediates_; // by intermediate index
};

// Runs the sequence `warmup` times untimed, then `runs` times; each kernel waits for the
// previous one (in-order queue), so every run recomputes the output from the inputs. A run's time
// is the span from the first kernel's start to the last one's end, gaps between kernels included
// (what a caller of the sequence waits for; runtime::Session::launchSequence). A run longer than
// options.slowRunNs, even a warm-up, is kept and ends the timing.
void timeSequence(runtime::Session& session, std::vector<Launch>& launches,
                  const RunOptions& options, TimedResult& r) {
    std::vector<std::vector<uint64_t>> perKernel(launches.size());
    std::vector<uint64_t> totals;
    int runs = std::max(1, options.runs);
    uint64_t timed = 0;
    std::vector<runtime::SequenceLaunch> sequence;
    for (Launch& l : launches) {
        sequence.push_back({&l.kernel, l.global, l.local});
    }
    // The warm-up: `warmup` runs, then more while they have kept the device busy less than
    // warmupNs (a slow run ends it: it has warmed up the device, and it is kept as a time).
    int warmup = options.warmup;
    uint64_t warming = 0;
    for (int run = 0; run < warmup + runs; ++run) {
        runtime::SequenceResult s = session.launchSequence(sequence, options.timeout);
        const std::vector<uint64_t>& times = s.kernelNs;
        uint64_t total = s.spanNs;
        bool slow = options.slowRunNs > 0 && total > options.slowRunNs;
        if (run < warmup && !slow) {
            warming += total;
            if (run == warmup - 1 && warming < options.warmupNs && warmup < kMaxWarmupRuns) {
                ++warmup; // not warm yet: one more untimed run
            }
            continue;
        }
        totals.push_back(total); // a timed run, or a slow warm-up
        for (size_t k = 0; k < launches.size(); ++k) {
            perKernel[k].push_back(times[k]);
        }
        if (run >= warmup) {
            timed += total;
        }
        if (slow || (options.budgetNs > 0 && timed >= options.budgetNs)) {
            break;
        }
    }
    r.warmupRuns = warmup;
    r.medianNs = runtime::medianOf(totals);
    for (size_t k = 0; k < launches.size(); ++k) {
        r.kernelMedianNs.emplace_back(launches[k].kernel.name(), runtime::medianOf(perKernel[k]));
    }
}

std::string mib(uint64_t bytes) {
    std::ostringstream s;
    s << bytes << " bytes (" << static_cast<double>(bytes) / double(1 << 20) << " MiB)";
    return s.str();
}

// Builds and times the sequence; the output is downloaded when options.keepOutput.
TimedResult timeOn(DeviceInputs& inputs, lift::Program& program, const arith::Bindings& sizes,
                   const GeneratedCode& code, const RunOptions& options) {
    if (std::string why =
            resourceProblem(code, sizes, inputs.session().device(), options.privateCap);
        !why.empty()) {
        throw ResourceError(why);
    }
    Plan plan(inputs, program, sizes, options.buildOptions);
    for (const KernelInfo& k : code.kernels) {
        plan.addKernel(code.source, k, code);
    }
    TimedResult r;
    timeSequence(plan.session(), plan.launches, options, r);
    r.bytes = plan.bytes;
    r.gbPerSec = r.medianNs ? static_cast<double>(r.bytes) / static_cast<double>(r.medianNs) : 0;
    if (options.keepOutput) {
        std::vector<ScalarKind> kinds;
        scalarLayout(program.types, plan.concrete(code.outputType), kinds);
        std::vector<std::byte> bytes = plan.session().download(plan.output);
        if (options.floatOutput && std::all_of(kinds.begin(), kinds.end(), [](ScalarKind k) {
                return k == ScalarKind::Float;
            })) {
            r.floats.resize(std::min(kinds.size(), bytes.size() / sizeof(float)));
            std::memcpy(r.floats.data(), bytes.data(), r.floats.size() * sizeof(float));
        } else {
            r.output = decode(bytes, kinds);
        }
    }
    return r;
}

// timeOn, waiting up to options.drain for a kernel that timed out before rethrowing: while it
// runs it slows every later launch on the device, so the caller should not measure until then.
TimedResult timeDraining(DeviceInputs& inputs, lift::Program& program, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options) {
    try {
        return timeOn(inputs, program, sizes, code, options);
    } catch (const runtime::KernelTimeout& e) {
        std::string later = std::to_string(options.drain.count()) + " ms";
        bool ended = inputs.session().drain(options.drain);
        throw runtime::KernelTimeout(
            std::string(e.what()) +
            (ended ? "; it ended within a further " + later
                   : "; it was still running " + later +
                         " later, so later measurements on this device may be disturbed"));
    }
}

void compare(const std::vector<double>& got, const std::vector<double>& want, double tol,
             RunResult& r) {
    r.elements = want.size();
    if (got.size() != want.size()) {
        r.mismatches = want.size();
        r.maxError = INFINITY;
        return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
        double err = std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i]));
        if (std::isnan(err)) {
            err = std::isnan(got[i]) && std::isnan(want[i]) ? 0.0 : INFINITY;
        }
        if (err > tol) {
            ++r.mismatches;
        }
        if (err > r.maxError || (i == 0 && err >= r.maxError)) {
            r.maxError = err;
            r.worstIndex = i;
            r.worstGot = got[i];
            r.worstWant = want[i];
        }
    }
}

} // namespace

LaunchConfig boundedLocal(const LaunchConfig& c, size_t privateBytes, size_t maxWorkGroupSize,
                          size_t groupCap) {
    if (!c.driverLocal || privateBytes == 0 || privateBytes * maxWorkGroupSize <= groupCap) {
        return c;
    }
    size_t most = std::max<size_t>(1, std::min(maxWorkGroupSize, groupCap / privateBytes));
    size_t l = std::min(most, c.global[0]);
    while (l > 1 && c.global[0] % l != 0) {
        --l;
    }
    LaunchConfig b = c;
    b.driverLocal = false;
    b.local = {std::max<size_t>(1, l), 1, 1};
    return b;
}

ResourceError::ResourceError(const std::string& why)
    : Error(ErrorKind::BadInput, "rejected before launch: " + why) {}

std::string resourceProblem(const GeneratedCode& code, const arith::Bindings& sizes,
                            const runtime::Device& device, size_t privateCap) {
    for (const KernelInfo& k : code.kernels) {
        if (k.privateBytes > privateCap) {
            return k.name + " declares " + std::to_string(k.privateBytes) +
                   " bytes of private memory per work-item, above the cap of " +
                   std::to_string(privateCap) + " (codegen::kPrivateBytesCap)";
        }
        if (!k.launch.driverLocal) {
            size_t group = k.launch.local[0] * k.launch.local[1] * k.launch.local[2];
            if (k.privateBytes * group > kPrivateGroupBytesCap) {
                return k.name + " declares " + std::to_string(k.privateBytes) +
                       " bytes of private memory per work-item, " +
                       std::to_string(k.privateBytes * group) + " per work-group of " +
                       std::to_string(group) + ", above the cap of " +
                       std::to_string(kPrivateGroupBytesCap) + " (codegen::kPrivateGroupBytesCap)";
            }
        }
        if (device.localMemBytes > 0 && k.localBytes > device.localMemBytes) {
            return k.name + " declares " + std::to_string(k.localBytes) +
                   " bytes of local memory per work-group, above the device's " +
                   std::to_string(device.localMemBytes) + " (CL_DEVICE_LOCAL_MEM_SIZE)";
        }
    }
    // Every buffer once: inputs by parameter, intermediates by index, outputs and temps by kernel.
    std::vector<std::pair<std::string, uint64_t>> buffers;
    std::vector<bool> seenInput, seenIntermediate(code.intermediates.size());
    for (const KernelInfo& k : code.kernels) {
        for (const KernelArg& a : k.args) {
            if (!a.isBuffer || a.kind == KernelArg::Kind::Size) {
                continue;
            }
            if (a.kind == KernelArg::Kind::Input) {
                auto p = static_cast<size_t>(a.paramIndex);
                seenInput.resize(std::max(seenInput.size(), p + 1));
                if (seenInput[p]) {
                    continue;
                }
                seenInput[p] = true;
            }
            if (a.kind == KernelArg::Kind::Intermediate) {
                auto i = static_cast<size_t>(a.intermediate);
                if (seenIntermediate.at(i)) {
                    continue;
                }
                seenIntermediate[i] = true;
            }
            const arith::Size& bytes = a.kind == KernelArg::Kind::Intermediate
                                           ? code.intermediates.at(size_t(a.intermediate)).byteSize
                                           : a.byteSize;
            buffers.emplace_back(k.name + " argument " + a.name, evaluateSize(bytes, sizes));
        }
    }
    uint64_t total = 0;
    for (const auto& [what, bytes] : buffers) {
        if (device.maxAllocBytes > 0 && bytes > device.maxAllocBytes) {
            return what + " needs a buffer of " + mib(bytes) + ", above the device's largest " +
                   mib(device.maxAllocBytes) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)";
        }
        total += bytes;
    }
    if (device.globalMemBytes > 0 && total > device.globalMemBytes) {
        return "the buffers need " + mib(total) + " of global memory in all, above the device's " +
               mib(device.globalMemBytes) + " (CL_DEVICE_GLOBAL_MEM_SIZE)";
    }
    return {};
}

std::string RunResult::summary() const {
    std::ostringstream s;
    s << (ok ? "OK" : "FAIL") << ": " << elements << " elements, largest error " << maxError;
    if (!ok) {
        s << " (" << mismatches << " mismatches; element " << worstIndex << ": got " << worstGot
          << ", expected " << worstWant << ")";
    }
    s << "; median kernel time " << static_cast<double>(medianNs) / 1e3 << " us, " << gbPerSec
      << " GB/s (" << bytes << " bytes)";
    if (kernelMedianNs.size() > 1) {
        s << "; " << kernelMedianNs.size() << " kernels:";
        for (const auto& [name, ns] : kernelMedianNs) {
            s << " " << name << " " << static_cast<double>(ns) / 1e3 << " us";
        }
    }
    return s.str();
}

Reference interpretReference(lift::Program& program, const lift::TypeInfo& info,
                             const arith::Bindings& sizes, uint64_t seed) {
    Reference r;
    auto inputs = std::make_shared<std::vector<Value>>(interp::randomInputs(program, sizes, seed));
    interp::Interpreter interpreter(program, info, sizes);
    interp::flattenScalars(interpreter.run(*inputs), r.expected);
    r.inputs = std::move(inputs);
    return r;
}

RunResult runAndCompare(runtime::Session& session, lift::Program& program,
                        const arith::Bindings& sizes, const GeneratedCode& code,
                        const Reference& reference, const RunOptions& options) {
    if (std::string why = resourceProblem(code, sizes, session.device(), options.privateCap);
        !why.empty()) {
        throw ResourceError(why);
    }
    DeviceInputs device(session, reference.inputs);
    RunOptions withOutput = options;
    withOutput.keepOutput = true;
    RunResult r;
    static_cast<TimedResult&>(r) = timeDraining(device, program, sizes, code, withOutput);
    compare(r.output, reference.expected, options.tolerance, r);
    r.ok = r.mismatches == 0;
    if (!options.keepOutput) {
        r.output.clear();
    }
    return r;
}

RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options) {
    // Before the interpreter, which takes long at sizes too large for the device.
    if (std::string why = resourceProblem(code, sizes, session.device(), options.privateCap);
        !why.empty()) {
        throw ResourceError(why);
    }
    return runAndCompare(session, program, sizes, code,
                         interpretReference(program, info, sizes, options.seed), options);
}

TimedResult runTimed(DeviceInputs& inputs, lift::Program& program, const arith::Bindings& sizes,
                     const GeneratedCode& code, const RunOptions& options) {
    return timeDraining(inputs, program, sizes, code, options);
}

TimedResult runTimed(runtime::Session& session, lift::Program& program,
                     const arith::Bindings& sizes, const GeneratedCode& code,
                     const RunOptions& options) {
    DeviceInputs inputs(session, std::make_shared<std::vector<Value>>(
                                     interp::randomInputs(program, sizes, options.seed)));
    return timeDraining(inputs, program, sizes, code, options);
}

} // namespace egopt::codegen
