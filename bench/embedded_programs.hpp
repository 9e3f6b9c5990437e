// The .lift programs of bench/codegen, compiled into the binary (CMake reads them at configure
// time into embedded_programs.cpp) so that the binary runs on a device machine without the
// source tree.
#pragma once

#include <span>
#include <string_view>

namespace egopt::bench {

struct EmbeddedProgram {
    std::string_view name;   // the file name without .lift
    std::string_view path;   // relative to the repository root, for diagnostics
    std::string_view source; // the file's text
};

std::span<const EmbeddedProgram> embeddedPrograms();

} // namespace egopt::bench
