// The command line's entry points as a new user meets them: --help lists every subcommand,
// --version, a program file under any name, and diagnostics of a binary file.
#include "run_cli.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

using egopt::testenv::kExamples;

using egopt::test::runCli;
using egopt::test::writeTempFile;

namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("egopt --help lists every subcommand on one line with a description", "[cli]") {
    auto r = runCli("--help");
    REQUIRE(r.exitCode == 0);
    for (const char* name : {"check", "interp", "codegen", "run", "saturate", "prove", "rules",
                             "fit", "rank", "optimize", "devices"}) {
        INFO(name);
        std::regex line("(^|\n)  " + std::string(name) + " +[a-z`(][^\n]{10,}\n");
        CHECK(std::regex_search(r.out, line));
        // and each has its own help
        CHECK(runCli(std::string(name) + " --help").exitCode == 0);
    }
    CHECK(r.out.find("--version") != std::string::npos);
}

TEST_CASE("egopt --version prints the project version and the commit", "[cli]") {
    auto r = runCli("--version");
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.rfind("egopt " + std::string(EGOPT_PROJECT_VERSION), 0) == 0);
    CHECK(std::regex_match(r.out,
                           std::regex("egopt [0-9]+\\.[0-9]+\\.[0-9]+( \\(git [0-9a-f]+\\))?\n")));
    CHECK(runCli("-V").out == r.out);
}

TEST_CASE("a program file without the .lift extension runs the pipeline", "[cli]") {
    auto program = writeTempFile("scal_program", readFile(kExamples + "scal.lift"));
    auto dir = std::filesystem::path(program).parent_path() / "scal-out";
    auto r = runCli(program +
                    " --size N=256 --candidates 1 --search.draws 0 --tune.budget 1 --tune.runs 1 " +
                    "--output-dir " + dir.string());
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(std::filesystem::exists(dir / "scal_program.cl"));
    CHECK(std::filesystem::exists(dir / "scal_program.report.json"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a word that is neither a command nor a file is an unknown command", "[cli]") {
    auto r = runCli("no-such-program");
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("unknown command 'no-such-program'") != std::string::npos);
}

TEST_CASE("a binary file's diagnostic escapes its bytes", "[cli]") {
    auto file = writeTempFile("binary.lift", std::string("\x7f"
                                                         "ELF\x02\x01\x01\0\x1b[2J",
                                                         12));
    auto r = runCli("check " + file);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("\\x7fELF\\x02\\x01\\x01\\x00\\x1b[2J") != std::string::npos);
    bool printable = true;
    for (char ch : r.err) {
        auto c = static_cast<unsigned char>(ch);
        printable = printable && ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t');
    }
    CHECK(printable);
}

TEST_CASE("a candidate that fails to build shows the OpenCL compiler's log", "[cli]") {
    // A user function named like an OpenCL builtin interprets fine but does not compile.
    auto program = writeTempFile("builtin_name.lift",
                                 "val N = SizeVar(\"N\")\n"
                                 "val f = UserFun(\"fabs\", \"x\", \"{ return x * 2.0f; }\", "
                                 "Float, Float)\n"
                                 "fun(ArrayType(Float, N), xs => Map(f) $ xs)\n");
    auto dir = std::filesystem::path(program).parent_path() / "build-log-out";
    auto r = runCli(program +
                    " --size N=64 --candidates 1 --search.draws 0 --tune.budget 1 --tune.runs 1 " +
                    "--output-dir " + dir.string());
    INFO(r.out + r.err);
    CHECK(r.exitCode == 4);
    CHECK(r.out.find("the OpenCL build failed; build log:") != std::string::npos);
    CHECK(r.out.find("fabs") != std::string::npos);
    std::string report = readFile((dir / "builtin_name.report.json").string());
    CHECK(report.find("\"build_log\"") != std::string::npos);
    std::filesystem::remove_all(dir);
}
