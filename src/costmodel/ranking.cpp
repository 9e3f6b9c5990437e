// Ranking quality on recorded runs: the recorded configurations grouped into runs and candidates
// the way the pipeline's report counts them, re-predicted by a model.
#include "egopt/costmodel/costmodel.hpp"

#include <algorithm>
#include <map>

namespace egopt::costmodel {

double predictedBestGap(const std::vector<double>& predicted, const std::vector<double>& measured) {
    size_t best = predicted.size();
    for (size_t i = 0; i < predicted.size(); ++i) {
        if (predicted[i] > 0 && (best == predicted.size() || predicted[i] < predicted[best])) {
            best = i;
        }
    }
    if (best == predicted.size()) {
        return 0;
    }
    return measured[best] / *std::min_element(measured.begin(), measured.end());
}

namespace {

// One run's candidates: the fastest measured record of each program, in order of appearance.
RunRanking rankRun(const std::vector<const Record*>& run,
                   const std::function<double(const Record&)>& predict) {
    RunRanking out;
    out.label = run.front()->label;
    out.sizes = run.front()->sizes;
    out.records = run.size();
    std::map<std::string, size_t> byProgram;
    std::vector<const Record*> fastest;
    for (const Record* r : run) {
        auto [it, fresh] = byProgram.try_emplace(r->program, fastest.size());
        if (fresh) {
            fastest.push_back(r);
        } else if (r->measuredSeconds < fastest[it->second]->measuredSeconds) {
            fastest[it->second] = r;
        }
    }
    for (const Record* r : fastest) {
        out.measured.push_back(r->measuredSeconds);
        out.recorded.push_back(r->predicted);
        out.predicted.push_back(predict(*r));
    }
    out.tauRecorded = kendallTau(out.recorded, out.measured);
    out.tauPredicted = kendallTau(out.predicted, out.measured);
    out.gapRecorded = predictedBestGap(out.recorded, out.measured);
    out.gapPredicted = predictedBestGap(out.predicted, out.measured);
    return out;
}

} // namespace

std::vector<RunRanking> rankRuns(const std::vector<Record>& records,
                                 const std::function<double(const Record&)>& predict) {
    std::vector<RunRanking> out;
    std::vector<const Record*> run;
    for (const Record& r : records) {
        if (r.measuredSeconds <= 0) {
            continue;
        }
        if (!run.empty() && (r.label != run.front()->label || r.sizes != run.front()->sizes)) {
            out.push_back(rankRun(run, predict));
            run.clear();
        }
        run.push_back(&r);
    }
    if (!run.empty()) {
        out.push_back(rankRun(run, predict));
    }
    return out;
}

} // namespace egopt::costmodel
