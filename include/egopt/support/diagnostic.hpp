// Errors and diagnostics shared by every stage.
//
// Bad input (syntax, types, sizes, rules) is reported by throwing egopt::Error with
// ErrorKind::BadInput and, where the input came from a file, its location; the CLI turns it into
// "file:line:col: error: ..." with the source line and a caret, and exit code 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace egopt {

// 1-based line and column; line 0 means "no location".
struct SourceLoc {
    uint32_t line = 0;
    uint32_t col = 0;
    bool known() const { return line != 0; }
    friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

enum class ErrorKind : uint8_t {
    BadInput, // the user's program, sizes, inputs or rules are wrong: exit code 2
    Internal, // a bug or an environment failure: exit code 3
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, std::string message, std::string file = {}, SourceLoc loc = {});

    ErrorKind kind() const { return kind_; }
    const std::string& file() const { return file_; }
    SourceLoc loc() const { return loc_; }
    // The bare message, without location.
    const std::string& message() const { return message_; }

private:
    ErrorKind kind_;
    std::string message_;
    std::string file_;
    SourceLoc loc_;
};

// Shorthand for the common case.
[[noreturn]] void badInput(std::string message, std::string file = {}, SourceLoc loc = {});

// "file:line:col: error: message" followed, when `source` is non-empty and the location is known,
// by the offending source line and a caret under the column.
std::string formatDiagnostic(const Error& error, std::string_view source);

// Process exit codes used by the CLI.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitNoCandidate = 4;

} // namespace egopt
