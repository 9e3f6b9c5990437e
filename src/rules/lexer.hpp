// Tokens of rule files.
#pragma once

#include "egopt/support/diagnostic.hpp"

#include <string>
#include <vector>

namespace egopt::rules::detail {

struct Token {
    enum class Kind { Ident, Number, String, Punct, End } kind = Kind::End;
    std::string text;
    SourceLoc loc;
};

// Identifiers may contain '-' between letters (rule names such as map-fusion).
std::vector<Token> lex(const std::string& text, const std::string& file);

} // namespace egopt::rules::detail
