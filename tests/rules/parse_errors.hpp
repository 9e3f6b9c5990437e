// The error a rule file's text gives, for the tests of the rule language's diagnostics.
#pragma once

#include "egopt/rules/loader.hpp"
#include "egopt/support/diagnostic.hpp"

#include <string>

namespace egopt::test {

// "line:col: message" of the error parsing `text` (as file `file`) gives, or "no error".
inline std::string errorOf(const std::string& text, const std::string& file = "t.rules") {
    try {
        rules::parseRules(text, file, egraph::Library::standard());
    } catch (const Error& e) {
        return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " +
               e.message();
    }
    return "no error";
}

} // namespace egopt::test
