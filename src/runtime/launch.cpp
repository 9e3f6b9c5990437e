// Kernel launches: validation, deadline-bounded waiting, profiling-based timing, and bounded
// waiting for a kernel that timed out.
#include "egopt/runtime/session.hpp"

#include <algorithm>
#include <thread>

namespace egopt::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// Polling starts fine-grained so short kernels return promptly, then backs off so that a long
// kernel does not cost a host core.
constexpr std::chrono::microseconds kFirstPoll{20};
constexpr std::chrono::microseconds kMaxPoll{1000};

[[noreturn]] void badRange(const Kernel& kernel, const std::string& why) {
    throw Error(ErrorKind::Internal, "cannot launch kernel '" + kernel.name() + "': " + why);
}

size_t kernelWorkGroupLimit(const Kernel& kernel, cl_device_id device) {
    size_t limit = 0;
    checkCl(clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit,
                                     &limit, nullptr),
            "clGetKernelWorkGroupInfo for kernel '" + kernel.name() + "'");
    return limit;
}

cl_ulong profilingCounter(cl_event event, cl_profiling_info param) {
    cl_ulong value = 0;
    checkCl(clGetEventProfilingInfo(event, param, sizeof value, &value, nullptr),
            "clGetEventProfilingInfo");
    return value;
}

cl_int executionStatus(cl_event event) {
    cl_int status = CL_QUEUED;
    checkCl(
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
    return status;
}

} // namespace

void Session::validateRange(const Kernel& kernel, const NDRange& global,
                            const NDRange& local) const {
    if (global.dims < 1 || global.dims > 3) {
        badRange(kernel, "the global size must have 1 to 3 dimensions");
    }
    if (local.dims != 0 && local.dims != global.dims) {
        badRange(kernel, "local size " + local.str() + " and global size " + global.str() +
                             " differ in dimensions");
    }
    for (cl_uint d = 0; d < global.dims; ++d) {
        if (global.sizes[d] == 0 || (local.dims != 0 && local.sizes[d] == 0)) {
            badRange(kernel, "work sizes must be positive (global " + global.str() + ", local " +
                                 local.str() + ")");
        }
        // OpenCL 1.2 has no partial work-groups.
        if (local.dims != 0 && global.sizes[d] % local.sizes[d] != 0) {
            badRange(kernel,
                     "local size " + local.str() + " does not divide global size " + global.str());
        }
    }
    for (cl_uint d = 0; d < local.dims; ++d) {
        // NVIDIA reports CL_INVALID_KERNEL_ARGS, not CL_INVALID_WORK_ITEM_SIZE, for this one.
        size_t most = device_.maxWorkItemSizes[d];
        if (most != 0 && local.sizes[d] > most) {
            badRange(kernel, "local size " + local.str() + " exceeds " + std::to_string(most) +
                                 " work-items in dimension " + std::to_string(d) + " on " +
                                 device_.name + " (CL_DEVICE_MAX_WORK_ITEM_SIZES)");
        }
    }
    if (local.dims != 0) {
        size_t limit = std::min(device_.maxWorkGroupSize, kernelWorkGroupLimit(kernel, device_.id));
        if (local.total() > limit) {
            badRange(kernel, "work-group of " + std::to_string(local.total()) +
                                 " items exceeds this kernel's limit of " + std::to_string(limit) +
                                 " on " + device_.name);
        }
    }
}

void Session::waitFor(cl_event event, const Kernel& kernel, std::chrono::milliseconds timeout) {
    // Without a flush the command may sit in the host-side queue and never start.
    checkCl(clFlush(queue_.get()), "clFlush");
    const Clock::time_point deadline = Clock::now() + timeout;
    std::chrono::microseconds pause = kFirstPoll;
    for (;;) {
        cl_int status = executionStatus(event);
        if (status == CL_COMPLETE) {
            return;
        }
        if (status < 0) {
            throw Error(ErrorKind::Internal, "kernel '" + kernel.name() +
                                                 "' failed on the device: " + clStatusName(status));
        }
        if (Clock::now() >= deadline) {
            abandoned_ = true;
            checkCl(clRetainEvent(event), "clRetainEvent");
            hungEvent_ = Handle<cl_event>(event);
            throw KernelTimeout("kernel '" + kernel.name() + "' did not finish within " +
                                std::to_string(timeout.count()) + " ms on " + device_.name);
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, kMaxPoll);
    }
}

