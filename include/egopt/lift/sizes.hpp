// Concrete values for a program's size variables: from `--size N=4096` options, else from the
// first entry of the companion NAME.json's "input_combinations".
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <string>
#include <vector>

namespace egopt::lift {

// Parses "N=4096" or "N=4096,M=128" into `out`; BadInput on malformed text or a value < 1.
void parseSizeAssignments(const std::string& text, arith::Bindings& out);

struct SizeResolution {
    arith::Bindings bindings;
    std::vector<std::string> missing; // size variables of the program without a value
};

// Explicit values win; then the companion combination (by position in program.sizeVars).
// Values for names that the program does not use are BadInput (a likely typo).
SizeResolution resolveSizes(const Program& program, const arith::Bindings& explicitSizes,
                            const std::vector<std::vector<int64_t>>& companion);

// "N=4096, M=128" in the program's size-variable order.
std::string showBindings(const Program& program, const arith::Bindings& bindings);

} // namespace egopt::lift
