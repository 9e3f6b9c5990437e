// Device jobs (jobs.hpp) and the worker process's side of them (remote.hpp: JobServer).
#include "jobs.hpp"

#include "egopt/pipeline/remote.hpp"
#include "egopt/runtime/device.hpp"
#include "wire.hpp"

#include <algorithm>

namespace egopt::pipeline {

std::string firstLine(const std::string& s) {
    return s.substr(0, s.find('\n'));
}

void runTiming(Bench& bench, Built& built, int runs, const RunLimits& limits, Work::Run& run) {
    run.device = bench.device().index;
    try {
        run.timing = bench.time(built, runs, false, limits.slow, limits.budget, limits.timeout);
    } catch (const runtime::KernelTimeout& e) {
        run.error = std::string("timed out: ") + e.what();
    } catch (const runtime::BuildError& e) {
        run.error = e.what();
        run.buildLog = e.log();
    } catch (const std::exception& e) {
        run.error = e.what();
    }
}

Validation runValidation(Bench& bench, References& references, const lift::Program& candidate,
                         const arith::Bindings& values, const arith::Bindings& small,
                         const codegen::Options& codegen,
                         const std::vector<SizeAssumption>& assumed, uint64_t seed,
                         double timeout) {
    Validation v;
    try {
        auto b = buildAt(candidate, values, small, codegen, assumed);
        codegen::RunOptions ro;
        ro.seed = seed;
        ro.warmup = 0;
        ro.runs = 1;
        ro.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout * 1e3) + 1);
        ro.drain = ro.timeout;
        // Before the interpreter, which takes long at sizes too large for the device.
        if (std::string why = codegen::resourceProblem(b->code, small, bench.device());
            !why.empty()) {
            throw codegen::ResourceError(why);
        }
        codegen::RunResult r =
            references.applyTo(candidate)
                ? codegen::runAndCompare(bench.session(), b->program, small, b->code,
                                         *references.at(small), ro)
                : codegen::runAndValidate(bench.session(), b->program, b->info, small, b->code, ro);
        v.sizes = small;
        v.maxError = r.maxError;
        v.why = r.ok ? "" : "wrong result at small sizes: " + r.summary();
    } catch (const runtime::KernelTimeout& e) {
        // The bench opens a fresh session for its next use.
        v.why = std::string("validation timed out: ") + e.what();
    } catch (const runtime::BuildError& e) {
        v.buildLog = buildLogExcerpt(e.log());
        v.why = "validation failed: " + firstLine(e.what());
    } catch (const std::exception& e) {
        v.why = "validation failed: " + firstLine(e.what());
    }
    return v;
}

std::string kernelKey(const Built& b) {
    return b.code.source + '\n' + b.code.launchJson();
}

// --- messages

std::string encodeSetup(const JobSetup& s) {
    wire::Writer w;
    w.program(s.original);
    w.bindings(s.sizes);
    w.u64(s.seed);
    w.u64(s.codegen.maxLocalSize);
    w.str(s.codegen.kernelName);
    w.u32(static_cast<uint32_t>(s.assumed.size()));
    for (const SizeAssumption& a : s.assumed) {
        w.str(a.var);
        w.i64(a.divisor);
    }
    return w.take();
}

JobSetup decodeSetup(const std::string& bytes) {
    wire::Reader r(bytes);
    JobSetup s;
    s.original = r.program();
    s.sizes = r.bindings();
    s.seed = r.u64();
    s.codegen.maxLocalSize = r.u64();
    s.codegen.kernelName = r.str();
    for (uint32_t n = r.u32(); n > 0; --n) {
        std::string var = r.str();
        s.assumed.push_back({std::move(var), r.i64()});
    }
    return s;
}

std::string encodeJob(const JobSpec& j) {
    wire::Writer w;
    w.u8(static_cast<uint8_t>(j.kind));
    w.program(j.candidate);
    w.bindings(j.values);
    w.str(j.kernel);
    w.u32(static_cast<uint32_t>(j.runs));
    w.f64(j.limits.slow);
    w.f64(j.limits.budget);
    w.f64(j.limits.timeout);
    w.bindings(j.small);
    w.f64(j.timeout);
    return w.take();
}

JobSpec decodeJob(const std::string& bytes) {
    wire::Reader r(bytes);
    JobSpec j;
    j.kind = static_cast<JobSpec::Kind>(r.u8());
    j.candidate = r.program();
    j.values = r.bindings();
    j.kernel = r.str();
    j.runs = static_cast<int>(r.u32());
    j.limits.slow = r.f64();
    j.limits.budget = r.f64();
    j.limits.timeout = r.f64();
    j.small = r.bindings();
    j.timeout = r.f64();
    return j;
}

