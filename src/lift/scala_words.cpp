// Facts about Scala's words and operators that the parser relies on. Infix operators follow
// Scala's rules: precedence by the first character (letters such as `o` and `$` lowest, then
// `|`, `^`, `&`, `= !`, `< >`, `:`, `+ -`, `* / %`), right-associative when ending in ':'.
#include "syntax.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace egopt::lift::detail {

int precedence(const std::string& op) {
    unsigned char c = static_cast<unsigned char>(op.front());
    if (std::isalpha(c) || c == '$' || c == '_') {
        return 1;
    }
    switch (c) {
    case '|':
        return 2;
    case '^':
        return 3;
    case '&':
        return 4;
    case '=':
    case '!':
        return 5;
    case '<':
    case '>':
        return 6;
    case ':':
        return 7;
    case '+':
    case '-':
        return 8;
    case '*':
    case '/':
    case '%':
        return 9;
    default:
        return 10;
    }
}

bool rightAssociative(const std::string& op) {
    return op.back() == ':';
}

bool isScalaOutsideLift(const std::string& word) {
    static constexpr std::array<std::string_view, 28> kWords = {
        "if",     "else",    "match",    "case",     "for",     "while",   "do",
        "yield",  "new",     "class",    "object",   "trait",   "extends", "with",
        "var",    "lazy",    "return",   "throw",    "try",     "catch",   "finally",
        "import", "package", "implicit", "override", "private", "sealed",  "abstract",
    };
    return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

std::string printedSizeVariable(const std::string& ident) {
    // v_<name>_<digits> is the size <name>; v__<digits> is a tuning variable.
    auto allDigits = [](std::string_view s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        });
    };
    std::string_view s(ident);
    if (s.size() < 4 || s.substr(0, 2) != "v_") {
        return {};
    }
    if (s[2] == '_') {
        return allDigits(s.substr(3)) ? ident : std::string();
    }
    size_t last = s.rfind('_');
    std::string_view name = s.substr(2, last - 2);
    bool nameOk = last > 2 && std::isalpha(static_cast<unsigned char>(name.front())) &&
                  std::all_of(name.begin(), name.end(),
                              [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
    return nameOk && allDigits(s.substr(last + 1)) ? std::string(name) : std::string();
}

} // namespace egopt::lift::detail
