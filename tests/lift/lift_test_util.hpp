// Helpers shared by the front-end tests.
#pragma once

#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"
#include "test_common.hpp"

#include <string>

namespace egopt::test {

using testenv::kExamples;

// Parses, type-checks and returns the signature ("(A, B) -> C").
inline std::string signatureOf(const std::string& source) {
    lift::Program p = lift::parseProgram(source, "test.lift");
    lift::TypeInfo info = lift::typecheck(p);
    return lift::showSignature(p, info);
}

// The error a source produces: "line:col: message", or "" when it parses and type-checks.
inline std::string errorOf(const std::string& source) {
    try {
        signatureOf(source);
    } catch (const Error& e) {
        return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " +
               e.message();
    }
    return "";
}

} // namespace egopt::test
