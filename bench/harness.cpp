// Timing and reporting for the benchmark rows.
#include "harness.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace egopt::bench {

using runtime::checkCl;
using runtime::Handle;

namespace {

using Clock = std::chrono::steady_clock;

cl_ulong profilingCounter(cl_event event, cl_profiling_info param) {
    cl_ulong value = 0;
    checkCl(clGetEventProfilingInfo(event, param, sizeof value, &value, nullptr),
            "clGetEventProfilingInfo");
    return value;
}

// Completes the gate in every case, also when enqueueing throws: a marker left waiting on it
// would make the next clFinish hang.
class GateRelease {
public:
    explicit GateRelease(cl_event gate) : gate_(gate) {}
    ~GateRelease() { clSetUserEventStatus(gate_, CL_COMPLETE); }
    GateRelease(const GateRelease&) = delete;
    GateRelease& operator=(const GateRelease&) = delete;

private:
    cl_event gate_;
};

// An empty kernel whose END timestamp marks the start of a run on the device's clock.
constexpr const char* kStampSource = "__kernel void stamp(void) {}";

Handle<cl_event> enqueueStamp(cl_command_queue queue, const runtime::Kernel& stamp, cl_event gate) {
    const size_t one = 1;
    cl_event event = nullptr;
    checkCl(clEnqueueNDRangeKernel(queue, stamp.get(), 1, nullptr, &one, &one, 1, &gate, &event),
            "clEnqueueNDRangeKernel(stamp)");
    return Handle<cl_event>(event);
}

void setArg(runtime::Kernel& kernel, cl_uint index, const KernelArg& arg) {
    std::visit([&](const auto& value) { kernel.setArg(index, value); }, arg);
}

Handle<cl_event> enqueueKernel(cl_command_queue queue, const runtime::Kernel& kernel,
                               const runtime::NDRange& global, const runtime::NDRange& local) {
    cl_event event = nullptr;
    const size_t* localSizes = local.dims == 0 ? nullptr : local.sizes.data();
    checkCl(clEnqueueNDRangeKernel(queue, kernel.get(), global.dims, nullptr, global.sizes.data(),
                                   localSizes, 0, nullptr, &event),
            "clEnqueueNDRangeKernel(" + kernel.name() + ")");
    return Handle<cl_event>(event);
}

double medianMsOf(const std::vector<uint64_t>& ns) {
    return static_cast<double>(runtime::medianOf(ns)) * 1e-6;
}

} // namespace

// Throughput in giga-units per second for `amount` units at the median of `ns`.
double gigaPerSecond(double amount, const std::vector<uint64_t>& ns) {
    const double ms = medianMsOf(ns);
    return ms > 0 ? amount / (ms * 1e-3) * 1e-9 : 0;
}

std::string formatFixed(double value, int digits) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(digits) << value;
    return text.str();
}

std::string joinSamples(const std::vector<uint64_t>& values) {
    std::string text;
    for (uint64_t v : values) {
        text += (text.empty() ? "" : " ") + std::to_string(v);
    }
    return text;
}

double Row::medianMs() const {
    return medianMsOf(samples.deviceNs);
}
double Row::wallMedianMs() const {
    return medianMsOf(samples.wallNs);
}
double Row::throughput() const {
    return gigaPerSecond(work.computeBound ? work.flops : work.bytes, samples.deviceNs);
}

Timer::Timer(runtime::Session& session, TimingConfig config)
    : session_(session), config_(config), stamp_(session.build(kStampSource, "stamp")) {}

