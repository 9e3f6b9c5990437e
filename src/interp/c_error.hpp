// Errors of a C user function name the function and, for functions written in a .lift file, the
// line there: the body string starts at decl.loc and lines within it are counted from 0.
#pragma once

#include "egopt/support/diagnostic.hpp"

#include <string>

namespace egopt::interp::c {

class Reporter {
public:
    Reporter(std::string function, SourceLoc bodyLoc, bool builtin)
        : function_(std::move(function)), bodyLoc_(bodyLoc), builtin_(builtin) {}

    [[noreturn]] void fail(uint32_t bodyLine, const std::string& message) const;
    // For faults that belong to no line (the arguments of a call).
    [[noreturn]] void failCall(const std::string& message) const;
    const std::string& function() const { return function_; }

private:
    std::string function_;
    SourceLoc bodyLoc_;
    bool builtin_;
};

} // namespace egopt::interp::c
