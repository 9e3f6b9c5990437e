#include "run_cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace egopt::test {

namespace {

std::filesystem::path tempDir() {
    auto dir =
        std::filesystem::temp_directory_path() / ("egopt-cli-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

CliResult runCli(const std::string& args) {
    auto dir = tempDir();
    auto outPath = dir / "stdout.txt";
    auto errPath = dir / "stderr.txt";
    std::string cmd =
        std::string(EGOPT_CLI) + " " + args + " >" + outPath.string() + " 2>" + errPath.string();
    int status = std::system(cmd.c_str());
    CliResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(outPath);
    r.err = slurp(errPath);
    return r;
}

std::string writeTempFile(const std::string& name, const std::string& text) {
    auto path = tempDir() / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

} // namespace egopt::test
