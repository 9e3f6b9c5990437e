// Kernel arguments, work sizes and the runtime's error types.
#include "egopt/runtime/session.hpp"

namespace egopt::runtime {

BuildError::BuildError(std::string message, std::string log)
    : Error(ErrorKind::Internal, message + std::string(kBuildLogSeparator) + log),
      log_(std::move(log)) {}

KernelTimeout::KernelTimeout(std::string message)
    : Error(ErrorKind::Internal, std::move(message)) {}

std::string NDRange::str() const {
    if (dims == 0) {
        return "(driver)";
    }
    std::string out = std::to_string(sizes[0]);
    for (cl_uint d = 1; d < dims; ++d) {
        out += "x" + std::to_string(sizes[d]);
    }
    return out;
}

namespace {

cl_uint queryArgCount(cl_kernel kernel) {
    cl_uint count = 0;
    checkCl(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr),
            "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
    return count;
}

} // namespace

Kernel::Kernel(Handle<cl_kernel> kernel, std::string name)
    : kernel_(std::move(kernel)), name_(std::move(name)), argSet_(queryArgCount(kernel_.get())),
      bufferArgs_(argSet_.size()) {}

void Kernel::setArg(cl_uint index, const Buffer& buffer) {
    cl_mem mem = buffer.get();
    if (!mem) {
        throw Error(ErrorKind::Internal, "argument " + std::to_string(index) + " of kernel '" +
                                             name_ + "' is an empty Buffer");
    }
    setRaw(index, sizeof mem, &mem, "buffer");
    bufferArgs_[index] = buffer;
}

void Kernel::setArg(cl_uint index, int32_t value) {
    setRaw(index, sizeof value, &value, "int");
}

void Kernel::setArg(cl_uint index, uint32_t value) {
    setRaw(index, sizeof value, &value, "uint");
}

void Kernel::setArg(cl_uint index, float value) {
    setRaw(index, sizeof value, &value, "float");
}

// A null value with a non-zero size is how OpenCL asks for __local memory of that size.
void Kernel::setArg(cl_uint index, LocalMemory local) {
    setRaw(index, local.bytes, nullptr,
           "local memory of " + std::to_string(local.bytes) + " bytes");
}

void Kernel::setRaw(cl_uint index, size_t size, const void* value, std::string_view what) {
    std::string where = "argument " + std::to_string(index) + " of kernel '" + name_ + "'";
    // Checked here because drivers answer a bare CL_INVALID_ARG_INDEX without the count.
    if (index >= argSet_.size()) {
        throw Error(ErrorKind::Internal, "cannot set " + where + ": the kernel has " +
                                             std::to_string(argSet_.size()) + " arguments");
    }
    checkCl(clSetKernelArg(kernel_.get(), index, size, value),
            "setting " + where + " to " + std::string(what));
    argSet_[index] = true;
    bufferArgs_[index] = Buffer();
}

void Kernel::requireAllArgsSet() const {
    for (size_t i = 0; i < argSet_.size(); ++i) {
        if (!argSet_[i]) {
            throw Error(ErrorKind::Internal, "argument " + std::to_string(i) + " of kernel '" +
                                                 name_ + "' was never set");
        }
    }
}

} // namespace egopt::runtime
