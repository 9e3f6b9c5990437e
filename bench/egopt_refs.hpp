// The inputs that bench/egopt_bench gives egopt's chosen kernels, and host references for their
// outputs, per example program (examples/*.lift). Array parameter p holds patternValue(i, 1 + p)
// (blas_rows.hpp), scalar parameter p the value scalarValue(p); references are computed in
// double from the same formulas, so they need no host copy of the inputs.
#pragma once

#include "harness.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace egopt::bench {

using SizeMap = std::map<std::string, int64_t>;

unsigned paramSeed(size_t param);
float scalarValue(size_t param);

struct ProgramRef {
    double tolerance = 1e-3; // relative, as |got - want| <= tol * max(1, |want|)
    // Output float `i` (outputs flattened: tuple and float4 components consecutive).
    double (*value)(const SizeMap& sizes, size_t i) = nullptr;
};

// The reference of an example program by its file stem ("gemv"); nullptr when there is none.
const ProgramRef* findReference(const std::string& program);

// Compares up to `samples` evenly spaced output floats, and the last, with the reference:
// "ok (S of N outputs)" or "FAIL at output I: got X, want Y".
std::string sampledCheck(runtime::Session& session, const runtime::Buffer& output,
                         size_t outputFloats, const ProgramRef& ref, const SizeMap& sizes,
                         size_t samples, bool& ok);

} // namespace egopt::bench
