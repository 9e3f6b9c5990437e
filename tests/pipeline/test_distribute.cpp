// `mpirun -np 2 egopt` on this host (docs/distributed.md): rank 0 coordinates and times on PoCL,
// rank 1 times on PoCL too. Hidden ([.mpi]): tests/CMakeLists.txt registers each case with CTest
// when egopt is built with MPI and mpirun is found, so the plain discovery does not run them.
#include "egopt/support/diagnostic.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/wait.h>

using nlohmann::json;

namespace {

#ifndef EGOPT_MPIEXEC
#define EGOPT_MPIEXEC "mpirun"
#endif

// A fresh directory for one run's outputs, removed at the end.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "egopt-mpi-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

// asum at a small size after two iterations of each rule phase, its candidates extracted only
// (no exploration), each measured at its model seed (a budget of one configuration per
// candidate: the same configurations whatever the times), no deadline.
std::string asumArgs(const std::filesystem::path& out) {
    std::string root = EGOPT_SOURCE_DIR;
    return root + "/examples/asum.lift --size N=4096 --rules " + root + "/rules/core.rules," +
           root + "/rules/algorithmic.rules --rules " + root +
           "/rules/opencl.rules --iterations 2 --candidates 4 --search.draws 0 --tune.budget 4 "
           "--tune.runs 2 --tune.validate 0 --time-budget 0 --no-derivation --output-dir " +
           out.string();
}

int run(const std::string& command) {
    int status = std::system((command + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// mpirun on this host as CI runs it (as root, more ranks than cores), with `env` exported.
std::string mpirun(int ranks, const std::string& options) {
    return std::string(EGOPT_MPIEXEC) + " --oversubscribe --allow-run-as-root -np " +
           std::to_string(ranks) + " " + options + " " + EGOPT_CLI + " ";
}

json report(const std::filesystem::path& dir) {
    std::ifstream in(dir / "asum.report.json");
    REQUIRE(in);
    return json::parse(in);
}

// Every measured configuration without its time: (candidate, values, ok).
std::set<std::string> configs(const json& r) {
    std::set<std::string> out;
    for (const auto& c : r["candidates"]) {
        for (const auto& m : c["measurements"]) {
            out.insert(c["index"].dump() + m["values"].dump() + m["ok"].dump());
        }
    }
    return out;
}

std::set<int> measuringRanks(const json& r) {
    std::set<int> out;
    for (const auto& c : r["candidates"]) {
        for (const auto& m : c["measurements"]) {
            out.insert(m["rank"].get<int>());
        }
    }
    return out;
}

bool anyNote(const json& r, const std::string& part) {
    for (const auto& n : r["notes"]) {
        if (n.get<std::string>().find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE(
    "mpirun -np 2: both ranks measure and the candidates and verdicts are those of one process",
    "[.mpi]") {
    TempDir one, two;
    REQUIRE(run(std::string(EGOPT_CLI) + " " + asumArgs(one.path)) == 0);
    std::filesystem::path records = two.path / "records.jsonl";
    REQUIRE(run(mpirun(2, "") + asumArgs(two.path) + " --record " + records.string()) == 0);
    json a = report(one.path), b = report(two.path);
    CHECK(a["ranks"].empty());
    REQUIRE(b["ranks"].size() == 2);
    CHECK(b["ranks"][0]["role"] == "coordinator");
    CHECK(b["ranks"][1]["role"] == "worker");
    CHECK_FALSE(b["ranks"][1].contains("lost"));
    CHECK(b["ranks"][1]["jobs"].get<int>() > 0);
    CHECK(measuringRanks(b) == std::set<int>{0, 1});
    CHECK(b["devices"].back()["rank"] == 1);
    // The same candidates, configurations and verdicts; the times differ as they do between
    // two runs of one process.
    REQUIRE(a["candidates"].size() == b["candidates"].size());
    for (size_t i = 0; i < a["candidates"].size(); ++i) {
        CHECK(a["candidates"][i]["expression"] == b["candidates"][i]["expression"]);
        CHECK(a["candidates"][i]["status"] == b["candidates"][i]["status"]);
    }
    CHECK(configs(a) == configs(b));
    // --record: rank 0 writes one record per successful measurement, whichever rank made it.
    size_t ok = 0, lines = 0;
    for (const auto& c : b["candidates"]) {
        for (const auto& m : c["measurements"]) {
            ok += m["ok"].get<bool>();
        }
    }
    std::ifstream in(records);
    for (std::string line; std::getline(in, line);) {
        lines += !line.empty();
    }
    CHECK(lines == ok);
    REQUIRE(!b["chosen"].is_null());
    CHECK(a["candidates"][b["chosen"]["index"].get<size_t>()]["valid"] == true);
}

TEST_CASE("mpirun: a worker killed holding a job: its job is reassigned and the report says so",
          "[.mpi]") {
    TempDir dir;
    // Open MPI ends the whole job when a rank dies unless recovery is on; the coordinator then
    // finds the worker silent past EGOPT_MPI_SILENCE_SECONDS.
    std::string env = "--enable-recovery -x EGOPT_TEST_WORKER_EXIT_AFTER=0 "
                      "-x EGOPT_MPI_SILENCE_SECONDS=2";
    run(mpirun(2, env) + asumArgs(dir.path)); // mpirun says 0 under --enable-recovery
    json r = report(dir.path);
    REQUIRE(r["ranks"].size() == 2);
    REQUIRE(r["ranks"][1].contains("lost"));
    CHECK(r["ranks"][1]["lost"].get<std::string>().find("no message") != std::string::npos);
    CHECK(r["ranks"][1]["jobs"] == 0);
    CHECK(anyNote(r, "reassigned"));
    CHECK(measuringRanks(r) == std::set<int>{0});
    REQUIRE(!r["chosen"].is_null());
}

TEST_CASE("mpirun: a worker whose job hangs is given up at the job's time-out", "[.mpi]") {
    TempDir dir;
    std::string env = "-x EGOPT_TEST_WORKER_HANG_AFTER=0 -x EGOPT_MPI_JOB_SECONDS=3";
    CHECK(run(mpirun(2, env) + asumArgs(dir.path)) == 0);
    json r = report(dir.path);
    REQUIRE(r["ranks"].size() == 2);
    REQUIRE(r["ranks"][1].contains("lost"));
    CHECK(r["ranks"][1]["lost"].get<std::string>().find("time-out") != std::string::npos);
    CHECK(anyNote(r, "reassigned"));
    REQUIRE(!r["chosen"].is_null());
}

TEST_CASE("mpirun: a worker whose device is another model is bad input (exit 2)", "[.mpi]") {
    TempDir dir;
    // PoCL's pthread device on rank 0 and its basic device on rank 1: their timings do not
    // compare. Checked before saturation.
    std::string args = asumArgs(dir.path);
    std::string command = std::string(EGOPT_MPIEXEC) +
                          " --oversubscribe --allow-run-as-root -np 1 -x POCL_DEVICES=pthread " +
                          EGOPT_CLI + " " + args + " : -np 1 -x POCL_DEVICES=basic " + EGOPT_CLI +
                          " " + args;
    CHECK(run(command) == 2);
    CHECK_FALSE(std::filesystem::exists(dir.path / "asum.report.json"));
}
