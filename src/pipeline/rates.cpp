// What the confirmed candidates measure (stages.hpp): useful GFLOP/s and Kendall's tau between
// the cost model's predictions and the measured times.
#include "stages.hpp"

#include <map>

namespace egopt::pipeline {

namespace {

// The kernel (source and launch) that configuration `key` ran: its own, or the one it took the
// timing of (Work::Run::sameAs).
std::string kernelOf(const Work& w, Work::Key key) {
    if (const auto& same = w.runs.at(key).sameAs) {
        key = *same;
    }
    for (const auto& [kernel, config] : w.kernelRuns) {
        if (config == key) {
            return kernel;
        }
    }
    return "candidate " + std::to_string(key.first) + " " + showValues(key.second);
}

} // namespace

// GFLOP/s counts the fewest arithmetic operations any measured candidate executes for the
// program (the useful work): a candidate that recomputes values gets no credit for it.
void usefulRates(const Work& w, Result& result) {
    double useful = 0;
    for (const auto& [key, run] : w.runs) {
        if (run.timing && run.arithOps > 0 && (useful == 0 || run.arithOps < useful)) {
            useful = run.arithOps;
        }
    }
    for (auto& c : result.candidates) {
        if (c.seconds > 0) { // valid, or measured and not validated
            c.gflops = useful / c.seconds * 1e-9;
        }
    }
}

// Kendall's tau over the candidates with a time (valid, or measured and left unvalidated), over
// their distinct kernels, and over every successful measurement.
void correlations(const Work& w, Result& result) {
    std::vector<double> p, m;
    for (const auto& c : result.candidates) {
        if (c.seconds > 0 && c.predicted > 0) {
            p.push_back(c.predicted);
            m.push_back(c.seconds);
        }
    }
    result.tauCandidates = costmodel::kendallTau(p, m);
    // Candidates whose kernels are the same text with the same launch (extraction yields such
    // near-duplicates: layout no-ops, toGlobal) measure the same kernel: one point each, its
    // fastest measurement (the least disturbed by other load) and its prediction.
    std::map<std::string, std::pair<double, double>> kernels; // key -> (predicted, fastest)
    for (const auto& c : result.candidates) {
        if (c.seconds > 0 && c.predicted > 0) {
            auto [it, fresh] =
                kernels.try_emplace(kernelOf(w, {c.index, c.values}), c.predicted, c.seconds);
            it->second.second = fresh ? c.seconds : std::min(it->second.second, c.seconds);
        }
    }
    p.clear();
    m.clear();
    for (const auto& [key, pm] : kernels) {
        p.push_back(pm.first);
        m.push_back(pm.second);
    }
    result.distinctKernels = kernels.size();
    result.tauDistinct = costmodel::kendallTau(p, m);
    p.clear();
    m.clear();
    for (const auto& [key, run] : w.runs) {
        if (run.timing && run.predicted > 0) {
            p.push_back(run.predicted);
            m.push_back(run.timing->seconds);
        }
    }
    result.tauMeasurements = costmodel::kendallTau(p, m);
}

} // namespace egopt::pipeline