Timer::RunTimes Timer::runOnce(const EnqueueFn& enqueue) {
    cl_command_queue queue = session_.queue();
    checkCl(clFinish(queue), "clFinish");
    cl_int status = CL_SUCCESS;
    Handle<cl_event> gate(clCreateUserEvent(session_.context(), &status));
    checkCl(status, "clCreateUserEvent");
    Handle<cl_event> last;
    Handle<cl_event> stamp;
    const Clock::time_point start = Clock::now();
    {
        GateRelease release(gate.get());
        stamp = enqueueStamp(queue, stamp_, gate.get());
        last = enqueue(queue);
    }
    checkCl(clFinish(queue), "clFinish");
    const Clock::time_point end = Clock::now();
    const cl_ulong first = profilingCounter(stamp.get(), CL_PROFILING_COMMAND_END);
    const cl_ulong done = profilingCounter(last.get(), CL_PROFILING_COMMAND_END);
    const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start);
    return {done > first ? done - first : 0, static_cast<uint64_t>(wall.count())};
}

Samples Timer::measure(const EnqueueFn& enqueue) {
    Samples samples;
    for (int i = 0; i < config_.warmup + config_.runs; ++i) {
        RunTimes times = runOnce(enqueue);
        if (i >= config_.warmup) {
            samples.deviceNs.push_back(times.deviceNs);
            samples.wallNs.push_back(times.wallNs);
        }
    }
    return samples;
}

Row benchKernel(Timer& timer, const KernelCase& kernelCase) {
    runtime::Kernel kernel =
        timer.session().build(kernelCase.source, kernelCase.entry, kernelCase.options);
    for (size_t i = 0; i < kernelCase.args.size(); ++i) {
        setArg(kernel, static_cast<cl_uint>(i), kernelCase.args[i]);
    }
    kernel.requireAllArgsSet();
    auto enqueue = [&](cl_command_queue queue) {
        return enqueueKernel(queue, kernel, kernelCase.global, kernelCase.local);
    };
    Row row{kernelCase.name, kernelCase.impl, kernelCase.size, "-", kernelCase.work, {}};
    row.samples = timer.measure(enqueue);
    return row;
}

std::string checkClose(double got, double want, double tolerance) {
    if (std::abs(got - want) <= tolerance * std::max(1.0, std::abs(want))) {
        return "ok";
    }
    return "FAIL got " + std::to_string(got) + " want " + std::to_string(want);
}

std::string formatCount(size_t n) {
    constexpr size_t kMi = size_t{1} << 20;
    if (n >= kMi && n % kMi == 0) {
        return std::to_string(n / kMi) + "M";
    }
    return std::to_string(n);
}

void printTable(std::ostream& out, const std::vector<Row>& rows) {
    out << std::left << std::setw(8) << "kernel" << std::setw(9) << "impl" << std::setw(16)
        << "size" << std::right << std::setw(12) << "median ms" << std::setw(12) << "wall ms"
        << std::setw(18) << "throughput"
        << "  check\n";
    for (const Row& row : rows) {
        out << std::left << std::setw(8) << row.name << std::setw(9) << row.impl << std::setw(16)
            << row.size << std::right << std::setw(12) << formatFixed(row.medianMs(), 3)
            << std::setw(12) << formatFixed(row.wallMedianMs(), 3) << std::setw(10)
            << formatFixed(row.throughput(), 1) << ' ' << std::left << std::setw(7) << row.unit()
            << "  " << row.check << '\n';
    }
}

void printCsv(std::ostream& out, const std::vector<Row>& rows) {
    out << "kernel,impl,size,median_ms,wall_median_ms,bytes,flops,gb_per_s,gflop_per_s,check,"
           "device_ns,wall_ns\n";
    for (const Row& row : rows) {
        out << row.name << ',' << row.impl << ',' << row.size << ','
            << formatFixed(row.medianMs(), 6) << ',' << formatFixed(row.wallMedianMs(), 6) << ','
            << formatFixed(row.work.bytes, 0) << ',' << formatFixed(row.work.flops, 0) << ','
            << formatFixed(gigaPerSecond(row.work.bytes, row.samples.deviceNs), 3) << ','
            << formatFixed(gigaPerSecond(row.work.flops, row.samples.deviceNs), 3) << ','
            << row.check << ',' << joinSamples(row.samples.deviceNs) << ','
            << joinSamples(row.samples.wallNs) << '\n';
    }
}

} // namespace egopt::bench
