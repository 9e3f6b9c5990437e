// A program parsed and type-checked from source text, for the interpreter's tests.
#pragma once

#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"
#include "test_common.hpp"

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

// One of the example programs (examples/NAME.lift), parsed and type-checked.
inline Loaded loadExample(const std::string& name) {
    Loaded l{lift::parseFile(testenv::kExamples + name + ".lift"), {}};
    l.info = lift::typecheck(l.program);
    return l;
}

} // namespace egopt::test
