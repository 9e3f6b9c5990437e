// OpenCL status codes as names, and the one place that turns a failed call into an egopt::Error.
#include "egopt/runtime/handle.hpp"
#include "egopt/support/diagnostic.hpp"

#include <array>
#include <utility>

namespace egopt::runtime {

namespace {

struct StatusName {
    cl_int code;
    const char* name;
};

#define EGOPT_STATUS(code)                                                                         \
    StatusName {                                                                                   \
        code, #code                                                                                \
    }

// The OpenCL 1.2 codes plus the ICD loader's "no platform" code, which cl.h does not define.
constexpr std::array kStatusNames = {
    EGOPT_STATUS(CL_SUCCESS),
    EGOPT_STATUS(CL_DEVICE_NOT_FOUND),
    EGOPT_STATUS(CL_DEVICE_NOT_AVAILABLE),
    EGOPT_STATUS(CL_COMPILER_NOT_AVAILABLE),
    EGOPT_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    EGOPT_STATUS(CL_OUT_OF_RESOURCES),
    EGOPT_STATUS(CL_OUT_OF_HOST_MEMORY),
    EGOPT_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE),
    EGOPT_STATUS(CL_MEM_COPY_OVERLAP),
    EGOPT_STATUS(CL_IMAGE_FORMAT_MISMATCH),
    EGOPT_STATUS(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    EGOPT_STATUS(CL_BUILD_PROGRAM_FAILURE),
    EGOPT_STATUS(CL_MAP_FAILURE),
    EGOPT_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    EGOPT_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    EGOPT_STATUS(CL_COMPILE_PROGRAM_FAILURE),
    EGOPT_STATUS(CL_LINKER_NOT_AVAILABLE),
    EGOPT_STATUS(CL_LINK_PROGRAM_FAILURE),
    EGOPT_STATUS(CL_DEVICE_PARTITION_FAILED),
    EGOPT_STATUS(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    EGOPT_STATUS(CL_INVALID_VALUE),
    EGOPT_STATUS(CL_INVALID_DEVICE_TYPE),
    EGOPT_STATUS(CL_INVALID_PLATFORM),
    EGOPT_STATUS(CL_INVALID_DEVICE),
    EGOPT_STATUS(CL_INVALID_CONTEXT),
    EGOPT_STATUS(CL_INVALID_QUEUE_PROPERTIES),
    EGOPT_STATUS(CL_INVALID_COMMAND_QUEUE),
    EGOPT_STATUS(CL_INVALID_HOST_PTR),
    EGOPT_STATUS(CL_INVALID_MEM_OBJECT),
    EGOPT_STATUS(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    EGOPT_STATUS(CL_INVALID_IMAGE_SIZE),
    EGOPT_STATUS(CL_INVALID_SAMPLER),
    EGOPT_STATUS(CL_INVALID_BINARY),
    EGOPT_STATUS(CL_INVALID_BUILD_OPTIONS),
    EGOPT_STATUS(CL_INVALID_PROGRAM),
    EGOPT_STATUS(CL_INVALID_PROGRAM_EXECUTABLE),
    EGOPT_STATUS(CL_INVALID_KERNEL_NAME),
    EGOPT_STATUS(CL_INVALID_KERNEL_DEFINITION),
    EGOPT_STATUS(CL_INVALID_KERNEL),
    EGOPT_STATUS(CL_INVALID_ARG_INDEX),
    EGOPT_STATUS(CL_INVALID_ARG_VALUE),
    EGOPT_STATUS(CL_INVALID_ARG_SIZE),
    EGOPT_STATUS(CL_INVALID_KERNEL_ARGS),
    EGOPT_STATUS(CL_INVALID_WORK_DIMENSION),
    EGOPT_STATUS(CL_INVALID_WORK_GROUP_SIZE),
    EGOPT_STATUS(CL_INVALID_WORK_ITEM_SIZE),
    EGOPT_STATUS(CL_INVALID_GLOBAL_OFFSET),
    EGOPT_STATUS(CL_INVALID_EVENT_WAIT_LIST),
    EGOPT_STATUS(CL_INVALID_EVENT),
    EGOPT_STATUS(CL_INVALID_OPERATION),
    EGOPT_STATUS(CL_INVALID_GL_OBJECT),
    EGOPT_STATUS(CL_INVALID_BUFFER_SIZE),
    EGOPT_STATUS(CL_INVALID_MIP_LEVEL),
    EGOPT_STATUS(CL_INVALID_GLOBAL_WORK_SIZE),
    EGOPT_STATUS(CL_INVALID_PROPERTY),
    EGOPT_STATUS(CL_INVALID_IMAGE_DESCRIPTOR),
    EGOPT_STATUS(CL_INVALID_COMPILER_OPTIONS),
    EGOPT_STATUS(CL_INVALID_LINKER_OPTIONS),
    EGOPT_STATUS(CL_INVALID_DEVICE_PARTITION_COUNT),
    StatusName{-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
};

#undef EGOPT_STATUS

} // namespace

std::string clStatusName(cl_int status) {
    for (const StatusName& entry : kStatusNames) {
        if (entry.code == status) {
            return std::string(entry.name) + " (" + std::to_string(status) + ")";
        }
    }
    return "OpenCL status " + std::to_string(status);
}

void checkCl(cl_int status, std::string_view what) {
    if (status != CL_SUCCESS) {
        throw Error(ErrorKind::Internal, std::string(what) + " failed: " + clStatusName(status));
    }
}

} // namespace egopt::runtime
