// Device jobs (docs/distributed.md): one configuration timed at the real sizes or validated at
// small sizes. The same two functions run a job on this process's device threads and in a worker
// process (JobServer); these structures are what travels between them (wire.hpp's format).
#pragma once

#include "bench.hpp"
#include "stages.hpp"

#include <cstdint>
#include <string>

namespace egopt::pipeline {

// The first line of a message (error texts can carry a build log after it).
std::string firstLine(const std::string& s);

// The limits of one timing (measure.cpp): the first run stops the timing when it exceeds `slow`
// seconds, the timed runs stop once they add up to `budget`, and a run longer than `timeout` is
// abandoned.
struct RunLimits {
    double slow = 1, budget = 0, timeout = 10;
};

// Seconds a worker process may take beyond a job's kernel runs (generation, build, upload)
// before the job counts as lost.
inline constexpr double kRemoteGrace = 30;

// Times `built` on `bench` within `limits` into run.timing, or says why not in run.error (and
// run.buildLog when the build failed).
void runTiming(Bench& bench, Built& built, int runs, const RunLimits& limits, Work::Run& run);

// Validates `candidate` at tuning `values` and the small sizes `small` against the interpreter
// on `bench`, its kernels abandoned after `timeout` seconds: against the source program's
// reference from `references` when the candidate takes its parameters, else its own.
Validation runValidation(Bench& bench, References& references, const lift::Program& candidate,
                         const arith::Bindings& values, const arith::Bindings& small,
                         const codegen::Options& codegen,
                         const std::vector<SizeAssumption>& assumed, uint64_t seed, double timeout);

// What every job of a run needs, sent once to each worker: the program whose random inputs the
// benches time on, its real sizes and the seed, the code generator's options and saturation's
// size assumptions.
struct JobSetup {
    lift::Program original;
    arith::Bindings sizes;
    uint64_t seed = 1;
    codegen::Options codegen;
    std::vector<SizeAssumption> assumed;
};
std::string encodeSetup(const JobSetup& s);
JobSetup decodeSetup(const std::string& bytes);

struct JobSpec {
    enum class Kind : uint8_t { Time = 1, Validate = 2 } kind = Kind::Time;
    lift::Program candidate; // tuning variables symbolic
    arith::Bindings values;  // the tuning values
    // Time: the source and launch plan the coordinator generated, which the worker's must equal.
    std::string kernel;
    int runs = 1;
    RunLimits limits; // Time
    // Validate: the small sizes and the time-out of its kernels.
    arith::Bindings small;
    double timeout = 10;
};
std::string encodeJob(const JobSpec& j);
JobSpec decodeJob(const std::string& bytes);

struct JobReply {
    Work::Run run;         // Time: timing or error, build log, device
    Validation validation; // Validate
    double seconds = 0;    // the job's wall seconds on the worker
    uint64_t device = 0;   // the worker's OpenCL index of the device it used
};
std::string encodeReply(const JobReply& r);
JobReply decodeReply(const std::string& bytes);

// The key of a kernel: its source and launch plan (one kernel is timed once).
std::string kernelKey(const Built& b);

} // namespace egopt::pipeline
