// Options shared by saturate and prove: --rules, --threads and the limits.
#pragma once

#include "cli.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"

#include <string>
#include <vector>

namespace egopt::cli {

std::vector<egraph::Rule> loadRuleOptions(const Args& args, const egraph::Library& lib);
void configureRunner(egraph::Runner& runner, const Args& args);

} // namespace egopt::cli
