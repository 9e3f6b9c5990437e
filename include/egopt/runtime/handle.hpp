// Owning wrappers for OpenCL object handles and conversion of OpenCL status codes to errors.
//
// Every OpenCL object is reference-counted by the driver: a Handle owns one reference. Copying a
// Handle retains the object, destroying it releases it, so no OpenCL object outlives its last
// Handle and none leaks when an exception unwinds. Platform and device ids are not wrapped: root
// devices and platforms are owned by the driver for the life of the process.
#pragma once

#include <CL/cl.h>
#include <string>
#include <string_view>
#include <utility>

namespace egopt::runtime {

// "CL_INVALID_KERNEL_NAME (-46)"; unknown codes print as "OpenCL status -1234".
std::string clStatusName(cl_int status);

// Throws egopt::Error(Internal, "<what> failed: <status name>") unless status is CL_SUCCESS.
void checkCl(cl_int status, std::string_view what);

template <typename Raw>
struct HandleTraits;

#define EGOPT_CL_HANDLE_TRAITS(RawType, RetainFn, ReleaseFn)                                       \
    template <>                                                                                    \
    struct HandleTraits<RawType> {                                                                 \
        static void retain(RawType raw) { RetainFn(raw); }                                         \
        static void release(RawType raw) { ReleaseFn(raw); }                                       \
    };

EGOPT_CL_HANDLE_TRAITS(cl_context, clRetainContext, clReleaseContext)
EGOPT_CL_HANDLE_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue)
EGOPT_CL_HANDLE_TRAITS(cl_program, clRetainProgram, clReleaseProgram)
EGOPT_CL_HANDLE_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel)
EGOPT_CL_HANDLE_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject)
EGOPT_CL_HANDLE_TRAITS(cl_event, clRetainEvent, clReleaseEvent)

#undef EGOPT_CL_HANDLE_TRAITS

template <typename Raw>
class Handle {
public:
    Handle() = default;
    // Adopts a reference the caller already holds, e.g. the result of a clCreate* call.
    explicit Handle(Raw raw) : raw_(raw) {}
    Handle(const Handle& other) : raw_(other.raw_) {
        if (raw_) {
            HandleTraits<Raw>::retain(raw_);
        }
    }
    Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle& operator=(Handle other) noexcept {
        std::swap(raw_, other.raw_);
        return *this;
    }
    ~Handle() { reset(); }

    Raw get() const { return raw_; }
    explicit operator bool() const { return raw_ != nullptr; }

    void reset() {
        if (raw_) {
            HandleTraits<Raw>::release(std::exchange(raw_, nullptr));
        }
    }
    // Gives the reference up without releasing it: used only to abandon a queue whose kernel
    // never finishes, since releasing it would block until the kernel ends.
    Raw leak() { return std::exchange(raw_, nullptr); }

private:
    Raw raw_ = nullptr;
};

} // namespace egopt::runtime
