// Rule files (docs/rules.md): `rule NAME: LHS => RHS [if cond(...), ...] [where #n = gen(...)]`,
// `<=>` for both directions, `=> @applier(...)` for right-hand sides computed in C++,
// `include "file.rules"`, and // or /* */ comments. Errors are BadInput with file:line:col.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <string>
#include <vector>

namespace egopt::rules {

// Parses rule text; includes are resolved relative to the directory of `file`.
std::vector<egraph::Rule> parseRules(const std::string& text, const std::string& file,
                                     const egraph::Library& lib);

// Reads and parses a rule file (and what it includes; include cycles are errors).
std::vector<egraph::Rule> loadRules(const std::string& path, const egraph::Library& lib);

// The shipped rules/core.rules: found from the working directory or beside the executable.
std::string defaultRulesPath();

} // namespace egopt::rules
