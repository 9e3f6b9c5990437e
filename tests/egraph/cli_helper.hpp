// Running the egopt binary from the e-graph tests (saturate, prove, dumps): exit code and
// output, with files in a per-process temporary directory.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace egopt::test {

struct CliRun {
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline std::filesystem::path scratchDir() {
    auto dir = std::filesystem::temp_directory_path() /
               ("egopt-egraph-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

inline std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string scratchFile(const std::string& name, const std::string& text) {
    auto path = scratchDir() / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

// `args` is appended to the binary path verbatim (shell syntax).
inline CliRun egopt(const std::string& args) {
    auto out = scratchDir() / "stdout.txt";
    auto err = scratchDir() / "stderr.txt";
    std::string cmd =
        std::string(EGOPT_CLI) + " " + args + " >" + out.string() + " 2>" + err.string();
    int status = std::system(cmd.c_str());
    CliRun r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(out);
    r.err = readFile(err);
    return r;
}

inline std::string dataFile(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/egraph/data/" + name;
}

} // namespace egopt::test
