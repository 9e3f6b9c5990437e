// Shared helpers for the code generator tests: one OpenCL session for the whole binary (PoCL
// builds are slow, contexts are not free) and generate-build-validate in one call.
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/codegen/validate.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <string>

namespace egopt::codegen::test {

runtime::Session& session();

struct Generated {
    lift::Program program;
    lift::TypeInfo info;
    arith::Bindings sizes;
    GeneratedCode code;
};

// Parses, type-checks and generates; sizes default to the companion JSON's first combination.
Generated generateFile(const std::string& path, const arith::Bindings& sizes);
Generated generateText(const std::string& source, const arith::Bindings& sizes);

// Generates, builds and runs on the shared session; the result of the comparison.
RunResult validate(Generated& g);

std::string example(const std::string& name);     // examples/lowlevel/NAME.lift
std::string testProgram(const std::string& name); // tests/codegen/programs/NAME.lift

} // namespace egopt::codegen::test
