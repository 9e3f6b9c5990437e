// The benchmark harness: times work enqueued on a Session's queue and prints one row per kernel.
//
// Every row, whether a hand-written OpenCL kernel, a CLBlast routine or (later) a kernel from the
// code generator, goes through Timer::measure(), so all rows are timed the same way:
//
//     KernelCase c{.name = "copy", .size = "4M", .source = src, .entry = "copy4",
//                  .global = n / 4, .local = 256, .args = {in, out}, .work = streamWork(2 * n)};
//     Timer timer(session, TimingConfig{});
//     rows.push_back(benchKernel(timer, c));
//     printTable(std::cout, rows);
#pragma once

#include "egopt/runtime/session.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace egopt::bench {

struct TimingConfig {
    int warmup = 2; // untimed runs first: PoCL and CLBlast compile lazily on the first call
    int runs = 10;
};

// What one run moves and computes, to turn a time into GB/s or GFLOP/s.
struct Work {
    double bytes = 0;
    double flops = 0;
    bool computeBound = false; // report GFLOP/s rather than GB/s
};

// A memory-bound run that moves `bytes`.
inline Work streamWork(double bytes) {
    return {bytes, 0, false};
}

struct Samples {
    std::vector<uint64_t> deviceNs; // profiling span of each timed run (see measure())
    std::vector<uint64_t> wallNs;   // host clock from the first enqueue to clFinish returning
};

struct Row {
    std::string name;  // "copy", "sgemm"
    std::string impl;  // "opencl" (hand-written), "clblast", "egopt"
    std::string size;  // "4M", "4096x4096"
    std::string check; // "ok", "FAIL ...", or "-" when the result is not checked
    Work work;
    Samples samples;

    double medianMs() const;
    double wallMedianMs() const;
    // GB/s or GFLOP/s (by work.computeBound) at the median device time.
    double throughput() const;
    const char* unit() const { return work.computeBound ? "GFLOP/s" : "GB/s"; }
};

// Enqueues the commands of one run on `queue` and returns the event of the last one (the caller
// owns it). The commands may be several kernels, as for CLBlast's reductions.
using EnqueueFn = std::function<runtime::Handle<cl_event>(cl_command_queue queue)>;

// Times runs on one Session's queue. Each run is enqueued behind a one-work-item "stamp" kernel
// that itself waits on a user event, released only once the whole run is enqueued. A run's device
// time is END(last command) - END(stamp): every kernel of the run and the gaps between them, but
// not the host-side cost of enqueueing (CLBlast's argument checks and kernel creation). The stamp
// is a kernel, not a marker, because NVIDIA's OpenCL reports no usable profiling times for
// markers (START was 0 in our H100 run).
class Timer {
public:
    Timer(runtime::Session& session, TimingConfig config);

    runtime::Session& session() const { return session_; }
    const TimingConfig& config() const { return config_; }

    // Runs `enqueue` config.warmup + config.runs times, one run at a time.
    Samples measure(const EnqueueFn& enqueue);

private:
    struct RunTimes {
        uint64_t deviceNs;
        uint64_t wallNs;
    };
    RunTimes runOnce(const EnqueueFn& enqueue);

    runtime::Session& session_;
    TimingConfig config_;
    runtime::Kernel stamp_;
};

// A value for one kernel argument, in argument order.
using KernelArg = std::variant<runtime::Buffer, int32_t, uint32_t, float, runtime::LocalMemory>;

// An OpenCL C kernel with its launch configuration and arguments: what a generated kernel
// provides too, so a new benchmark row needs only one of these.
struct KernelCase {
    std::string name;
    std::string size;
    std::string source;
    std::string entry; // the __kernel function's name
    std::string options;
    runtime::NDRange global;
    runtime::NDRange local; // 0 dimensions: the driver chooses
    std::vector<KernelArg> args;
    Work work;
    std::string impl = "opencl";
};

// Builds and times `kernelCase`; the row's check is "-" (the caller verifies outputs).
Row benchKernel(Timer& timer, const KernelCase& kernelCase);

// "ok" when `got` is within a relative `tolerance` of `want`, else "FAIL got X want Y".
std::string checkClose(double got, double want, double tolerance = 1e-3);

// "4M", "16M", "128M" for powers of two above a mebi-element, else the decimal number.
std::string formatCount(size_t n);

// Helpers for reports: `value` with `digits` decimals; samples separated by spaces; giga-units
// per second for `amount` units at the median of `ns` (0 without samples).
std::string formatFixed(double value, int digits);
std::string joinSamples(const std::vector<uint64_t>& values);
double gigaPerSecond(double amount, const std::vector<uint64_t>& ns);

void printTable(std::ostream& out, const std::vector<Row>& rows);
// One header line, then one line per row: medians, throughput in both units, every sample.
void printCsv(std::ostream& out, const std::vector<Row>& rows);

} // namespace egopt::bench