namespace {

// Enqueues one kernel, after `gate` when given; the error names the kernel and its sizes.
Handle<cl_event> enqueue(cl_command_queue queue, const Kernel& kernel, const NDRange& global,
                         const NDRange& local, const cl_event* gate = nullptr) {
    cl_event raw = nullptr;
    checkCl(clEnqueueNDRangeKernel(queue, kernel.get(), global.dims, nullptr, global.sizes.data(),
                                   local.dims == 0 ? nullptr : local.sizes.data(), gate ? 1 : 0,
                                   gate, &raw),
            "launching kernel '" + kernel.name() + "' with global " + global.str() + ", local " +
                local.str());
    return Handle<cl_event>(raw);
}

// END - START of a profiled event, in nanoseconds.
uint64_t durationNs(cl_event event) {
    cl_ulong start = profilingCounter(event, CL_PROFILING_COMMAND_START);
    cl_ulong end = profilingCounter(event, CL_PROFILING_COMMAND_END);
    return end > start ? end - start : 0;
}

// Releases a gate event once: complete after a successful enqueue, failed otherwise (commands
// waiting on a failed event are terminated instead of blocking the queue forever).
struct Gate {
    cl_event event = nullptr;
    bool released = false;
    void release(cl_int status) {
        if (!released) {
            released = true;
            clSetUserEventStatus(event, status);
        }
    }
    ~Gate() {
        release(-1);
        if (event) {
            clReleaseEvent(event);
        }
    }
};
} // namespace

LaunchResult Session::launch(Kernel& kernel, const NDRange& global, const NDRange& local,
                             std::chrono::milliseconds timeout) {
    requireUsable();
    kernel.requireAllArgsSet();
    validateRange(kernel, global, local);
    Handle<cl_event> event = enqueue(queue_.get(), kernel, global, local);
    waitFor(event.get(), kernel, timeout);
    return LaunchResult{durationNs(event.get())};
}

SequenceResult Session::launchSequence(std::span<const SequenceLaunch> launches,
                                       std::chrono::milliseconds timeout) {
    requireUsable();
    SequenceResult r;
    if (launches.empty()) {
        return r;
    }
    for (const SequenceLaunch& l : launches) {
        l.kernel->requireAllArgsSet();
        validateRange(*l.kernel, l.global, l.local);
    }
    cl_int err = CL_SUCCESS;
    Gate gate{clCreateUserEvent(context_.get(), &err)};
    checkCl(err, "clCreateUserEvent");
    std::vector<Handle<cl_event>> events;
    for (const SequenceLaunch& l : launches) {
        events.push_back(enqueue(queue_.get(), *l.kernel, l.global, l.local,
                                 events.empty() ? &gate.event : nullptr));
    }
    gate.release(CL_COMPLETE);
    auto total = timeout * static_cast<int64_t>(launches.size());
    try {
        waitFor(events.back().get(), *launches.back().kernel, total);
    } catch (const KernelTimeout&) {
        throw;
    } catch (const Error&) {
        for (size_t i = 0; i < events.size(); ++i) { // name the kernel that failed first
            if (cl_int s = executionStatus(events[i].get()); s < 0) {
                throw Error(ErrorKind::Internal, "kernel '" + launches[i].kernel->name() +
                                                     "' failed on the device: " + clStatusName(s));
            }
        }
        throw;
    }
    for (const Handle<cl_event>& e : events) {
        r.kernelNs.push_back(durationNs(e.get()));
    }
    cl_ulong first = profilingCounter(events.front().get(), CL_PROFILING_COMMAND_START);
    cl_ulong last = profilingCounter(events.back().get(), CL_PROFILING_COMMAND_END);
    r.spanNs = last > first ? last - first : 0;
    return r;
}

bool Session::drain(std::chrono::milliseconds bound) {
    if (!abandoned_) {
        return true;
    }
    const Clock::time_point deadline = Clock::now() + bound;
    std::chrono::microseconds pause = kFirstPoll;
    while (!hungKernelFinished()) {
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, kMaxPoll);
    }
    return true;
}

uint64_t medianOf(std::vector<uint64_t> times) {
    if (times.empty()) {
        return 0;
    }
    size_t mid = times.size() / 2;
    std::nth_element(times.begin(), times.begin() + mid, times.end());
    uint64_t upper = times[mid];
    if (times.size() % 2 == 1) {
        return upper;
    }
    uint64_t lower = *std::max_element(times.begin(), times.begin() + mid);
    return lower + (upper - lower) / 2;
}

TimingResult timeKernel(Session& session, Kernel& kernel, const NDRange& global,
                        const NDRange& local, int warmup, int runs,
                        std::chrono::milliseconds timeout) {
    if (runs < 1 || warmup < 0) {
        throw Error(ErrorKind::Internal, "timeKernel needs runs >= 1 and warmup >= 0");
    }
    for (int i = 0; i < warmup; ++i) {
        session.launch(kernel, global, local, timeout);
    }
    TimingResult result;
    result.timesNs.reserve(static_cast<size_t>(runs));
    for (int i = 0; i < runs; ++i) {
        result.timesNs.push_back(session.launch(kernel, global, local, timeout).kernelNs);
    }
    result.medianNs = medianOf(result.timesNs);
    return result;
}

} // namespace egopt::runtime
