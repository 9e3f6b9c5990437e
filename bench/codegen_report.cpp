// Printing bench/codegen's comparison table and CSV.
#include "codegen_report.hpp"

#include <iomanip>
#include <ostream>

namespace egopt::bench {

namespace {

bool hasSamples(const Row& row) {
    return !row.samples.deviceNs.empty() && row.medianMs() > 0;
}

} // namespace

std::string percentOfCopy(const Row& row, const Row& copy) {
    if (row.work.computeBound || !hasSamples(row) || !hasSamples(copy)) {
        return "-";
    }
    return formatFixed(100.0 * row.throughput() / copy.throughput(), 0) + "%";
}

std::string timesFaster(const Row& row, const Row& anchor) {
    if (!hasSamples(row) || !hasSamples(anchor)) {
        return "-";
    }
    return formatFixed(anchor.medianMs() / row.medianMs(), 2) + "x";
}

void printComparison(std::ostream& out, const Comparison& comparison) {
    out << std::left << std::setw(13) << "kernel" << std::setw(9) << "impl" << std::setw(16)
        << "size" << std::setw(7) << "check" << std::right << std::setw(11) << "median ms"
        << std::setw(11) << "wall ms" << std::setw(18) << "throughput" << std::setw(8) << "% copy"
        << std::setw(11) << "x clblast" << '\n';
    for (const ComparedRow& c : comparison.rows) {
        const Row& row = c.row;
        const bool timed = hasSamples(row);
        out << std::left << std::setw(13) << row.name << std::setw(9) << row.impl << std::setw(16)
            << row.size << std::setw(7) << row.check.substr(0, 6) << std::right << std::setw(11)
            << (timed ? formatFixed(row.medianMs(), 3) : "-") << std::setw(11)
            << (timed ? formatFixed(row.wallMedianMs(), 3) : "-") << std::setw(10)
            << (timed ? formatFixed(row.throughput(), 1) : "-") << ' ' << std::left << std::setw(7)
            << row.unit() << std::right << std::setw(8) << c.vsCopy << std::setw(11) << c.vsBlast
            << '\n';
    }
    out << "\n% copy: throughput as a percentage of the copy kernel's (the bandwidth limit); "
           "x clblast: CLBlast's median time divided by egopt's (above 1: egopt is faster)\n";
    for (const ComparedRow& c : comparison.rows) {
        if (c.row.check.size() > 6) {
            out << c.row.name << ' ' << c.row.impl << ' ' << c.row.size << " check: " << c.row.check
                << '\n';
        }
    }
    out << "\nnotes:\n";
    for (const Note& note : comparison.notes) {
        out << "  " << note.what << ": " << note.text << '\n';
    }
}

void printComparisonCsv(std::ostream& out, const Comparison& comparison) {
    out << "kernel,impl,size,check,median_ms,wall_median_ms,bytes,flops,gb_per_s,gflop_per_s,"
           "pct_copy,x_clblast,device_ns,wall_ns\n";
    for (const ComparedRow& c : comparison.rows) {
        const Row& row = c.row;
        out << row.name << ',' << row.impl << ',' << row.size << ',' << row.check << ','
            << formatFixed(row.medianMs(), 6) << ',' << formatFixed(row.wallMedianMs(), 6) << ','
            << formatFixed(row.work.bytes, 0) << ',' << formatFixed(row.work.flops, 0) << ','
            << formatFixed(gigaPerSecond(row.work.bytes, row.samples.deviceNs), 3) << ','
            << formatFixed(gigaPerSecond(row.work.flops, row.samples.deviceNs), 3) << ','
            << c.vsCopy << ',' << c.vsBlast << ',' << joinSamples(row.samples.deviceNs) << ','
            << joinSamples(row.samples.wallNs) << '\n';
    }
}

} // namespace egopt::bench
