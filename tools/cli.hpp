// The egopt command line: argument parsing and the subcommand table. Each subcommand is a thin
// function over the library (parse, type-check, interpret, ...).
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace egopt::cli {

struct OptionSpec {
    std::string name; // without the leading "--"
    bool takesValue;
    std::string help;
    // Options of a section other than "" are listed by `--help` as one line for the section and
    // in full by `--help SECTION` or `--help all`.
    std::string section{};
};

struct Args {
    std::vector<std::string> positional;
    std::multimap<std::string, std::string> options; // "--size N=4" -> {"size", "N=4"}
    bool has(const std::string& name) const { return options.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
};

struct Command {
    std::string name;
    std::string brief;    // one line for `egopt --help`
    std::string synopsis; // "check FILE [--size N=v ...]"
    std::string summary;
    std::vector<OptionSpec> options;
    size_t minPositional;
    size_t maxPositional;
    int (*run)(const Args&);
};

// The non-empty items of a comma-separated list ("a,,b" -> a, b).
std::vector<std::string> splitCommas(const std::string& list);
// Throws egopt::Error (BadInput) for unknown options, missing values or wrong arity.
Args parseArgs(const Command& command, const std::vector<std::string>& argv);
// `topic`: "" (the main options, a line per other section), a section's name, or "all".
std::string commandHelp(const Command& command, const std::string& topic = "");
// Whether `topic` names a section of the command's options or is "all".
bool isHelpTopic(const Command& command, const std::string& topic);
// The value of --NAME as a non-negative number, or `fallback` when absent; bad input otherwise.
double nonNegativeNumber(const Args& args, const std::string& name, double fallback);
// A byte count: a number of bytes or a number with a binary unit (512K, 1.5G, 2GiB).
std::optional<size_t> byteCount(const Args& args, const std::string& name);
// Every size variable's value, from --size and the companion .json; missing ones are bad input.
arith::Bindings requiredSizes(const Args& args, const lift::Program& program,
                              const std::string& file);

int runCheck(const Args& args);
int runInterp(const Args& args);
int runDevices(const Args& args);
int runCodegen(const Args& args);
int runRun(const Args& args);
int runSaturate(const Args& args);
int runProve(const Args& args);
int runRules(const Args& args);
int runFit(const Args& args);
int runRank(const Args& args);
int runOptimize(const Args& args);

} // namespace egopt::cli
