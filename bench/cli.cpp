// Option parsing and error handling for the benchmark executables.
#include "cli.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace egopt::bench {

namespace {

[[noreturn]] void usageError(const std::string& message, const char* usage) {
    throw Error(ErrorKind::BadInput, message + "\n" + usage);
}

size_t parseCount(std::string_view flag, std::string_view text, size_t minimum, const char* usage) {
    size_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < minimum) {
        usageError(std::string(flag) + " needs an integer >= " + std::to_string(minimum) +
                       ", not '" + std::string(text) + "'",
                   usage);
    }
    return value;
}

} // namespace

Options parseOptions(int argc, char** argv, const char* usage) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                usageError(std::string(arg) + " needs a value", usage);
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
            options.size = parseCount(arg, value(), 1, usage);
        } else if (arg == "--runs") {
            options.timing.runs = static_cast<int>(parseCount(arg, value(), 1, usage));
        } else if (arg == "--warmup") {
            options.timing.warmup = static_cast<int>(parseCount(arg, value(), 0, usage));
        } else if (arg == "--filter") {
            options.filter = value();
        } else if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            std::exit(0);
        } else {
            usageError("unknown option '" + std::string(arg) + "'", usage);
        }
    }
    return options;
}

bool isGpu(const runtime::Device& device) {
    return device.type.find("GPU") != std::string::npos;
}

void printHeader(std::ostream& out, const runtime::Device& device, const Options& options) {
    out << "device: " << device.describe() << "\n"
        << "platform: " << device.platformName << " (" << device.platformVersion << ")\n"
        << "runs: " << options.timing.runs << " timed after " << options.timing.warmup
        << " warm-up; times are medians; 'median ms' is the profiling span of a"
           " run, 'wall ms' the host clock\n\n";
}

int runMain(const char* programName, const std::function<int()>& body) {
    try {
        return body();
    } catch (const Error& error) {
        std::cerr << programName << ": " << error.what() << '\n';
        return error.kind() == ErrorKind::BadInput ? kExitBadInput : kExitInternal;
    } catch (const std::exception& error) {
        std::cerr << programName << ": " << error.what() << '\n';
        return kExitInternal;
    }
}

} // namespace egopt::bench
