// `egopt PROGRAM.lift [options]`: the whole pipeline (docs/pipeline.md) — saturation in rule
// phases, extraction, tuning and confirmation on a device — writing PROGRAM.cl and
// PROGRAM.report.json and printing the table of candidates. Exit 4 when no candidate validates.
#include "cli.hpp"
#include "egopt/distribute/session.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/pipeline/report.hpp"
#include "options.hpp"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace egopt::cli {

namespace {

// The one piece of process-wide mutable state: the flag the SIGINT handler sets. A signal
// handler can only reach static storage, and setting a lock-free atomic is async-signal-safe.
// The handler is installed with SA_RESETHAND, so a second Ctrl-C ends the process at once.
constinit pipeline::StopToken interruptToken;

extern "C" void onInterrupt(int) {
    interruptToken.request();
}

void installInterruptHandler() {
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, nullptr);
}

// Progress on stderr: one line per stage (elapsed, budget left, a summary). On a terminal the
// current step shows on a status line that the next one overwrites; elsewhere (a log file, a
// pipe) only the stage lines are written, as plain lines. --verbose writes every step's line.
class ProgressDisplay {
public:
    ProgressDisplay(bool terminal, bool verbose) : terminal_(terminal), verbose_(verbose) {}

    void step(std::string_view line) {
        if (verbose_) {
            std::cerr << "[egopt] " << line << std::endl;
        } else if (terminal_) {
            constexpr size_t kWidth = 100; // short enough not to wrap on common terminals
            std::string shown(line.substr(0, kWidth));
            std::cerr << "\r\033[K[egopt] " << shown << std::flush;
            status_ = true;
        }
    }

    void stage(const pipeline::StageEvent& e) {
        clearStatus();
        char head[160];
        if (e.limited) {
            std::snprintf(head, sizeof head, "[egopt] %-8s %7.2f s  (elapsed %.1f s, %.1f s left)",
                          e.stage.c_str(), e.seconds, e.elapsed, std::max(0.0, e.left));
        } else {
            std::snprintf(head, sizeof head, "[egopt] %-8s %7.2f s  (elapsed %.1f s)",
                          e.stage.c_str(), e.seconds, e.elapsed);
        }
        std::cerr << head << "  " << e.summary << std::endl;
    }

    void clearStatus() {
        if (status_) {
            std::cerr << "\r\033[K" << std::flush;
            status_ = false;
        }
    }

private:
    bool terminal_, verbose_;
    bool status_ = false; // a status line is showing
};

pipeline::Options optionsFrom(const Args& args, ProgressDisplay& display) {
    pipeline::Options o;
    o.file = args.positional.at(0);
    for (const auto& s : args.values("size")) {
        lift::parseSizeAssignments(s, o.sizes);
    }
    o.device = args.value("device").value_or("");
    o.devices = args.value("devices").value_or("");
    if (args.has("compile-workers")) {
        o.compileWorkers = static_cast<size_t>(nonNegativeNumber(args, "compile-workers", 0));
    }
    // The workers are this executable, started as `egopt compile-worker`.
    std::error_code ec;
    o.workerExecutable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    o.saturation = saturationFrom(args);
    o.assumeDivisorCap = static_cast<int64_t>(nonNegativeNumber(args, "assume-divisor-cap", 128));
    o.costModel = args.value("cost-model").value_or("analytic");
    o.search = searchFrom(args);
    o.tune = tuneFrom(args);
    o.seed = static_cast<uint64_t>(nonNegativeNumber(args, "seed", 1));
    o.timeBudget = nonNegativeNumber(args, "time-budget", o.timeBudget);
    o.explain = !args.has("no-derivation");
    o.recordPath = args.value("record").value_or("");
    o.stop = &interruptToken;
    o.progress = [&display](std::string_view line) { display.step(line); };
    o.stageDone = [&display](const pipeline::StageEvent& e) { display.stage(e); };
    return o;
}

} // namespace

int runOptimize(const Args& args) {
    ProgressDisplay display(::isatty(STDERR_FILENO) != 0, args.has("verbose"));
    pipeline::Options options = optionsFrom(args, display);
    // Under mpirun (docs/distributed.md): rank 0 runs the pipeline, the others its device jobs.
    distribute::Session mpi;
    mpi.shareDevices(options);
    if (mpi.rank() > 0) {
        return mpi.serve(options);
    }
    options.remote = mpi.remote();
    installInterruptHandler();
    pipeline::Result result = pipeline::run(options);
    display.clearStatus();
    pipeline::OutputPaths paths =
        pipeline::writeOutputs(result, args.value("output-dir").value_or(""));
    std::cout << pipeline::candidateTable(result) << pipeline::stageBreakdown(result);
    if (args.has("explain") && result.best) {
        std::cout << "derivation:\n";
        for (const auto& step : result.derivation) {
            std::cout << "  " << step << "\n";
        }
    }
    if (result.interrupted) {
        std::cout << "interrupted: kept the best candidate confirmed so far\n";
    }
    std::cout << "report: " << paths.report << "\n";
    if (!result.best) {
        std::cerr << "error: no valid candidate";
        std::cerr << (result.candidates.empty() ? " (extraction found no candidate the code "
                                                  "generator accepts; see the report's "
                                                  "\"extraction\".\"rejected\")\n"
                                                : ":\n");
        for (const auto& c : result.candidates) {
            std::cerr << "  candidate " << c.index << ": " << pipeline::statusName(c.status) << ": "
                      << c.reason << "\n";
        }
        mpi.exitCode(kExitNoCandidate);
        return kExitNoCandidate;
    }
    std::cout << "kernel: " << paths.kernel << "\n";
    mpi.exitCode(kExitOk);
    return kExitOk;
}

} // namespace egopt::cli
