// Outputs of the pipeline (docs/pipeline.md): PROGRAM.cl (the chosen kernels with the low-level
// expression in a header comment), PROGRAM.report.json (input, rule phases, e-graph statistics,
// every candidate with its expression, predicted and measured time, rates, validity and launch
// configuration, the derivation of the chosen one), and the terminal table of candidates.
#pragma once

#include "egopt/pipeline/pipeline.hpp"

#include <string>

namespace egopt::pipeline {

// The report as JSON text.
std::string reportJson(const Result& result);

// The .cl text of the chosen candidate (empty when there is none).
std::string kernelFile(const Result& result);

// One line per candidate: rank, status, measured and predicted time, GB/s, GFLOP/s, tuning
// values, expression (shortened); the compiler's log of each candidate that failed to build; then
// the choice, Kendall's tau and the cross-check.
std::string candidateTable(const Result& result);

// One line: the wall seconds of each stage (report "stages") and the total against the budget:
// "time: load 0.05 s, saturate 1.20 s, ...; total 9.10 s of a 20 s budget".
std::string stageBreakdown(const Result& result);

struct OutputPaths {
    std::string kernel; // "" when no valid candidate (nothing written)
    std::string report;
};
// Writes the files into `dir` ("" = beside the input) named after the input's stem. Throws
// egopt::Error (BadInput) when they cannot be written.
OutputPaths writeOutputs(const Result& result, const std::string& dir);

} // namespace egopt::pipeline
