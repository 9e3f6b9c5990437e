// Low-noise timings for the cost-model report: a hidden test case (not run by ctest, never a
// timed test) that acts as the tool described in docs/cost-models.md ("Calibration and
// evidence").
//
//   EGOPT_RETIME_FILES=tests/costmodel/data/mm EGOPT_RETIME_SIZES="M=256,N=256,K=256;..."
//   EGOPT_RETIME_ROUNDS=7 EGOPT_CALIB_OUT=out.jsonl test_costmodel "[.retime]"
//   (all variables on one command line)
//
// On a shared machine the run time of one kernel varies by a factor of 2 to 3 between moments
// (other processes take the cores), so one median of a few runs says little about the kernel.
// Here every program is timed once per round (1 warm-up, 3 runs, their median) and the rounds
// interleave the programs, so a busy moment slows one round of every program rather than every
// run of one program; the record keeps the fastest round (the least disturbed one). Outputs are
// not validated (the interpreter is far too slow at these sizes): the programs are the validated
// mm variants and the pipeline's validated candidates.
#include "egopt/codegen/validate.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/runtime/session.hpp"
#include "support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> splitOn(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, sep);) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

// Files and directories (their .lift files, sorted), relative to the source directory unless
// absolute.
std::vector<fs::path> programFiles(const std::string& list) {
    std::vector<fs::path> out;
    for (const auto& item : splitOn(list, ':')) {
        fs::path p = fs::path(item).is_absolute() ? fs::path(item) : fs::path(sourceDir()) / item;
        if (fs::is_directory(p)) {
            std::vector<fs::path> files;
            for (const auto& e : fs::directory_iterator(p)) {
                if (e.path().extension() == ".lift") {
                    files.push_back(e.path());
                }
            }
            std::sort(files.begin(), files.end());
            out.insert(out.end(), files.begin(), files.end());
        } else {
            out.push_back(p);
        }
    }
    return out;
}

arith::Bindings parseSizes(const std::string& text) {
    arith::Bindings b;
    for (const auto& kv : splitOn(text, ',')) {
        auto eq = kv.find('=');
        REQUIRE(eq != std::string::npos);
        b[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    }
    return b;
}

struct Item {
    fs::path file;
    lift::Program program;
    arith::Bindings sizes;
    codegen::GeneratedCode code;
    std::vector<double> rounds; // seconds, one per round
    std::vector<double> cpu;    // worker CPU seconds per run (warm-up included), per round
};

// The companion .json's first input combination (sizes in the program's order).
arith::Bindings companionSizes(const lift::Program& p, const fs::path& file) {
    fs::path companion = fs::path(file).replace_extension(".json");
    auto j = nlohmann::json::parse(std::ifstream(companion), nullptr, false);
    REQUIRE((j.is_object() && j.contains("input_combinations")));
    auto values = j["input_combinations"][0].get<std::vector<int64_t>>();
    arith::Bindings b;
    for (size_t i = 0; i < p.sizeVars.size() && i < values.size(); ++i) {
        b[p.sizeVars[i]] = values[i];
    }
    return b;
}

std::string showSizes(const arith::Bindings& s) {
    std::string out;
    for (const auto& [k, v] : s) {
        out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
    }
    return out;
}

// CPU seconds run by the process's threads other than the calling one (the OpenCL runtime's
// workers), from /proc/self/task/*/schedstat (nanoseconds on a CPU): the work a kernel did,
// however long other processes kept it waiting. The host thread is left out (it may spin while
// waiting for the kernel, and makes the inputs).
double workerCpuSeconds() {
    double sum = 0;
    std::string self = std::to_string(gettid());
    for (const auto& e : fs::directory_iterator("/proc/self/task")) {
        if (e.path().filename() == self) {
            continue;
        }
        std::ifstream in(e.path() / "schedstat");
        double ns = 0;
        if (in >> ns) {
            sum += ns * 1e-9;
        }
    }
    return sum;
}

} // namespace

TEST_CASE("retime programs in interleaved rounds and record the fastest round", "[.retime]") {
    std::string out = envOr("EGOPT_CALIB_OUT", "retime.jsonl");
    auto files = programFiles(envOr("EGOPT_RETIME_FILES", "tests/costmodel/data/mm"));
    int rounds = std::stoi(envOr("EGOPT_RETIME_ROUNDS", "7"));
    std::string labelPrefix = envOr("EGOPT_RETIME_LABEL", "mm/");
    // "M=256,N=256,K=256;M=512,..." or "companion" (each program's companion .json sizes).
    std::string sizeList = envOr("EGOPT_RETIME_SIZES", "M=256,N=256,K=256");
    auto model = loadModel(envOr("EGOPT_CALIB_MODEL_IN", "analytic"));
    runtime::Session session(runtime::selectDevice(envOr("EGOPT_CALIB_DEVICE", "")));
    DeviceProfile prof = model->profile(session.device());
    std::vector<Item> items;
    for (const auto& f : files) {
        try {
            lift::Program p = lift::parseFile(f.string());
            lift::TypeInfo info = lift::typecheck(p);
            std::vector<arith::Bindings> sizes;
            if (sizeList == "companion") {
                sizes.push_back(companionSizes(p, f));
            } else {
                for (const auto& text : splitOn(sizeList, ';')) {
                    sizes.push_back(parseSizes(text));
                }
            }
            for (const auto& b : sizes) { // a Program is not copied: parsed once per size
                lift::Program q = lift::parseFile(f.string());
                codegen::GeneratedCode code = codegen::generate(q, lift::typecheck(q), b);
                items.push_back({f, std::move(q), b, std::move(code), {}, {}});
            }
        } catch (const std::exception& e) {
            std::cout << f.string() << ": skipped: " << e.what() << "\n";
        }
    }
    codegen::RunOptions opt;
    opt.warmup = 1;
    opt.runs = std::stoi(envOr("EGOPT_RETIME_RUNS", "3"));
    for (int r = 0; r < rounds; ++r) {
        for (auto& it : items) {
            double c0 = workerCpuSeconds();
            auto t = codegen::runTimed(session, it.program, it.sizes, it.code, opt);
            it.cpu.push_back((workerCpuSeconds() - c0) / (opt.warmup + opt.runs));
            it.rounds.push_back(static_cast<double>(t.medianNs) * 1e-9);
        }
    }
    for (auto& it : items) {
        std::vector<double> s = it.rounds, c = it.cpu;
        std::sort(s.begin(), s.end());
        std::sort(c.begin(), c.end());
        Record rec;
        rec.device = prof.name;
        rec.deviceClass = prof.deviceClass;
        rec.sizes = it.sizes;
        rec.program = fs::relative(it.file, sourceDir()).string();
        rec.label = labelPrefix + it.file.stem().string();
        rec.features = computeFeatures(it.code, it.sizes, prof);
        rec.predicted = model->predictSeconds(rec.features, prof);
        rec.measuredSeconds = s.front();
        appendRecord(out, rec);
        std::cout << rec.label << " " << showSizes(it.sizes) << " fastest " << s.front() * 1e3
                  << " ms, median " << s[s.size() / 2] * 1e3 << " ms, slowest " << s.back() * 1e3
                  << " ms, worker cpu " << c.front() * 1e3 << ".." << c[c.size() / 2] * 1e3
                  << " ms, predicted " << rec.predicted * 1e3 << " ms\n";
    }
}
