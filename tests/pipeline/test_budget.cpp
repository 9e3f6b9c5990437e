// The time budget as a deadline (docs/pipeline.md, "Time budget"): the stage shares, the
// per-stage clock, a whole run on PoCL whose naive candidates are slow ending within the budget
// with a valid kernel, and the report's and the command line's per-stage breakdown.
#include "egopt/pipeline/budget.hpp"
#include "egopt/pipeline/report.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sys/wait.h>
#include <thread>

using namespace egopt;
using namespace egopt::pipeline;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {} // namespace

TEST_CASE("stage shares grow to the whole budget and leave a reserve for the outputs",
          "[pipeline]") {
    double previous = 0;
    for (Stage s : {Stage::Saturate, Stage::Extract, Stage::Explore, Stage::Tune, Stage::Validate,
                    Stage::Output}) {
        INFO(stageName(s));
        CHECK(Budget::shareEnd(s) > previous);
        previous = Budget::shareEnd(s);
    }
    CHECK(Budget::shareEnd(Stage::Output) == 1.0);
    CHECK(Budget::shareEnd(Stage::Validate) < 1.0);

    Budget ten(10, Clock::now() - std::chrono::seconds(3));
    CHECK(ten.limited());
    CHECK(ten.left() == Approx(7).margin(0.1));
    CHECK(ten.leftUntil(Stage::Saturate) < 0); // 3 s in: saturation's 2 s are past
    CHECK(ten.leftUntil(Stage::Tune) == Approx(10 * Budget::shareEnd(Stage::Tune) - 3).margin(0.1));
    Budget unlimited(0);
    CHECK(!unlimited.limited());
    CHECK(unlimited.left() > 1e20);
}

TEST_CASE("the stage clock counts each stage's wall time once", "[pipeline]") {
    auto start = Clock::now();
    StageClock clock(Stage::Load, start);
    {
        auto tune = clock.enter(Stage::Tune);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        {
            auto validate = clock.enter(Stage::Validate); // nested: tuning pauses
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        CHECK(clock.current() == Stage::Tune);
        clock.move(Stage::Tune, Stage::Explore, 0.01);
    }
    CHECK(clock.current() == Stage::Load);
    auto s = clock.seconds();
    double total = std::accumulate(s.begin(), s.end(), 0.0);
    CHECK(total == Approx(egopt::secondsSince(start)).margin(0.005));
    CHECK(s[size_t(Stage::Validate)] >= 0.03);
    CHECK(s[size_t(Stage::Tune)] >= 0.02 - 1e-9);
    CHECK(s[size_t(Stage::Tune)] < 0.03 + 0.02); // the nested validation is not counted twice
    CHECK(s[size_t(Stage::Explore)] == Approx(0.01));
}

// The deadline check: mm at 256^3 takes about a minute without a budget (extraction's search,
// then naive candidates at tens of ms a run on PoCL); with 15 s it must end by 15 s + 5 % and
// still have confirmed a kernel. Wall time covers the whole library call and the outputs.
// The sanitizer run (scripts/test --sanitize sets EGOPT_NO_WALL_TIME_CHECKS) slows the steps a
// deadline cannot interrupt (extraction's first pass, one interpreter run of mm) 10 to 20 fold,
// past any small budget on their own: there the test runs the deadline's paths for memory and
// undefined-behaviour errors and checks the report, not the wall time.
TEST_CASE("a small time budget ends mm 256^3 within budget + 5% with a valid kernel",
          "[pipeline][budget]") {
    constexpr double kBudget = 15;
    const bool wallChecks = std::getenv("EGOPT_NO_WALL_TIME_CHECKS") == nullptr;
    Options o;
    o.file = egopt::testenv::examplePath("mm");
    o.sizes = {{"M", 256}, {"N", 256}, {"K", 256}};
    o.timeBudget = kBudget;
    fs::path dir = fs::temp_directory_path() / "egopt-pipeline-budget";
    fs::remove_all(dir);
    auto start = Clock::now();
    Result r = run(o);
    OutputPaths paths = writeOutputs(r, dir.string());
    double wall = egopt::secondsSince(start);
    INFO(candidateTable(r) << stageBreakdown(r));
    nlohmann::json j = nlohmann::json::parse(reportJson(r));
    CHECK(j["time_budget"] == kBudget);
    CHECK(fs::exists(paths.report));
    if (wallChecks) {
        CHECK(wall <= kBudget * 1.05);
        REQUIRE(r.best);
    }
    if (r.best) {
        CHECK(r.candidates[*r.best].status == CandidateResult::Status::Valid);
        CHECK(fs::exists(paths.kernel));
        CHECK(j["chosen"]["index"] == *r.best);
    }
    fs::remove_all(dir);
}

TEST_CASE("the report breaks the run's time down by stage", "[pipeline]") {
    Options o;
    o.file = egopt::testenv::examplePath("scal");
    o.sizes = {{"N", 1024}};
    o.search.candidates = 3;
    o.tune.budget = 4;
    o.tune.runs = 2;
    o.timeBudget = 120;
    std::vector<StageEvent> events;
    o.stageDone = [&](const StageEvent& e) { events.push_back(e); };
    Result r = run(o);
    REQUIRE(r.best);
    nlohmann::json stages = nlohmann::json::parse(reportJson(r))["stages"];
    double sum = 0;
    for (const char* key :
         {"load", "saturate", "extract", "explore", "tune", "validate", "time", "output"}) {
        INFO(key);
        REQUIRE(stages.contains(key));
        CHECK(stages[key].get<double>() >= 0);
        sum += stages[key].get<double>();
    }
    // The stages cover the whole run: nothing is counted twice or left out.
    CHECK(sum == Approx(stages["total"].get<double>()).margin(0.01));
    for (const char* key : {"saturate", "extract", "tune", "validate"}) {
        INFO(key);
        CHECK(stages[key].get<double>() > 0);
    }
    // One progress event per stage, in order, with the budget left.
    std::vector<std::string> names;
    for (const auto& e : events) {
        names.push_back(e.stage);
        CHECK(e.limited);
        CHECK(e.left == Approx(120 - e.elapsed).margin(0.5));
    }
    CHECK(names ==
          std::vector<std::string>{"load", "saturate", "extract", "explore", "tune", "confirm"});
    std::string line = stageBreakdown(r);
    CHECK(line.rfind("time: load ", 0) == 0);
    CHECK(line.find("of a 120 s budget") != std::string::npos);
}

TEST_CASE("egopt prints one line per stage on stderr and the breakdown at the end", "[pipeline]") {
    fs::path dir = fs::temp_directory_path() / "egopt-pipeline-stages";
    std::string cmd = std::string(EGOPT_CLI) + " " + egopt::testenv::examplePath("scal") +
                      " --size N=512 --candidates 2 --tune.budget 2 --tune.runs 1 --time-budget 60 "
                      "--output-dir " +
                      dir.string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) {
        out.append(buf, n);
    }
    int status = pclose(p);
    INFO(out);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    // Not a terminal: stage lines only, no per-step lines and no terminal control codes.
    CHECK(out.find("[egopt] saturate") != std::string::npos);
    CHECK(out.find("s left)") != std::string::npos);
    CHECK(out.find("tune: candidate") == std::string::npos);
    CHECK(out.find('\r') == std::string::npos);
    CHECK(out.find("time: load ") != std::string::npos);
    fs::remove_all(dir);
}
