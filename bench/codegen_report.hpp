// The table of bench/codegen: the harness's rows plus the two ratios against the anchors, and
// notes that say what each generated kernel's time covers and how it was checked.
#pragma once

#include "harness.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace egopt::bench {

struct ComparedRow {
    Row row;
    std::string vsCopy = "-";  // throughput as a percentage of the copy kernel's ("87%")
    std::string vsBlast = "-"; // CLBlast's median time / this row's ("1.25x": 25% faster)
};

struct Note {
    std::string what; // "asum_gpu 16M"
    std::string text;
};

struct Comparison {
    std::vector<ComparedRow> rows;
    std::vector<Note> notes;
};

// "87%" of the copy kernel's throughput; "-" for compute-bound rows and rows without samples.
std::string percentOfCopy(const Row& row, const Row& copy);
// "1.25x": how much faster `row` is than `anchor` (anchor median / row median), or "-".
std::string timesFaster(const Row& row, const Row& anchor);

void printComparison(std::ostream& out, const Comparison& comparison);
// One line per row with both units, the ratios and every sample; the notes are not included.
void printComparisonCsv(std::ostream& out, const Comparison& comparison);

} // namespace egopt::bench
