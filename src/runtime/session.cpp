// Contexts, queues, buffers and program builds.
#include "egopt/runtime/session.hpp"

#include "egopt/runtime/compiler_pool.hpp"

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <optional>

namespace egopt::runtime {

namespace {

std::string buildLog(cl_program program, cl_device_id device) {
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
        CL_SUCCESS) {
        return "(build log unavailable)";
    }
    std::string log(size, '\0');
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
        CL_SUCCESS) {
        return "(build log unavailable)";
    }
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) {
        log.pop_back();
    }
    return log;
}

// "a;b;c", or "(unknown)" when the driver cannot say.
std::string kernelNames(cl_program program) {
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS) {
        return "(unknown)";
    }
    std::string names(size, '\0');
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) !=
        CL_SUCCESS) {
        return "(unknown)";
    }
    while (!names.empty() && names.back() == '\0') {
        names.pop_back();
    }
    return names.empty() ? "(none)" : names;
}

Handle<cl_program> compile(cl_context context, cl_device_id device, const std::string& source,
                           const std::string& options) {
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int status = CL_SUCCESS;
    Handle<cl_program> program(clCreateProgramWithSource(context, 1, &text, &length, &status));
    checkCl(status, "clCreateProgramWithSource");
    status = clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr);
    if (status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS) {
        throw BuildError("building OpenCL program with options '" + options +
                             "' failed: " + clStatusName(status),
                         buildLog(program.get(), device));
    }
    checkCl(status, "clBuildProgram");
    return program;
}

// A program from a device binary that a compile worker returned for the same device model.
Handle<cl_program> load(cl_context context, cl_device_id device, const std::string& binary,
                        const std::string& options) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
    size_t length = binary.size();
    cl_int status = CL_SUCCESS, binaryStatus = CL_SUCCESS;
    Handle<cl_program> program(
        clCreateProgramWithBinary(context, 1, &device, &length, &bytes, &binaryStatus, &status));
    checkCl(status, "clCreateProgramWithBinary");
    checkCl(binaryStatus, "clCreateProgramWithBinary (the binary)");
    checkCl(clBuildProgram(program.get(), 1, &device, options.c_str(), nullptr, nullptr),
            "clBuildProgram from a binary");
    return program;
}

} // namespace

struct Session::Programs {
    std::atomic<size_t> loaded{0}; // programs loaded from a compile worker's binary
    std::mutex mutex;
    std::map<std::pair<std::string, std::string>, std::shared_future<Handle<cl_program>>> built;
};

Session::Session(const Device& device) : device_(device), programs_(std::make_unique<Programs>()) {
    cl_int status = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     reinterpret_cast<cl_context_properties>(device.platformId), 0};
    context_ =
        Handle<cl_context>(clCreateContext(props, 1, &device_.id, nullptr, nullptr, &status));
    checkCl(status, "clCreateContext for " + device.describe());
    // clCreateCommandQueue is deprecated in OpenCL 2.0 but is the 1.2 entry point we target.
    queue_ = Handle<cl_command_queue>(
        clCreateCommandQueue(context_.get(), device_.id, CL_QUEUE_PROFILING_ENABLE, &status));
    checkCl(status, "clCreateCommandQueue for " + device.describe());
}

Session::~Session() {
    // Releasing a context while its kernel still runs crashes some drivers, so a session whose
    // kernel timed out leaks its queue and context, unless that kernel has finished meanwhile.
    if (abandoned_ && !hungKernelFinished()) {
        hungEvent_.leak();
        queue_.leak();
        context_.leak();
    }
}

bool Session::hungKernelFinished() const {
    cl_int status = CL_QUEUED;
    cl_int rc = clGetEventInfo(hungEvent_.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                               &status, nullptr);
    return rc == CL_SUCCESS && (status == CL_COMPLETE || status < 0);
}

void Session::requireUsable() const {
    if (abandoned_) {
        throw Error(ErrorKind::Internal,
                    "this OpenCL session is unusable: a kernel it launched timed out");
    }
}

Buffer Session::upload(std::span<const std::byte> bytes) {
    requireUsable();
    if (bytes.empty()) {
        throw Error(ErrorKind::Internal, "cannot upload an empty buffer (OpenCL has none)");
    }
    cl_int status = CL_SUCCESS;
    // COPY_HOST_PTR copies during the call, so the span need not outlive it.
    void* host = const_cast<std::byte*>(bytes.data());
    Handle<cl_mem> mem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      bytes.size(), host, &status));
    checkCl(status, "clCreateBuffer of " + std::to_string(bytes.size()) + " bytes");
    return Buffer(std::move(mem), bytes.size());
}

