// A program parsed and type-checked from source text, for the interpreter's tests.
#pragma once

#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <string>

namespace egopt::test {

struct Loaded {
    lift::Program program;
    lift::TypeInfo info;
};

inline Loaded loadSource(const std::string& src) {
    Loaded l{lift::parseProgram(src, "t.lift"), {}};
    l.info = lift::typecheck(l.program);
    return l;
}

} // namespace egopt::test
