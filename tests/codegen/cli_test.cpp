// The codegen and run commands of the egopt binary: -o as the short form of --output, the plan
// JSON beside the .cl, symbolic kernels without --size, and a multi-kernel run.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// Per process: build/ and build-sanitize/ suites, or ctest -j, run these at the same time.
fs::path scratch(const std::string& name) {
    return fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
}

struct Result {
    int status;
    std::string out;
};

Result egopt(const std::string& args) {
    fs::path log = scratch("egopt_codegen_cli_test.log");
    std::string cmd = std::string(EGOPT_CLI) + " " + args + " > " + log.string() + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::stringstream ss;
    {
        std::ifstream in(log);
        ss << in.rdbuf();
    }
    fs::remove(log);
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ss.str()};
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string program(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/codegen/programs/" + name + ".lift";
}

} // namespace

TEST_CASE("codegen -o writes the kernels and the plan JSON", "[codegen]") {
    fs::path dir = scratch("egopt_codegen_cli");
    fs::create_directories(dir);
    fs::path cl = dir / "mk.cl";
    Result r = egopt("codegen " + program("mk_asum_final") + " --size N=1024 -o " + cl.string());
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("2 kernels"));
    std::string source = readFile(cl);
    CHECK_THAT(source, Catch::Contains("__kernel void KERNEL_0") &&
                           Catch::Contains("__kernel void KERNEL_1"));
    std::string json = readFile(dir / "mk.json");
    CHECK_THAT(json, Catch::Contains("\"intermediates\"") && Catch::Contains("\"tmp0\""));
    fs::remove_all(dir);
}

TEST_CASE("codegen without --size gives a symbolic kernel", "[codegen]") {
    Result r = egopt("codegen " + program("glb_1d"));
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("const int N") && Catch::Contains("\"size_params\"") &&
                          Catch::Contains("\"4*N\""));
}

TEST_CASE("run validates a kernel sequence and reports each kernel", "[codegen]") {
    Result r = egopt("run " + program("mk_transpose") + " --size M=8,N=16 --runs 2");
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("OK") && Catch::Contains("2 kernels:") &&
                          Catch::Contains("KERNEL_0") && Catch::Contains("KERNEL_1"));
}
