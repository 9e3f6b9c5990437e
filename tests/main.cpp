// The one Catch2 main shared by every module's test executable.
//
// Each test process works in a private scratch directory: TMPDIR points there for the process
// and for the egopt commands it starts, so every temporary file a test or the binary makes
// (std::filesystem::temp_directory_path(), mkstemp, PoCL's scratch files) lands there, and the
// directory is removed when the process ends, whether its tests pass or fail. ctest runs each
// test case as its own process, so per-test clean-up alone would leave one folder per case.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

namespace {

class ScratchDir {
public:
    ScratchDir() {
        std::error_code ec;
        std::filesystem::path base = std::filesystem::temp_directory_path(ec);
        std::string pattern =
            ((ec ? std::filesystem::path("/tmp") : base) / "egopt-test-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            return; // tests then share the system temporary directory
        }
        path_ = pattern;
        ::setenv("TMPDIR", path_.c_str(), 1);
    }
    ~ScratchDir() {
        std::error_code ec;
        if (!path_.empty()) {
            std::filesystem::remove_all(path_, ec);
        }
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

private:
    std::filesystem::path path_;
};

} // namespace

int main(int argc, char* argv[]) {
    ScratchDir scratch;
    return Catch::Session().run(argc, argv);
}
