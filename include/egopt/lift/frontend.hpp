// The front end for .lift files (docs/design.md §3): lexing, parsing the Scala-subset syntax, and
// elaborating it into the IR (helpers inlined, builtins resolved, partial applications and
// compositions turned into lambdas and applications).
#pragma once

#include "egopt/lift/ir.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace egopt::lift {

// Parses and elaborates a program. Throws egopt::Error (ErrorKind::BadInput) with the file name
// and the line/column of the offending token, and a message that says what was expected.
Program parseProgram(std::string source, std::string fileName);

// Reads the file and parses it; a missing or unreadable file is BadInput too.
Program parseFile(const std::string& path);

// The "input_combinations" of the companion NAME.json beside NAME.lift: concrete values for the
// program's size variables in order of first appearance. Empty when there is no companion file;
// BadInput when it exists but is malformed.
std::vector<std::vector<int64_t>> readCompanionSizes(const std::string& liftPath);

} // namespace egopt::lift
