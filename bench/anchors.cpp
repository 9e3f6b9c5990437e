// bench/anchors: the reference numbers egopt's generated kernels must beat (docs/design.md §11).
//
// Rows: a float4 copy kernel (the bandwidth limit) and CLBlast's sscal, sasum, sdot, sgemv and
// sgemm, all on one device and timed the same way (harness.hpp). Bytes and flops per row:
//   copy  2N*4 bytes        scal  2N*4 bytes        asum  N*4 bytes        dot  2N*4 bytes
//   gemv  (MN + M + N)*4 bytes                      gemm  2MNK flops
#include "blas_rows.hpp"
#include "cli.hpp"
#include "egopt/runtime/device.hpp"
#include "harness.hpp"

#include <iostream>
#include <string>

namespace egopt::bench {
namespace {

constexpr const char* kUsage =
    R"(usage: anchors [--device D] [--quick] [--size N] [--runs R] [--warmup W] [--filter S] [--csv]
  --device D   device index or name substring (as for `egopt devices`); default: PoCL
  --quick      small sizes (4M floats, gemv 4096^2, sgemm 512^3) for a 2-core CPU
  --size N     vector length for copy/scal/asum/dot (a multiple of 1024)
               default: 128M floats on a GPU, 16M otherwise
  --runs R     timed runs per row (default 10); the median is reported
  --warmup W   untimed runs before them (default 2)
  --filter S   only rows whose kernel name contains S (copy, scal, asum, dot, gemv, sgemm)
  --csv        CSV instead of the table, with every sample
)";

struct Sizes {
    size_t vector = 0;
    std::vector<size_t> gemv; // square matrices
    std::vector<size_t> gemm; // cubes
};

// Sizes from docs/design.md §11: GPUs get the large problems that saturate them, a CPU the ones
// that finish in seconds under PoCL.
Sizes pickSizes(const runtime::Device& device, const Options& options) {
    constexpr size_t kMi = size_t{1} << 20;
    const bool gpu = isGpu(device);
    Sizes sizes;
    if (options.quick) {
        sizes = {4 * kMi, {4096}, {512}};
    } else if (gpu) {
        sizes = {128 * kMi, {4096, 8192}, {1024, 4096}};
    } else {
        sizes = {16 * kMi, {4096}, {1024}};
    }
    if (options.size) {
        sizes.vector = *options.size;
    }
    if (sizes.vector % 1024 != 0) {
        throw Error(ErrorKind::BadInput,
                    "--size must be a multiple of 1024 (float4 copy in work-groups of 256)");
    }
    return sizes;
}

std::vector<Row> runAll(runtime::Session& session, const Sizes& sizes, const Options& options) {
    Runner runner(options);
    Timer timer(session, options.timing);
    if (runner.wants("copy") || runner.wants("scal") || runner.wants("asum") ||
        runner.wants("dot")) {
        // Scoped so the vectors are freed before the matrices are allocated.
        const VectorData data = makeVectors(session, sizes.vector);
        runner.add("copy", [&] { return copyKernel(timer, data); });
        runner.add("scal", [&] { return blasScal(timer, data); });
        runner.add("asum", [&] { return blasAsum(timer, data); });
        runner.add("dot", [&] { return blasDot(timer, data); });
    }
    for (size_t n : sizes.gemv) {
        runner.add("gemv", [&] { return blasGemv(timer, n); });
    }
    for (size_t n : sizes.gemm) {
        runner.add("sgemm", [&] { return blasGemm(timer, n); });
    }
    return runner.rows();
}

int run(int argc, char** argv) {
    const Options options = parseOptions(argc, argv, kUsage);
    const runtime::Device device = runtime::selectDevice(options.device);
    const Sizes sizes = pickSizes(device, options);
    runtime::Session session(device);
    const std::vector<Row> rows = runAll(session, sizes, options);
    if (options.csv) {
        printCsv(std::cout, rows);
    } else {
        printHeader(std::cout, device, options);
        printTable(std::cout, rows);
    }
    return kExitOk;
}

} // namespace
} // namespace egopt::bench

int main(int argc, char** argv) {
    return egopt::bench::runMain("anchors", [&] { return egopt::bench::run(argc, argv); });
}
