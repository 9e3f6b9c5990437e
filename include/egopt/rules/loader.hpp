// Rule files (docs/rules.md): `rule NAME: LHS => RHS [if cond(...), ...] [where #n = gen(...)]`,
// `<=>` for both directions, `=> @applier(...)` for right-hand sides computed in C++,
// `group NAME = rule, rule, ...`, `include "file.rules"`, and // or /* */ comments. Errors are
// BadInput with file:line:col.
#pragma once

#include "egopt/egraph/rewrite.hpp"
#include "egopt/support/diagnostic.hpp"

#include <string>
#include <vector>

namespace egopt::rules {

// `group NAME = a, b, ...`: a named set of rules, by name, that a pipeline stage selects from
// what its phases load (the rules may be defined in any of those files): the set is data in the
// rule files, not a list in C++. Groups of one name in several files are one group.
struct RuleGroup {
    std::string name;
    std::vector<std::string> members;
    std::string file;
    SourceLoc loc;
};

struct RuleFile {
    std::vector<egraph::Rule> rules;
    std::vector<RuleGroup> groups; // in file order, included files' at their include
};

// Parses rule text with its groups; includes are resolved relative to the directory of `file`.
RuleFile parseRuleFile(const std::string& text, const std::string& file,
                       const egraph::Library& lib);
RuleFile loadRuleFile(const std::string& path, const egraph::Library& lib);

// Parses rule text; includes are resolved relative to the directory of `file`.
std::vector<egraph::Rule> parseRules(const std::string& text, const std::string& file,
                                     const egraph::Library& lib);

// Reads and parses a rule file (and what it includes; include cycles are errors).
std::vector<egraph::Rule> loadRules(const std::string& path, const egraph::Library& lib);

// The shipped rules/core.rules: found from the working directory or beside the executable.
std::string defaultRulesPath();

} // namespace egopt::rules