void Session::makeResident(const Buffer& buffer) {
    requireUsable();
    cl_mem mem = buffer.get();
    checkCl(clEnqueueMigrateMemObjects(queue_.get(), 1, &mem, 0, 0, nullptr, nullptr),
            "clEnqueueMigrateMemObjects of " + std::to_string(buffer.bytes()) + " bytes");
    checkCl(clFinish(queue_.get()), "clFinish after a migration");
}

Buffer Session::allocate(size_t bytes) {
    requireUsable();
    if (bytes == 0) {
        throw Error(ErrorKind::Internal, "cannot allocate an empty buffer (OpenCL has none)");
    }
    cl_int status = CL_SUCCESS;
    Handle<cl_mem> mem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, bytes, nullptr, &status));
    checkCl(status, "clCreateBuffer of " + std::to_string(bytes) + " bytes");
    return Buffer(std::move(mem), bytes);
}

std::vector<std::byte> Session::download(const Buffer& buffer) {
    requireUsable();
    std::vector<std::byte> bytes(buffer.bytes());
    if (bytes.empty()) {
        return bytes;
    }
    checkCl(clEnqueueReadBuffer(queue_.get(), buffer.get(), CL_TRUE, 0, bytes.size(), bytes.data(),
                                0, nullptr, nullptr),
            "clEnqueueReadBuffer of " + std::to_string(bytes.size()) + " bytes");
    return bytes;
}

Kernel Session::build(const std::string& source, const std::string& kernelName,
                      const std::string& options) {
    requireUsable();
    Handle<cl_program> program = this->program(source, options);
    cl_int status = CL_SUCCESS;
    Handle<cl_kernel> kernel(clCreateKernel(program.get(), kernelName.c_str(), &status));
    if (status == CL_INVALID_KERNEL_NAME) {
        throw Error(ErrorKind::Internal, "the OpenCL program defines no kernel '" + kernelName +
                                             "'; it defines: " + kernelNames(program.get()));
    }
    checkCl(status, "clCreateKernel('" + kernelName + "')");
    // The kernel keeps its own reference to the program; ours is released here.
    return Kernel(std::move(kernel), kernelName);
}

Handle<cl_program> Session::program(const std::string& source, const std::string& options) {
    std::shared_future<Handle<cl_program>> building;
    std::promise<Handle<cl_program>> mine;
    {
        std::lock_guard lock(programs_->mutex);
        auto [it, fresh] = programs_->built.try_emplace({source, options});
        if (fresh) {
            it->second = mine.get_future().share();
        }
        building = it->second;
        if (!fresh) {
            return building.get(); // built, or being built by prebuild: rethrows its BuildError
        }
    }
    try {
        mine.set_value(compile(context_.get(), device_.id, source, options));
    } catch (...) {
        mine.set_exception(std::current_exception());
    }
    return building.get();
}

void Session::prebuild(const std::string& source, const std::string& options) {
    requireUsable();
    std::lock_guard lock(programs_->mutex);
    auto key = std::make_pair(source, options);
    if (programs_->built.count(key)) {
        return;
    }
    cl_context context = context_.get();
    cl_device_id device = device_.id;
    std::optional<std::shared_future<std::string>> binary;
    if (pool_) {
        binary = pool_->compile(source, options);
    }
    std::atomic<size_t>* loaded = &programs_->loaded;
    programs_->built.emplace(
        key, std::async(std::launch::async, [context, device, source, options, binary, loaded] {
                 if (binary) {
                     try {
                         Handle<cl_program> program = load(context, device, binary->get(), options);
                         ++*loaded;
                         return program;
                     } catch (const BuildError&) {
                         throw; // the source does not compile: building it here would not either
                     } catch (const std::exception&) {
                         // The worker failed or its binary did not load: build from source.
                     }
                 }
                 return compile(context, device, source, options);
             }).share());
}

void Session::useCompilerPool(std::shared_ptr<CompilerPool> pool) {
    pool_ = std::move(pool);
}

size_t Session::loadedFromWorkers() const {
    return programs_->loaded;
}

std::string Session::binaryOf(const std::string& source, const std::string& options) {
    requireUsable();
    Handle<cl_program> program = this->program(source, options);
    size_t size = 0;
    checkCl(clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
            "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    std::string binary(size, '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(binary.data());
    checkCl(clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof bytes, &bytes, nullptr),
            "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    return binary;
}

} // namespace egopt::runtime
