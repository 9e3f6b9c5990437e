// Helpers that tests of several modules share: paths of the programs they read, substring checks.
#pragma once

#include <string>

namespace egopt::testenv {

// The example programs (examples/ of the source tree).
inline const std::string kExamples = std::string(EGOPT_SOURCE_DIR) + "/examples/";

// examples/NAME.lift
inline std::string examplePath(const std::string& name) {
    return kExamples + name + ".lift";
}

// tests/codegen/programs/NAME.lift: the hand-lowered programs.
inline std::string loweredProgramPath(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/codegen/programs/" + name + ".lift";
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace egopt::testenv
