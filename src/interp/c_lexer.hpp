// Tokens of a user-function body, with object-like #define macros expanded as they are read.
#pragma once

#include "c_error.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::interp::c {

enum class TokKind : uint8_t { Ident, Int, Float, Punct, End };

struct Token {
    TokKind kind = TokKind::End;
    std::string text;
    uint32_t line = 0;        // 0-based line within the body
    double fnum = 0;          // Float
    int64_t inum = 0;         // Int
    bool singleFloat = false; // Float with an f suffix
    bool longInt = false;     // Int with an l suffix or too large for int
    bool unsignedInt = false; // Int with a u suffix, or a hex or octal one only uint holds
                              // (both: a ulong, with a ul suffix)
};

// The whole body as tokens ending with one End token. Function-like macros, other preprocessor
// directives, string literals, and character constants other than one character or the escapes
// \n \t \r \0 \\ \' \" are rejected.
std::vector<Token> lex(std::string_view body, const Reporter& rep);

} // namespace egopt::interp::c
