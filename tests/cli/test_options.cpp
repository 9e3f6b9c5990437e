// The options model (docs/pipeline.md, "Options"): saturation options parsed once and meaning the
// same in egopt PROGRAM, saturate and prove; grouped options folded in --help; renamed options
// refused with their new names.
#include "run_cli.hpp"

#include <catch2/catch.hpp>
#include <string>

using egopt::test::runCli;
using egopt::test::writeTempFile;

namespace {

const std::string kRoot = std::string(EGOPT_SOURCE_DIR) + "/";

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

} // namespace

TEST_CASE("saturate runs one phase per --rules option, each under --iterations", "[cli]") {
    const std::string rules = kRoot + "rules/core.rules";
    auto one =
        runCli("saturate " + kRoot + "examples/asum.lift --rules " + rules + " --iterations 2");
    REQUIRE(one.exitCode == 0);
    CHECK(count(one.out, "\niteration ") == 2);
    CHECK(one.out.find("phase ") == std::string::npos); // one phase: no phase lines
    auto two = runCli("saturate " + kRoot + "examples/asum.lift --rules " + rules + " --rules " +
                      rules + " --iterations 2");
    REQUIRE(two.exitCode == 0);
    CHECK(count(two.out, "\niteration ") == 4);
    CHECK(two.out.find("phase 1: " + rules) != std::string::npos);
    CHECK(two.out.find("phase 2: " + rules) != std::string::npos);
    CHECK(two.out.find("stop: iteration limit (phase 2)") != std::string::npos);
}

TEST_CASE("saturate and prove default to the pipeline's rule phases", "[cli]") {
    auto sat = runCli("saturate " + kRoot + "examples/asum.lift --iterations 1");
    REQUIRE(sat.exitCode == 0);
    CHECK(sat.out.find("phase algorithmic: ") != std::string::npos);
    CHECK(sat.out.find("phase lowering: ") != std::string::npos);
    // Two maps and one MapGlb of the composed function are equal through both phases' rules:
    // the first phase's fusion and the second's lowering (the lowering rules alone fail).
    const std::string head = "val N = SizeVar(\"N\")\nval square = UserFun(\"square\", \"x\", "
                             "\"{ return x * x; }\", Float, Float)\n";
    std::string twice = writeTempFile(
        "twice.lift", head + "fun(ArrayType(Float, N), xs => Map(square) o Map(square) $ xs)\n");
    std::string glb =
        writeTempFile("glb.lift", head + "fun(ArrayType(Float, N), xs => MapGlb(fun(x => "
                                         "square(square(x)))) $ xs)\n");
    auto proof = runCli("prove " + twice + " " + glb);
    REQUIRE(proof.exitCode == 0);
    CHECK(proof.out.find("= by map-fusion") != std::string::npos);
    auto lowering = runCli("prove " + twice + " " + glb + " --rules " + kRoot +
                           "rules/opencl.rules --iterations 3");
    CHECK(lowering.exitCode == 4);
}

TEST_CASE("bad saturation options are refused the same way by every command", "[cli]") {
    for (const char* command : {"saturate", "prove", "optimize"}) {
        INFO(command);
        std::string files = kRoot + "examples/asum.lift";
        if (std::string(command) == "prove") {
            files += " " + files;
        }
        auto r = runCli(std::string(command) + " " + files + " --iterations many");
        CHECK(r.exitCode == 2);
        CHECK(r.err.find("--iterations expects a non-negative number, found 'many'") !=
              std::string::npos);
        auto empty = runCli(std::string(command) + " " + files + " --rules ,");
        CHECK(empty.exitCode == 2);
        CHECK(empty.err.find("--rules expects rule files") != std::string::npos);
    }
}

TEST_CASE("the memory limit option takes bytes or a unit and stops saturation at it", "[cli]") {
    const std::string run = "saturate " + kRoot + "examples/mm.lift --rules " + kRoot +
                            "rules/algorithmic.rules --iterations 6 --node-limit 1000000";
    auto low = runCli(run + " --memory-limit 1M");
    REQUIRE(low.exitCode == 0);
    CHECK(low.out.find("stop: memory limit") != std::string::npos);
    auto bytes = runCli(run + " --memory-limit 1048576"); // the same limit in bytes
    REQUIRE(bytes.exitCode == 0);
    auto ending = [](const std::string& out) { // the stop reason and final size (no timings)
        size_t at = out.find("stop: ");
        return at == std::string::npos ? "" : out.substr(at, out.find("tuning", at) - at);
    };
    CHECK(ending(low.out).find("final: ") != std::string::npos);
    CHECK(ending(bytes.out) == ending(low.out));
    auto high = runCli(run + " --memory-limit 2G --iterations 2");
    REQUIRE(high.exitCode == 0);
    CHECK(high.out.find("stop: iteration limit") != std::string::npos);
    auto bad = runCli(run + " --memory-limit 2X");
    CHECK(bad.exitCode == 2);
    CHECK(bad.err.find("--memory-limit expects bytes, or a number with a unit") !=
          std::string::npos);
}

TEST_CASE("optimize --help folds the option groups, --help GROUP lists one", "[cli]") {
    auto brief = runCli("optimize --help");
    REQUIRE(brief.exitCode == 0);
    CHECK(brief.out.find("  search: --search.target, --search.draws") != std::string::npos);
    CHECK(brief.out.find("--tune.slow-factor VALUE") == std::string::npos);
    CHECK(count(brief.out, "\n") < 40); // one screen
    auto tune = runCli("optimize --help tune");
    REQUIRE(tune.exitCode == 0);
    CHECK(tune.out.find("--tune.slow-factor VALUE") != std::string::npos);
    CHECK(tune.out.find("--search.draws") == std::string::npos);
    auto all = runCli("optimize --help all");
    CHECK(all.out.find("--search.draws VALUE") != std::string::npos);
    CHECK(all.out.find("--memory-limit VALUE") != std::string::npos);
}

TEST_CASE("options of an earlier release are refused with their new names", "[cli]") {
    auto r = runCli(kRoot + "examples/asum.lift --tuner random");
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("option '--tuner' is now '--tune.strategy'") != std::string::npos);
    auto bad = runCli(kRoot + "examples/asum.lift --tune.strategy sideways");
    CHECK(bad.exitCode == 2);
    CHECK(bad.err.find("--tune.strategy expects guided or random, found 'sideways'") !=
          std::string::npos);
}

// A composite rule the catalogue cannot reach (Map to MapGlb: only MapSeq is an equality here)
// runs its search stages to the e-node limit given: each stage's line names it.
TEST_CASE("rules derive stops each search stage at --node-limit", "[cli]") {
    std::string file = writeTempFile("derive_limit.rules",
                                     "rule seq: Map(?f) $ ?x => MapSeq(?f) $ ?x\n"
                                     "rule split-join: Map(?f) $ ?x => Join $ (Map(Map(?f)) $ "
                                     "(Split(#n) $ ?x)) if isArray(?x) where #n = tuning(?x)\n"
                                     "rule m: Map(?f) $ ?x => MapGlb(0, ?f) $ ?x by seq\n");
    auto r = runCli("rules derive " + file + " --node-limit 200 --time-limit 30");
    CHECK(r.exitCode == 1);
    CHECK(r.out.find("NOT DERIVED m") != std::string::npos);
    CHECK(r.out.find("e-node limit") != std::string::npos);
}
