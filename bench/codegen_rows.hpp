// Benchmark rows for kernels from egopt's code generator: generate, check against the
// interpreter at small sizes, then time at the benchmark size with the anchors' Timer and check
// sampled outputs against the program's host reference.
#pragma once

#include "codegen_programs.hpp"
#include "harness.hpp"

#include <string>

namespace egopt::bench {

struct GeneratedRow {
    Row row;          // impl "egopt"; check "ok", "FAIL" or "ERROR" (details in `note`)
    std::string note; // what was timed and how the output was checked, or the error
};

// Never throws for a program that fails to generate, build or run (docs/design.md §9: reported and
// skipped): the row then has no samples and check "ERROR". `size` is the problem size that
// every size variable is bound to; `label` the row's size column.
GeneratedRow benchGenerated(Timer& timer, const ProgramSpec& spec, size_t size,
                            const std::string& label);

} // namespace egopt::bench
