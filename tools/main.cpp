// egopt: the command-line entry point. Dispatches to a subcommand and maps errors to exit codes
// (2 bad input, 3 internal error).
#include "cli.hpp"
#include "egopt/rules/soundness.hpp"
#include "egopt/runtime/compiler_pool.hpp"
#include "egopt/support/diagnostic.hpp"
#include "egopt_version.hpp"
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

using egopt::cli::Command;
using egopt::cli::OptionSpec;

namespace {

const OptionSpec kSizeOption{"size", true, "bind a size variable, e.g. N=4096 (repeatable)"};
const OptionSpec kHelpOption{"help", false, "show this help"};

std::vector<OptionSpec> concat(const std::vector<std::vector<OptionSpec>>& groups) {
    std::vector<OptionSpec> out;
    for (const auto& g : groups) {
        out.insert(out.end(), g.begin(), g.end());
    }
    return out;
}

// A shared group listed among a command's main options (saturate and prove are about them).
std::vector<OptionSpec> unsectioned(std::vector<OptionSpec> specs) {
    for (auto& s : specs) {
        s.section.clear();
    }
    return specs;
}

std::vector<Command> commands() {
    const egopt::rules::SoundnessOptions soundness; // the defaults the help text quotes
    return {
        {"check",
         "parse and type-check a program; print its type",
         "check FILE [--size N=v ...]",
         "Parse and type-check a .lift program; print its type (concrete too when sizes are "
         "given).",
         {kSizeOption, kHelpOption},
         1,
         1,
         egopt::cli::runCheck},
        {"interp",
         "run the reference interpreter; print the result as JSON",
         "interp FILE [--size N=v ...] [--inputs in.json] [--seed S]",
         "Run the reference interpreter; print the result as JSON (tuples as arrays). Inputs are "
         "keyed by parameter name; missing ones are random but reproducible from the seed.",
         {kSizeOption,
          {"inputs", true, "JSON file with inputs keyed by parameter name"},
          {"seed", true, "seed for random inputs (default 1)"},
          kHelpOption},
         1,
         1,
         egopt::cli::runInterp},
        {"codegen",
         "generate the OpenCL kernel(s) and launch plan of a lowered program",
         "codegen FILE [--size N=v ...] [-o|--output out.cl] [--kernel-name NAME]",
         "Generate the OpenCL kernel(s) of a lowered program (several where the top level needs "
         "global synchronisation). With --output, write the .cl and the host plan (kernels, "
         "launch configurations, buffers) as JSON beside it (out.json); otherwise print both. "
         "Sizes without a value stay symbolic: kernels take them as int arguments.",
         {kSizeOption,
          {"output", true, "write the kernels to this .cl file (plan JSON beside it); also -o"},
          {"kernel-name", true, "name of the generated kernel (default KERNEL)"},
          kHelpOption},
         1,
         1,
         egopt::cli::runCodegen},
        {"run",
         "generate, build, run and validate a lowered program on a device; time it",
         "run FILE [--size N=v ...] [--device D] [--seed S] [--runs R]",
         "Generate, build and run the kernel(s) on random inputs, compare with the interpreter "
         "(relative 1e-3), print OK/FAIL, the largest error, the median time (total and per "
         "kernel) and GB/s. "
         "Exit 0 on OK, 4 on FAIL.",
         {kSizeOption,
          {"device", true, "device index or name substring (default: PoCL)"},
          {"seed", true, "seed for random inputs (default 1)"},
          {"runs", true, "timed runs after one warm-up (default 5)"},
          kHelpOption},
         1,
         1,
         egopt::cli::runRun},
        {"saturate",
         "equality saturation with rule files; e-graph sizes, stop reason, rule statistics",
         "saturate FILE [--rules a.rules,b.rules ...] [limits] [--threads N] [--stats] "
         "[--memory] [--shift-duplicates] [--dump-egraph out.json|out.dot]",
         "Equality saturation in rule phases, as the pipeline runs it (default: the pipeline's "
         "phases): e-graph size per iteration, stop reason, per-rule statistics.",
         concat({unsectioned(egopt::cli::saturationOptionSpecs()),
                 {{"stats", false, "per-rule statistics"},
                  {"memory", false,
                   "saturation seconds, the e-graph's bytes by part and the peak RSS"},
                  {"shift-duplicates", false,
                   "count the e-classes that are another one shifted under other binders"},
                  {"dump-egraph", true, "write the e-graph as .json (egraph-serialize) or .dot"},
                  kHelpOption}}),
         1, 1, egopt::cli::runSaturate},
        {"prove", "are two programs equal under the rules? print the derivation",
         "prove FILE_A FILE_B [--rules a.rules,b.rules ...] [limits] [--threads N]",
         "Insert A and B, saturate in rule phases until their roots are equal (or a limit stops "
         "it), say whether they are equal and print the derivation (rules and intermediate "
         "terms). Exit 4 if not proven.",
         concat({unsectioned(egopt::cli::saturationOptionSpecs()), {kHelpOption}}), 2, 2,
         egopt::cli::runProve},
        {"rules",
         "rules check|derive: soundness of rule files; derivations of composite rules",
         "rules check FILE... [--instances N] [--seed S] [--rule NAME] [--attempts N] "
         "[--allow-unchecked] [--show-instances N] | rules derive FILE... [--catalogue F,...] "
         "[--rule NAME] [--seed S] [--time-limit S] [--show-clause]",
         "check: soundness of rules by random testing: random well-typed instances of each "
         "rule's left-hand side, rewritten by the engine, interpreted before and after. Prints "
         "PASS, FAIL with a full counterexample, or UNCHECKED per rule. Exit 1 if a rule failed "
         "or could not be checked. derive: every composite rule of the files (a stated "
         "composition `by ...`, or more than 12 operators on a side) is proved from the "
         "primitive catalogue (the non-composite rules of --catalogue, default every .rules file "
         "beside the first FILE) on an instance; prints DERIVED with the rules in order, or NOT "
         "DERIVED with how far the search got. Exit 1 unless all derive.",
         {{"instances", true,
           "instances that must agree per rule (default " + std::to_string(soundness.instances) +
               ")"},
          {"seed", true,
           "seed of the random instances and inputs (default " + std::to_string(soundness.seed) +
               ")"},
          {"rule", true, "check only the rule of this name (derive: names separated by commas)"},
          {"attempts", true,
           "random instantiations tried per rule at most (default " +
               std::to_string(soundness.attempts) + ")"},
          {"allow-unchecked", false, "do not fail for rules without enough instances"},
          {"show-instances", true, "print the first N checked instances of each rule"},
          {"catalogue", true,
           "derive: comma-separated rule files whose primitive rules may be used"},
          {"time-limit", true, "derive: saturation seconds per search stage (default 5)"},
          {"node-limit", true, "derive: e-nodes per search stage (default 60000)"},
          {"show-clause", false,
           "derive: after a rule's stated steps, print the right-hand side's term with the "
           "fewest OpenCL-specific operators, tuples and written-out fold steps, and the "
           "e-nodes each step added"},
          kHelpOption},
         2,
         SIZE_MAX,
         egopt::cli::runRules},
        {"fit",
         "fit the learned cost model to recorded measurements",
         "fit DATA.jsonl... -o MODEL.json [--ridge R] [--features a,b,...]",
         "Fit the learned cost model (log-linear in the features, ridge regression) to records "
         "written by --record; print the weights and Kendall's tau between predicted and "
         "measured times. docs/cost-models.md lists the features.",
         {{"output", true, "the model file to write; also -o"},
          {"ridge", true, "L2 penalty on standardised features (default 0.001)"},
          {"features", true, "comma-separated feature names (default: all)"},
          kHelpOption},
         1,
         SIZE_MAX,
         egopt::cli::runFit},
        {"rank",
         "re-predict recorded runs with a cost model: Kendall's tau per run",
         "rank DATA.jsonl... [--cost-model M] [--compute-units N] [--clock-mhz F]",
         "Re-predict the records written by --record with a cost model and print, for each run "
         "(consecutive records of one program and sizes), Kendall's tau-b between predicted and "
         "measured times over its candidates (each at its fastest measured configuration, as "
         "the report counts them) and the measured time of the predicted-best candidate over "
         "the measured best, for the recorded predictions and the model's. "
         "docs/cost-models.md.",
         {{"cost-model", true, "analytic (default), learned, or a model file"},
          {"compute-units", true, "the device's compute units (records do not hold them)"},
          {"clock-mhz", true, "the device's clock in MHz (records do not hold it)"},
          kHelpOption},
         1,
         SIZE_MAX,
         egopt::cli::runRank},
        {"optimize",
         "the whole pipeline (also `egopt PROGRAM`): the fastest valid kernel and a report",
         "optimize FILE [--size N=v ...] [--device D] [--devices all|D,D...] [--rules a,b ...] "
         "[--time-budget S] [--candidates K] [--cost-model M] [--output-dir DIR] [options]",
         "The whole pipeline (also `egopt FILE.lift`): saturate in rule phases, extract the K best "
         "candidates, predict with the cost model, tune their numeric parameters by measured "
         "runs, validate against the interpreter and time them; write FILE.cl and "
         "FILE.report.json and print the candidates. Ctrl-C keeps the best so far. Exit 4 when "
         "no candidate is valid.",
         concat({{kSizeOption,
                  {"device", true, "device index or name substring (default: PoCL)"},
                  {"devices", true,
                   "several devices of one model: all, or indices/name substrings separated by "
                   "commas; runs are spread over them (--device: the reference device)"},
                  {"compile-workers", true,
                   "processes that compile the tuner's OpenCL programs in parallel (default: "
                   "on a GPU, half the cores up to 8; 0: none)"},
                  {"time-budget", true,
                   "seconds for the whole run, device runs included; the best candidate "
                   "confirmed by then is written (default 540; 0: unlimited)"},
                  {"candidates", true, "candidates to extract and confirm (default 16)"},
                  {"cost-model", true, "analytic, learned or a model file (default analytic)"},
                  {"output-dir", true,
                   "where FILE.cl and FILE.report.json go (default: beside "
                   "FILE)"},
                  {"record", true, "append one record per measured configuration to this file"},
                  {"seed", true, "seed for random inputs (default 1)"},
                  {"verbose", false, "print every step's progress line, not one per stage"},
                  {"explain", false, "print the derivation of the chosen candidate"},
                  kHelpOption},
                 egopt::cli::saturationOptionSpecs(),
                 {{"assume-divisor-cap", true,
                   "largest power of two saturation may assume divides a size variable, from "
                   "the sizes used (default 128; 1: assume nothing)",
                   "saturation"},
                  {"no-derivation", false, "do not record explanations (saves e-graph memory)",
                   "saturation"}},
                 egopt::cli::searchOptionSpecs(),
                 egopt::cli::tuneOptionSpecs()}),
         1, 1, egopt::cli::runOptimize},
        {"devices",
         "list the OpenCL platforms and devices",
         "devices [--help]",
         "List the OpenCL platforms and devices; the index or a name substring selects one with "
         "--device.",
         {kHelpOption},
         0,
         0,
         egopt::cli::runDevices},
    };
}

std::string mainHelp(const std::vector<Command>& table) {
    std::string out = "egopt: an equality-saturation optimizing compiler for Lift programs\n\n"
                      "usage: egopt PROGRAM [--size N=v ...] [options]   the whole pipeline "
                      "(optimize)\n"
                      "       egopt COMMAND [args]   (egopt COMMAND --help: its options)\n"
                      "       egopt --version\n\ncommands:\n";
    for (const auto& c : table) {
        std::string left = "  " + c.name;
        left.resize(12, ' ');
        out += left + c.brief + "\n";
    }
    out += "\nPROGRAM is a .lift file, or any existing file whose name is not a command.\n"
           "exit codes: 0 success, 2 bad input, 3 internal or device error, 4 no valid "
           "candidate\n";
    return out;
}

std::string versionText() {
    std::string out = "egopt " + std::string(egopt::cli::kVersion);
    if (!std::string_view(egopt::cli::kGitCommit).empty()) {
        out += " (git " + std::string(egopt::cli::kGitCommit) + ")";
    }
    return out + "\n";
}

// A first argument that is no command names a program for the whole pipeline: any `.lift` path
// (a missing one is reported by the front end with its name), or any existing regular file, so
// that programs kept under other extensions need no renaming.
bool namesProgram(const std::string& arg) {
    if (arg.size() > 5 && arg.ends_with(".lift")) {
        return true;
    }
    std::error_code ec;
    return !arg.starts_with("-") && std::filesystem::is_regular_file(arg, ec);
}

std::string readSourceFor(const egopt::Error& e) {
    if (e.file().empty() || !e.loc().known()) {
        return {};
    }
    std::ifstream in(e.file(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// `egopt compile-worker --device INDEX --fd N`: one of the processes of a
// runtime::CompilerPool, serving build requests on descriptor N.
int compileWorker(const std::vector<std::string>& argv) {
    if (argv.size() != 5 || argv[1] != "--device" || argv[3] != "--fd" || argv[4].empty() ||
        !std::all_of(argv[4].begin(), argv[4].end(), [](char c) { return std::isdigit(c); })) {
        egopt::badInput("usage: egopt compile-worker --device INDEX --fd N (started by egopt "
                        "itself to compile OpenCL programs in parallel)");
    }
    return egopt::runtime::runCompileWorker(argv[2], std::stoi(argv[4]));
}

int dispatch(const std::vector<std::string>& argv) {
    auto table = commands();
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
        std::cout << mainHelp(table);
        return argv.empty() ? egopt::kExitBadInput : egopt::kExitOk;
    }
    if (argv[0] == "--version" || argv[0] == "-V") {
        std::cout << versionText();
        return egopt::kExitOk;
    }
    if (argv[0] == "compile-worker") {
        return compileWorker(argv); // started by the pipeline, not listed among the commands
    }
    const Command* command = nullptr;
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    for (const auto& c : table) {
        if (c.name == argv[0]) {
            command = &c;
        }
    }
    if (!command) {
        if (namesProgram(argv[0])) {
            for (const auto& c : table) {
                if (c.name == "optimize") {
                    command = &c; // the default action: the whole pipeline
                }
            }
            rest = argv;
        } else {
            egopt::badInput("unknown command '" + argv[0] +
                            "' and no such program file (see egopt --help)");
        }
    }
    for (size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == "--help" || rest[i] == "-h") {
            bool topic = i + 1 < rest.size() && egopt::cli::isHelpTopic(*command, rest[i + 1]);
            std::cout << egopt::cli::commandHelp(*command, topic ? rest[i + 1] : "");
            return egopt::kExitOk;
        }
    }
    return command->run(egopt::cli::parseArgs(*command, rest));
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        return dispatch(args);
    } catch (const egopt::Error& e) {
        std::cerr << egopt::formatDiagnostic(e, readSourceFor(e)) << "\n";
        return e.kind() == egopt::ErrorKind::BadInput ? egopt::kExitBadInput : egopt::kExitInternal;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory\n";
        return egopt::kExitInternal;
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return egopt::kExitInternal;
    }
}
