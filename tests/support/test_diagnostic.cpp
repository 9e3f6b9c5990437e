// Diagnostics: the source line a diagnostic echoes never carries raw control bytes or broken
// UTF-8 to the terminal, and the caret still points at the reported column.
#include "egopt/support/diagnostic.hpp"
#include "egopt/support/source_line.hpp"

#include <catch2/catch.hpp>
#include <string>

using egopt::Error;
using egopt::ErrorKind;
using egopt::formatDiagnostic;
using egopt::showSourceLine;
using egopt::SourceLoc;

namespace {

bool hasRawControlOrHighByte(const std::string& s) {
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || c >= 0x80) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("printable source lines are shown as they are", "[support]") {
    auto s = showSourceLine("  xs => Map(abs) $ $ xs", 19);
    CHECK(s.text == "  xs => Map(abs) $ $ xs");
    CHECK(s.caretPad == std::string(18, ' '));
}

TEST_CASE("control bytes and invalid UTF-8 are escaped and the caret follows", "[support]") {
    // Columns count as the lexer counts them: \x01 and \xff are one column each.
    std::string line = std::string("ab\x01") + "c\xff" + "d";
    auto s = showSourceLine(line, 6); // the 'd'
    CHECK(s.text == "ab\\x01c\\xffd");
    CHECK(s.caretPad == std::string(11, ' '));
    CHECK(s.text.substr(s.caretPad.size(), 1) == "d");
    CHECK_FALSE(hasRawControlOrHighByte(s.text));
}

TEST_CASE("escape, DEL, NUL and C1 controls are escaped", "[support]") {
    std::string line = std::string("\x1b[31mred") + '\0' + "\x7f" + "\xc2\x9b" + "x";
    auto s = showSourceLine(line, 1);
    CHECK(s.text == "\\x1b[31mred\\x00\\x7f\\xc2\\x9bx");
    CHECK(s.caretPad.empty());
}

TEST_CASE("valid UTF-8 is kept and counts one column per code point", "[support]") {
    std::string line = "\\(x => \xce\xbb(y => y))"; // a λ before the error
    auto s = showSourceLine(line, 9);               // the '('
    CHECK(s.text == line);
    CHECK(s.caretPad == std::string(8, ' '));
}

TEST_CASE("tabs are kept in the caret line and a CR line end is dropped", "[support]") {
    auto s = showSourceLine("\tMap(f)\r", 2);
    CHECK(s.text == "\tMap(f)");
    CHECK(s.caretPad == "\t");
}

TEST_CASE("a column past the end puts the caret after the line", "[support]") {
    auto s = showSourceLine("ab\x02", 9);
    CHECK(s.text == "ab\\x02");
    CHECK(s.caretPad == std::string(6, ' '));
}

TEST_CASE("formatDiagnostic of a binary file's line prints no raw bytes", "[support]") {
    std::string source = std::string("\x7f"
                                     "ELF\x02\x01\x01\0\0\0",
                                     10) +
                         "\n";
    Error e(ErrorKind::BadInput, "unexpected character 'byte 127'", "a.out", SourceLoc{1, 1});
    std::string d = formatDiagnostic(e, source);
    CHECK(d == "a.out:1:1: error: unexpected character 'byte 127'\n"
               "  \\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\n"
               "  ^");
    CHECK_FALSE(hasRawControlOrHighByte(d));
}
