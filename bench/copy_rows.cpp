// The copy kernel, the bandwidth limit that every memory-bound row is compared with.
#include "blas_rows.hpp"

namespace egopt::bench {

namespace {

// One float4 per work-item: the simplest kernel that streams at the memory bandwidth, on GPUs
// (coalesced 16-byte accesses) and on PoCL (vectorised across the work-group).
constexpr const char* kCopySource = R"CL(
__kernel void copy4(__global const float4* restrict in, __global float4* restrict out) {
    size_t i = get_global_id(0);
    out[i] = in[i];
}
)CL";

} // namespace

std::string checkPattern(runtime::Session& session, const runtime::Buffer& buffer, size_t n,
                         unsigned seed) {
    const std::vector<float> got = session.downloadValues<float>(buffer);
    for (size_t i = 0; i < n; ++i) {
        if (i >= got.size() || got[i] != patternValue(i, seed)) {
            return "FAIL at " + std::to_string(i);
        }
    }
    return "ok";
}

Row copyKernel(Timer& timer, const VectorData& data) {
    if (data.n % 1024 != 0) {
        throw Error(ErrorKind::BadInput, "the copy kernel needs a multiple of 1024 floats, not " +
                                             std::to_string(data.n));
    }
    runtime::Session& session = timer.session();
    runtime::Buffer out = session.allocate(data.n * sizeof(float));
    KernelCase copy{.name = "copy",
                    .size = formatCount(data.n),
                    .source = kCopySource,
                    .entry = "copy4",
                    .options = "",
                    .global = data.n / 4,
                    .local = 256,
                    .args = {data.x, out},
                    .work = streamWork(2.0 * data.n * 4)};
    Row row = benchKernel(timer, copy);
    row.check = checkPattern(session, out, data.n, 1);
    return row;
}

} // namespace egopt::bench
