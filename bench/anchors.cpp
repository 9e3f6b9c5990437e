// bench/anchors: the reference numbers that egopt's generated kernels must beat (SPEC.md §11).
//
// Rows: a float4 copy kernel (the bandwidth limit) and CLBlast's sscal, sasum, sdot, sgemv and
// sgemm, all on one device and timed the same way (harness.hpp). Bytes and flops per row:
//   copy  2N*4 bytes        scal  2N*4 bytes        asum  N*4 bytes        dot  2N*4 bytes
//   gemv  (MN + M + N)*4 bytes                      gemm  2MNK flops
#include "blas_rows.hpp"
#include "egopt/runtime/device.hpp"
#include "harness.hpp"

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

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

struct Options {
    std::string device;
    bool quick = false;
    bool csv = false;
    std::optional<size_t> size;
    std::string filter;
    TimingConfig timing;
};

struct Sizes {
    size_t vector = 0;
    std::vector<size_t> gemv; // square matrices
    std::vector<size_t> gemm; // cubes
};

[[noreturn]] void usageError(const std::string& message) {
    throw Error(ErrorKind::BadInput, message + "\n" + kUsage);
}

size_t parseCount(std::string_view flag, std::string_view text, size_t minimum = 1) {
    size_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < minimum) {
        usageError(std::string(flag) + " needs an integer >= " + std::to_string(minimum) +
                   ", not '" + std::string(text) + "'");
    }
    return value;
}

Options parseOptions(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                usageError(std::string(arg) + " needs a value");
            }
            return argv[++i];
        };
        if (arg == "--device") {
            options.device = value();
        } else if (arg == "--quick") {
            options.quick = true;
        } else if (arg == "--csv") {
            options.csv = true;
        } else if (arg == "--size") {
            options.size = parseCount(arg, value());
        } else if (arg == "--runs") {
            options.timing.runs = static_cast<int>(parseCount(arg, value()));
        } else if (arg == "--warmup") {
            options.timing.warmup = static_cast<int>(parseCount(arg, value(), 0));
        } else if (arg == "--filter") {
            options.filter = value();
        } else if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            std::exit(0);
        } else {
            usageError("unknown option '" + std::string(arg) + "'");
        }
    }
    return options;
}

// Sizes from SPEC.md §11: GPUs get the large problems that saturate them, a CPU the ones that
// finish in seconds under PoCL.
Sizes pickSizes(const runtime::Device& device, const Options& options) {
    constexpr size_t kMi = size_t{1} << 20;
    const bool gpu = device.type.find("GPU") != std::string::npos;
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
        usageError("--size must be a multiple of 1024 (float4 copy in work-groups of 256)");
    }
    return sizes;
}

// One float4 per work-item: the simplest kernel that streams at the memory bandwidth, on GPUs
// (coalesced 16-byte accesses) and on PoCL (vectorised across the work-group).
constexpr const char* kCopySource = R"CL(
__kernel void copy4(__global const float4* restrict in, __global float4* restrict out) {
    size_t i = get_global_id(0);
    out[i] = in[i];
}
)CL";

std::string checkCopy(runtime::Session& session, const runtime::Buffer& out, size_t n) {
    const std::vector<float> got = session.downloadValues<float>(out);
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != patternValue(i, 1)) {
            return "FAIL at " + std::to_string(i);
        }
    }
    return "ok";
}

Row benchCopy(Timer& timer, const VectorData& data) {
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
    row.check = checkCopy(session, out, data.n);
    return row;
}

class Runner {
public:
    explicit Runner(const Options& options) : options_(options) {}

    // Runs `bench` unless the filter excludes `name`, reporting progress on stderr because PoCL
    // and CLBlast compile for seconds before the first timed run.
    bool wants(const std::string& name) const {
        return name.find(options_.filter) != std::string::npos;
    }

    template <typename Bench>
    void add(const std::string& name, Bench bench) {
        if (!wants(name)) {
            return;
        }
        std::cerr << "running " << name << "...\n";
        rows_.push_back(bench());
    }

    const std::vector<Row>& rows() const { return rows_; }

private:
    const Options& options_;
    std::vector<Row> rows_;
};

std::vector<Row> runAll(runtime::Session& session, const Sizes& sizes, const Options& options) {
    Runner runner(options);
    Timer timer(session, options.timing);
    if (runner.wants("copy") || runner.wants("scal") || runner.wants("asum") ||
        runner.wants("dot")) {
        // Scoped so the vectors are freed before the matrices are allocated.
        const VectorData data = makeVectors(session, sizes.vector);
        runner.add("copy", [&] { return benchCopy(timer, data); });
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

void printHeader(const runtime::Device& device, const Options& options) {
    std::cout << "device: " << device.describe() << "\n"
              << "platform: " << device.platformName << " (" << device.platformVersion << ")\n"
              << "runs: " << options.timing.runs << " timed after " << options.timing.warmup
              << " warm-up; times are medians; 'median ms' is the profiling span of a"
                 " run, 'wall ms' the host clock\n\n";
}

int run(int argc, char** argv) {
    const Options options = parseOptions(argc, argv);
    const runtime::Device device = runtime::selectDevice(options.device);
    const Sizes sizes = pickSizes(device, options);
    runtime::Session session(device);
    const std::vector<Row> rows = runAll(session, sizes, options);
    if (options.csv) {
        printCsv(std::cout, rows);
    } else {
        printHeader(device, options);
        printTable(std::cout, rows);
    }
    return kExitOk;
}

} // namespace
} // namespace egopt::bench

int main(int argc, char** argv) {
    try {
        return egopt::bench::run(argc, argv);
    } catch (const egopt::Error& error) {
        std::cerr << "anchors: " << error.what() << '\n';
        return error.kind() == egopt::ErrorKind::BadInput ? egopt::kExitBadInput
                                                          : egopt::kExitInternal;
    } catch (const std::exception& error) {
        std::cerr << "anchors: " << error.what() << '\n';
        return egopt::kExitInternal;
    }
}