std::string encodeReply(const JobReply& reply) {
    wire::Writer w;
    const Work::Run& run = reply.run;
    w.boolean(run.timing.has_value());
    if (run.timing) {
        w.f64(run.timing->seconds);
        w.u64(run.timing->bytes);
        w.boolean(run.timing->disturbed);
    }
    w.str(run.error);
    w.str(run.buildLog);
    const Validation& v = reply.validation;
    w.str(v.why);
    w.bindings(v.sizes);
    w.f64(v.maxError);
    w.str(v.buildLog);
    w.f64(reply.seconds);
    w.u64(reply.device);
    return w.take();
}

JobReply decodeReply(const std::string& bytes) {
    wire::Reader r(bytes);
    JobReply reply;
    Work::Run& run = reply.run;
    if (r.boolean()) {
        Timing t;
        t.seconds = r.f64();
        t.bytes = r.u64();
        t.disturbed = r.boolean();
        run.timing = std::move(t);
    }
    run.error = r.str();
    run.buildLog = r.str();
    Validation& v = reply.validation;
    v.why = r.str();
    v.sizes = r.bindings();
    v.maxError = r.f64();
    v.buildLog = r.str();
    reply.seconds = r.f64();
    reply.device = r.u64();
    run.device = reply.device;
    return reply;
}

std::string encodeDevices(const std::vector<DeviceFacts>& devices) {
    wire::Writer w;
    w.u32(static_cast<uint32_t>(devices.size()));
    for (const DeviceFacts& d : devices) {
        w.u64(d.index);
        for (const std::string* s : {&d.name, &d.vendor, &d.platformName, &d.platformVersion,
                                     &d.version, &d.driverVersion, &d.description}) {
            w.str(*s);
        }
    }
    return w.take();
}

std::vector<DeviceFacts> decodeDevices(const std::string& bytes) {
    wire::Reader r(bytes);
    std::vector<DeviceFacts> out(r.u32());
    for (DeviceFacts& d : out) {
        d.index = r.u64();
        for (std::string* s : {&d.name, &d.vendor, &d.platformName, &d.platformVersion, &d.version,
                               &d.driverVersion, &d.description}) {
            *s = r.str();
        }
    }
    return out;
}

// --- the worker's side

struct JobServer::State {
    std::vector<runtime::Device> devices;
    std::vector<DeviceFacts> facts;
    std::optional<JobSetup> setup;
    std::vector<std::unique_ptr<Bench>> benches; // one per device, after setup
    std::unique_ptr<References> references;      // after setup
};

JobServer::JobServer(const Options& options) : state_(std::make_unique<State>()) {
    state_->devices = selectDevices(options);
    for (const runtime::Device& d : state_->devices) {
        state_->facts.push_back({d.index, d.name, d.vendor, d.platformName, d.platformVersion,
                                 d.version, d.driverVersion, d.describe()});
    }
}

JobServer::~JobServer() = default;

const std::vector<DeviceFacts>& JobServer::devices() const {
    return state_->facts;
}

void JobServer::setup(const std::string& bytes) {
    State& s = *state_;
    s.setup = decodeSetup(bytes);
    s.benches.clear();
    s.references = std::make_unique<References>(s.setup->original, s.setup->seed);
    for (const runtime::Device& d : s.devices) {
        s.benches.push_back(
            s.benches.empty()
                ? std::make_unique<Bench>(d, s.setup->original, s.setup->sizes, s.setup->seed)
                : std::make_unique<Bench>(d, *s.benches.front()));
    }
}

std::string JobServer::run(const std::string& bytes, size_t slot) {
    State& s = *state_;
    auto started = Budget::Clock::now();
    JobReply reply;
    reply.device = s.devices.at(slot).index;
    reply.run.device = reply.device;
    if (!s.setup) {
        throw Error(ErrorKind::Internal, "a job came before the run's setup");
    }
    const JobSetup& setup = *s.setup;
    JobSpec job = decodeJob(bytes);
    Bench& bench = *s.benches.at(slot);
    if (job.kind == JobSpec::Kind::Validate) {
        reply.validation = runValidation(bench, *s.references, job.candidate, job.values, job.small,
                                         setup.codegen, setup.assumed, setup.seed, job.timeout);
    } else {
        try {
            auto built =
                buildAt(job.candidate, job.values, setup.sizes, setup.codegen, setup.assumed);
            if (kernelKey(*built) != job.kernel) {
                // The same program at the same values generates the same kernel on every rank;
                // a difference means the ranks run different egopt builds.
                reply.run.error = "the worker generated another kernel than the coordinator "
                                  "(different egopt versions on the ranks?)";
            } else {
                runTiming(bench, *built, job.runs, job.limits, reply.run);
            }
        } catch (const std::exception& e) {
            reply.run.error = e.what();
        }
    }
    reply.seconds = secondsSince(started);
    return encodeReply(reply);
}

} // namespace egopt::pipeline
