// End-to-end tests of the egopt command line: exit codes, output formats, diagnostics.
#include "run_cli.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <unistd.h>

using egopt::testenv::kExamples;

using egopt::test::runCli;
using egopt::test::writeTempFile;

TEST_CASE("check accepts every shared example", "[cli]") {
    for (const char* name : {"asum", "blackscholes", "dot", "gemv", "gesummv", "jacobi3", "mm",
                             "nbody", "saxpy", "scal", "lowlevel/asum_gpu", "lowlevel/copy_vec4",
                             "lowlevel/mm_funcall", "lowlevel/partial_dot", "lowlevel/transpose"}) {
        INFO(name);
        auto r = runCli("check " + kExamples + name + ".lift");
        CHECK(r.exitCode == 0);
        CHECK(r.out.find(") -> ") != std::string::npos);
    }
}

TEST_CASE("check prints the symbolic and the concrete type", "[cli]") {
    auto r = runCli("check " + kExamples + "asum.lift --size N=1024");
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("(ArrayType(Float, N)) -> ArrayType(Float, 1)") != std::string::npos);
    CHECK(r.out.find("with N=1024: (ArrayType(Float, 1024)) -> ArrayType(Float, 1)") !=
          std::string::npos);
}

TEST_CASE("the default action on a .lift file is the pipeline", "[cli]") {
    auto dir = std::filesystem::temp_directory_path() /
               ("egopt-cli-default-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto r =
        runCli(kExamples + "scal.lift --size N=256 --candidates 1 --tune.budget 1 --tune.runs 1 " +
               "--output-dir " + dir.string());
    CHECK(r.exitCode == 0);
    CHECK(std::filesystem::exists(dir / "scal.cl"));
    CHECK(std::filesystem::exists(dir / "scal.report.json"));
    CHECK(r.out.find("Kendall's tau") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("interp computes the dot product of the issue's example", "[cli]") {
    auto inputs = writeTempFile("dot.json", R"({"xs":[1,2,3,4],"ys":[0.5,-1,2,0.25]})");
    auto r = runCli("interp " + kExamples + "dot.lift --size N=4 --inputs " + inputs);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out == "[5.5]\n");
}

TEST_CASE("interp with random inputs is reproducible from the seed", "[cli]") {
    auto a = runCli("interp " + kExamples + "saxpy.lift --size N=8 --seed 7");
    auto b = runCli("interp " + kExamples + "saxpy.lift --size N=8 --seed 7");
    auto c = runCli("interp " + kExamples + "saxpy.lift --size N=8 --seed 8");
    REQUIRE(a.exitCode == 0);
    CHECK(a.out == b.out);
    CHECK(a.out != c.out);
}

TEST_CASE("interp prints tuples as arrays", "[cli]") {
    auto r = runCli("interp " + kExamples + "blackscholes.lift --size N=2");
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.rfind("[[", 0) == 0);
}

TEST_CASE("bad input gives file:line:col, a caret and exit code 2", "[cli]") {
    auto file = writeTempFile("bad.lift", "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N),\n"
                                          "  xs => Map(abs) $ $ xs)\n");
    auto r = runCli("check " + file);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("bad.lift:3:") != std::string::npos);
    CHECK(r.err.find('^') != std::string::npos);
}

TEST_CASE("a user function the interpreter cannot run is bad input when the program loads",
          "[cli]") {
    // Without the check at load, every candidate failed to build or validate, after saturation.
    auto file =
        writeTempFile("badc.lift", "val N = SizeVar(\"N\")\n"
                                   "val f = UserFun(\"f\", \"x\", \"{ return x +* 2.0f; }\", "
                                   "Float, Float)\n"
                                   "fun(ArrayType(Float, N), xs => Map(f) $ xs)\n");
    for (const char* command : {"check ", ""}) {
        INFO(command);
        auto r = runCli(command + file + " --size N=64");
        CHECK(r.exitCode == 2);
        CHECK(r.err.find("badc.lift:2:27: error: user function 'f'") != std::string::npos);
    }
}

TEST_CASE("a program whose result is a tuple of arrays is bad input when the pipeline loads it",
          "[cli]") {
    // A kernel writes one array; without the check, saturation ran and every extracted
    // candidate was rejected, exit code 4.
    auto file = writeTempFile(
        "unzipped.lift", "val N = SizeVar(\"N\")\n"
                         "fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) =>\n"
                         "  Unzip() o Map(fun(p => Tuple(add(p._0, p._1), p._0))) $ Zip(a, b))\n");
    auto r = runCli(file + " --size N=64");
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("unzipped.lift:3:") != std::string::npos);
    CHECK(r.err.find("a kernel writes one array") != std::string::npos);
    CHECK(runCli("interp " + file + " --size N=4").exitCode == 0); // the interpreter runs it
}

TEST_CASE("data larger than the device's largest buffer is bad input at load", "[cli]") {
    // Without the check the host ran out of memory making the inputs (exit 3), or at 12 GB every
    // candidate failed in clCreateBuffer after saturation (exit 4).
    auto r = runCli(kExamples + "scal.lift --size N=99999999999999");
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("the result is 400000.0 GB at N=99999999999999") != std::string::npos);
    CHECK(r.err.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
}

TEST_CASE("usage errors exit with code 2", "[cli]") {
    CHECK(runCli("frobnicate").exitCode == 2);
    CHECK(runCli("check").exitCode == 2);
    CHECK(runCli("check " + kExamples + "asum.lift --bogus").exitCode == 2);
    CHECK(runCli("check /nonexistent/file.lift").exitCode == 2);
    // A copy without the companion .json: N has no value.
    auto bare =
        writeTempFile("bare.lift", "fun(ArrayType(Float, SizeVar(\"N\")), xs => Map(abs) $ xs)");
    CHECK(runCli("interp " + bare).exitCode == 2);
    CHECK(runCli("interp " + kExamples + "asum.lift --size N=abc").exitCode == 2);
    CHECK(runCli("interp " + kExamples + "asum.lift --size Q=4").exitCode == 2);
    CHECK(runCli("interp " + kExamples + "asum.lift --size N=4 --seed x").exitCode == 2);
}

TEST_CASE("help is available everywhere", "[cli]") {
    CHECK(runCli("--help").exitCode == 0);
    auto r = runCli("interp --help");
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("--inputs") != std::string::npos);
}

TEST_CASE("a split that does not divide the concrete size is bad input", "[cli]") {
    auto r = runCli("check " + kExamples + "lowlevel/partial_dot.lift --size N=1000");
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("divide") != std::string::npos);
}
