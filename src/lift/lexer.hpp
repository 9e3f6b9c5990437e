// Internal to the front end: tokens of the Scala subset that .lift files are written in.
#pragma once

#include "egopt/support/diagnostic.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace egopt::lift::detail {

enum class Tok : uint8_t {
    End,
    Ident,  // names, including the alphanumeric operators o and $ (see Lexer)
    Int,    // 42
    Float,  // 0.0f, 1.5, 2e-3f
    String, // "..." or """...""" (text holds the decoded contents)
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket, // [ in Scala type annotations (Array[Float])
    RBracket,
    Comma,
    Dot,
    Arrow,   // =>
    Equals,  // =
    Colon,   // :
    Lambda,  // \ or λ
    Operator // + - * / % /^ :>> <<: and other symbolic operators
};

struct Token {
    Tok kind = Tok::End;
    std::string text;
    SourceLoc loc;
};

std::string_view tokenKindName(Tok kind);
// How a token is named in "expected X, found Y" messages.
std::string describeToken(const Token& token);

// Splits the whole source into tokens; comments and white space are dropped. Errors (an
// unterminated string or comment, a stray character) throw egopt::Error with the location.
std::vector<Token> tokenize(std::string_view source, const std::string& fileName);

// Whether a lambda starts at token `pos`: `x =>`, `() =>`, `(a, b) =>` or, with Scala's
// parameter annotations, `(a: Param, b: Expr) =>` (lookahead.cpp).
bool lambdaStartsAt(const std::vector<Token>& toks, size_t pos);

} // namespace egopt::lift::detail
