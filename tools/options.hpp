// The command line's option groups, each defined once (name, help, default) and parsed by one
// function: the saturation options that optimize, saturate and prove share, and the optimize
// command's search and tuning groups (--search.*, --tune.*), which `egopt optimize --help` folds
// into one line each.
#pragma once

#include "cli.hpp"
#include "egopt/pipeline/options.hpp"

#include <vector>

namespace egopt::cli {

// --rules (one phase per flag, its comma-separated files saturated together), --iterations,
// --node-limit, --time-limit, --memory-limit, --match-limit, --threads.
const std::vector<OptionSpec>& saturationOptionSpecs();
pipeline::SaturationOptions saturationFrom(const Args& args);

const std::vector<OptionSpec>& searchOptionSpecs(); // --search.*
pipeline::SearchOptions searchFrom(const Args& args);

const std::vector<OptionSpec>& tuneOptionSpecs(); // --tune.*
pipeline::TuneOptions tuneFrom(const Args& args);

// Options of earlier releases and what replaced them, for an error that names the new one.
std::optional<std::string> renamedOption(const std::string& name);

} // namespace egopt::cli
