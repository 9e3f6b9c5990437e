// Running OpenCL kernels on one device: buffers, program builds, kernel arguments, timed launches.
//
//     Session s(selectDevice(""));
//     Buffer a = s.uploadValues<float>(xs), out = s.allocate(n * sizeof(float));
//     Kernel k = s.build(source, "vadd", "-cl-fast-relaxed-math");
//     k.setArg(0, a); k.setArg(1, out); k.setArg(2, int32_t(n));
//     LaunchResult r = s.launch(k, NDRange(n), NDRange(64));
//     std::vector<float> ys = s.downloadValues<float>(out);
//
// Buffer and Kernel are values that share the underlying OpenCL object (copying retains it), and
// they stay valid after their Session is gone. All OpenCL failures throw egopt::Error with the
// operation, the kernel name where there is one, and the OpenCL status name.
#pragma once

#include "egopt/runtime/device.hpp"
#include "egopt/runtime/handle.hpp"
#include "egopt/support/diagnostic.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace egopt::runtime {

inline constexpr std::chrono::milliseconds kDefaultTimeout{10'000};

// What separates a BuildError's message from the build log in what().
inline constexpr std::string_view kBuildLogSeparator = "\n--- build log ---\n";

class CompilerPool;

// A program failed to compile; what() includes the full build log.
class BuildError : public Error {
public:
    BuildError(std::string message, std::string log);
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

// A kernel did not finish before its deadline. The Session that launched it is unusable
// afterwards (OpenCL 1.2 cannot cancel a running kernel); the tuner can catch this type to treat a
// candidate as too slow and carry on with a fresh Session, after a bounded Session::drain.
class KernelTimeout : public Error {
public:
    explicit KernelTimeout(std::string message);
};

// Work sizes in 1 to 3 dimensions; a default NDRange has 0 dimensions and, as a local size, lets
// the driver choose the work-group size.
struct NDRange {
    cl_uint dims = 0;
    std::array<size_t, 3> sizes{1, 1, 1};

    NDRange() = default;
    NDRange(size_t x) : dims(1), sizes{x, 1, 1} {} // implicit: launch(k, 1024, 64)
    NDRange(size_t x, size_t y) : dims(2), sizes{x, y, 1} {}
    NDRange(size_t x, size_t y, size_t z) : dims(3), sizes{x, y, z} {}

    size_t total() const { return sizes[0] * sizes[1] * sizes[2]; }
    std::string str() const; // "1024", "16x16", "(driver)" for 0 dims
};

// A device buffer. Its size is fixed at creation.
class Buffer {
public:
    Buffer() = default;
    Buffer(Handle<cl_mem> mem, size_t bytes) : mem_(std::move(mem)), bytes_(bytes) {}
    size_t bytes() const { return bytes_; }
    cl_mem get() const { return mem_.get(); }

private:
    Handle<cl_mem> mem_;
    size_t bytes_ = 0;
};

// The size of a __local pointer argument, allocated per work-group by the driver.
struct LocalMemory {
    size_t bytes;
};

// A built kernel and the arguments set on it so far. The kernel keeps every buffer set as an
// argument alive until that argument is replaced, since clSetKernelArg does not retain it. Copies
// share the cl_kernel, and with it the argument values: copy only to hand the same configured
// kernel around.
class Kernel {
public:
    Kernel(Handle<cl_kernel> kernel, std::string name);

    const std::string& name() const { return name_; }
    cl_uint argCount() const { return static_cast<cl_uint>(argSet_.size()); }
    cl_kernel get() const { return kernel_.get(); }

    // Each throws egopt::Error naming the kernel, the argument index and the OpenCL status when
    // the index is out of range or the driver rejects the value (e.g. CL_INVALID_ARG_SIZE).
    void setArg(cl_uint index, const Buffer& buffer);
    void setArg(cl_uint index, int32_t value);
    void setArg(cl_uint index, uint32_t value);
    void setArg(cl_uint index, float value);
    void setArg(cl_uint index, LocalMemory local);

    // Throws egopt::Error naming the first argument that was never set.
    void requireAllArgsSet() const;

private:
    void setRaw(cl_uint index, size_t size, const void* value, std::string_view what);

    Handle<cl_kernel> kernel_;
    std::string name_;
    std::vector<bool> argSet_;
    std::vector<Buffer> bufferArgs_; // by argument index; empty for non-buffer arguments
};

struct LaunchResult {
    uint64_t kernelNs = 0; // CL_PROFILING_COMMAND_END - CL_PROFILING_COMMAND_START
};

// One kernel of a sequence (Session::launchSequence); the kernel must outlive the call.
struct SequenceLaunch {
    Kernel* kernel = nullptr;
    NDRange global;
    NDRange local;
};

struct SequenceResult {
    std::vector<uint64_t> kernelNs; // each kernel's END - START, in launch order
    uint64_t spanNs = 0;            // END of the last - START of the first: gaps included
};

struct TimingResult {
    std::vector<uint64_t> timesNs; // one per measured run, in run order (warm-up runs excluded)
    uint64_t medianNs = 0;         // mean of the two middle values for an even count
};

// A context and an in-order, profiling-enabled command queue on one device.
class Session {
public:
    explicit Session(const Device& device);
    // Abandons (does not release) the context and queue after a KernelTimeout, because releasing
    // them would block until the hung kernel ends.
    ~Session();
    Session(Session&&) noexcept = default;
    Session& operator=(Session&&) = delete;
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const Device& device() const { return device_; }
    // The raw objects, for interop. After a KernelTimeout they are still valid: clFinish(queue())
    // waits for the overrunning kernel, e.g. so that a process does not exit while PoCL runs it.
    cl_context context() const { return context_.get(); }
    cl_command_queue queue() const { return queue_.get(); }

    // A read-write buffer holding a copy of `bytes` (which must not be empty).
    Buffer upload(std::span<const std::byte> bytes);
    // An uninitialised read-write buffer of `bytes` > 0 bytes.
    Buffer allocate(size_t bytes);
    // Moves the buffer's contents to the device now and waits (clEnqueueMigrateMemObjects):
    // NVIDIA's driver otherwise copies a buffer made from host memory at its first kernel.
    void makeResident(const Buffer& buffer);
    // Blocking read of the whole buffer.
    std::vector<std::byte> download(const Buffer& buffer);

    template <typename T>
    Buffer uploadValues(std::span<const T> values) {
        return upload(std::as_bytes(values));
    }
    template <typename T>
    std::vector<T> downloadValues(const Buffer& buffer) {
        static_assert(std::is_trivially_copyable_v<T>, "device data is copied bytewise");
        std::vector<std::byte> bytes = download(buffer);
        std::vector<T> values(bytes.size() / sizeof(T));
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
        return values;
    }

    // Compiles `source` with `options` for this device and creates `kernelName` from it. Throws
    // BuildError with the build log when compilation fails, and egopt::Error listing the kernels
    // the program does define when `kernelName` is not one of them.
    // A program built once is kept: building it again (another kernel of the same source, the
    // same kernel timed again) takes the kept one.
    Kernel build(const std::string& source, const std::string& kernelName,
                 const std::string& options = "");
    // Starts building `source` on another thread and returns at once; a later build() of it waits
    // for that build instead of starting its own. The tuner builds a batch's programs this way
    // while the device runs the earlier ones (on a GPU, whose runs the host's compiler does not
    // slow down). The destructor waits for builds still going.
    void prebuild(const std::string& source, const std::string& options = "");
    // Later prebuilds compile in `pool`'s worker processes and load the binary they return
    // (compiler_pool.hpp); a program the workers could not build is built here from source.
    void useCompilerPool(std::shared_ptr<CompilerPool> pool);
    // How many programs came from a worker's binary (the others were built here).
    size_t loadedFromWorkers() const;
    // The device binary of `source` (built here, or taken from the kept programs): what a
    // compile worker returns.
    std::string binaryOf(const std::string& source, const std::string& options = "");

    // Enqueues `kernel` and waits for it, polling until `timeout` has passed. All arguments must
    // be set; `local` is either 0-dimensional or has the dimensions of `global` and divides it.
    // Throws KernelTimeout when the deadline passes first.
    LaunchResult launch(Kernel& kernel, const NDRange& global, const NDRange& local = {},
                        std::chrono::milliseconds timeout = kDefaultTimeout);

    // Enqueues the kernels in order behind a gate (a user event the first waits for, released once
    // all are enqueued, so host enqueue time stays off the device's timeline), then waits for the
    // last, up to `timeout` per kernel. The in-order queue runs them one after another; spanNs is
    // what a host that enqueues the whole sequence waits for, the device's gaps between kernels
    // included (25-50 us per kernel on PoCL). Checks and errors as launch(); a failed kernel is
    // named.
    SequenceResult launchSequence(std::span<const SequenceLaunch> launches,
                                  std::chrono::milliseconds timeout = kDefaultTimeout);

    // True after a KernelTimeout: every later call that uses the device throws.
    bool abandoned() const { return abandoned_; }
    // Waits up to `bound` for the kernel that timed out to end (OpenCL 1.2 cannot cancel it) and
    // says whether it has: true at once when nothing timed out, and a 0 bound only polls. While it
    // runs it competes with every later launch on the device, even in another Session, so callers
    // drain before measuring again. The session stays abandoned either way; once the kernel has
    // ended, the destructor releases the queue and context normally.
    bool drain(std::chrono::milliseconds bound);

private:
    void requireUsable() const;
    bool hungKernelFinished() const;
    void validateRange(const Kernel& kernel, const NDRange& global, const NDRange& local) const;
    void waitFor(cl_event event, const Kernel& kernel, std::chrono::milliseconds timeout);

    struct Programs; // built and building programs by source and options (session.cpp)
    Handle<cl_program> program(const std::string& source, const std::string& options);

    Device device_;
    Handle<cl_context> context_;
    Handle<cl_command_queue> queue_;
    std::shared_ptr<CompilerPool> pool_; // none: prebuilds compile on threads of this process
    // After context_ and pool_: destroyed (waiting for builds still going) while both exist.
    std::unique_ptr<Programs> programs_;
    bool abandoned_ = false; // set by a KernelTimeout
    // The launch that timed out; declared last so that it is released before the queue.
    Handle<cl_event> hungEvent_;
};

// Launches `kernel` `warmup` times untimed, then `runs` times timed (runs >= 1); each launch gets
// the full `timeout`.
TimingResult timeKernel(Session& session, Kernel& kernel, const NDRange& global,
                        const NDRange& local, int warmup, int runs,
                        std::chrono::milliseconds timeout = kDefaultTimeout);

// The median of `times` (mean of the two middle values for an even count); 0 when empty.
uint64_t medianOf(std::vector<uint64_t> times);

} // namespace egopt::runtime
