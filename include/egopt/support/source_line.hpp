// How a diagnostic shows the offending source line (formatDiagnostic, diagnostic.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace egopt {

// A source line as a diagnostic shows it: control bytes and bytes that are not printable UTF-8
// escaped as \xHH (a binary file must not act on the terminal), a trailing CR dropped, tabs kept;
// and the whitespace that puts a caret under column `col` (1-based, counted as the lexer counts:
// one per UTF-8 code point or stray byte).
struct SourceLine {
    std::string text;
    std::string caretPad;
};
SourceLine showSourceLine(std::string_view line, uint32_t col);

} // namespace egopt
