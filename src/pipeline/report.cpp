// The report, the kernel file and the candidate table (report.hpp).
#include "egopt/pipeline/report.hpp"

#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace egopt::pipeline {

namespace {

using nlohmann::json;

json bindings(const arith::Bindings& b) {
    json j = json::object();
    for (const auto& [k, v] : b) {
        j[k] = v;
    }
    return j;
}

// Each device's OpenCL index, as measurements name it ("device"), and its description.
json devicesJson(const Result& r) {
    json out = json::array();
    for (const auto& d : r.devices) {
        json e = {{"index", d.index}, {"description", d.description}};
        if (!r.ranks.empty()) {
            e["rank"] = d.rank;
        }
        out.push_back(e);
    }
    return out;
}

// The MPI ranks of a distributed run (docs/distributed.md); empty for one process.
json ranksJson(const Result& r) {
    json out = json::array();
    for (const auto& k : r.ranks) {
        json e = {{"rank", k.rank},
                  {"role", k.rank == 0 ? "coordinator" : "worker"},
                  {"host", k.host},
                  {"devices", k.devices},
                  {"jobs", k.jobs}};
        if (!k.lost.empty()) {
            e["lost"] = k.lost;
        }
        out.push_back(e);
    }
    return out;
}

json phaseJson(const PhaseResult& p) {
    json rules = json::array();
    for (const auto& r : p.run.rules) {
        if (r.matches > 0) {
            rules.push_back({{"name", r.name},
                             {"matches", r.matches},
                             {"applied", r.applications},
                             {"new_nodes", r.newNodes},
                             {"banned", r.timesBanned}});
        }
    }
    return {{"name", p.name},
            {"rule_files", p.ruleFiles},
            {"rules_loaded", p.rules},
            {"stop", std::string(egraph::stopReasonName(p.run.stop))},
            {"iterations", p.run.iterations.size()},
            {"nodes", p.nodes},
            {"classes", p.classes},
            {"seconds", p.seconds},
            {"rules", rules}};
}

json candidateJson(const CandidateResult& c, bool ranks) {
    json tuning = json::array();
    for (const auto& v : c.tuning) {
        json divides = json::array();
        for (const auto& d : v.divides) {
            divides.push_back(d.toString());
        }
        tuning.push_back({{"name", v.name}, {"divides", divides}});
    }
    json measured = json::array();
    for (const auto& m : c.measured) {
        json e = {{"values", bindings(m.values)},
                  {"ok", m.ok},
                  {"predicted_seconds", m.predicted},
                  {"device", m.device}};
        if (ranks) {
            e["rank"] = m.rank;
        }
        e[m.ok ? "seconds" : "error"] = m.ok ? json(m.seconds) : json(m.error);
        measured.push_back(e);
    }
    json j = {{"index", c.index},
              {"expression", c.text},
              {"extraction_cost", c.extractCost},
              {"origin", c.guided       ? "exploration (guided)"
                         : c.explored   ? "exploration"
                         : c.secondView ? "extraction (occupancy view)"
                                        : "extraction"},
              {"tuning_variables", tuning},
              {"status", std::string(statusName(c.status))},
              {"valid", c.status == CandidateResult::Status::Valid},
              {"measurements", measured}};
    if (!c.reason.empty()) {
        j["reason"] = c.reason;
    }
    if (!c.buildLog.empty()) {
        j["build_log"] = c.buildLog;
    }
    if (c.seconds > 0) { // valid, or measured and not validated: its fastest configuration
        j["tuning_values"] = bindings(c.values);
        j["predicted_seconds"] = c.predicted;
        j["median_seconds"] = c.seconds;
        j["gb_per_s"] = c.gbPerSec;
        j["gflop_per_s"] = c.gflops;
    }
    if (c.status == CandidateResult::Status::Valid) {
        j["lowered_expression"] = c.lowered;
        j["validation"] = {{"sizes", bindings(c.validationSizes)},
                           {"max_relative_error", c.validationError}};
        j["launch"] = json::parse(c.launchJson);
    }
    return j;
}

std::string shorten(const std::string& s, size_t n) {
    return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

std::string valuesText(const arith::Bindings& b) {
    std::string out;
    for (const auto& [k, v] : b) {
        out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
    }
    return out.empty() ? "-" : out;
}

// Wall seconds per stage, in pipeline order, and their total.
json stagesJson(const Result& r) {
    json j = json::object();
    for (size_t s = 0; s < kStageCount; ++s) {
        j[std::string(stageName(Stage(s)))] = r.stageSeconds[s];
    }
    j["total"] = r.seconds;
    return j;
}

} // namespace

std::string stageBreakdown(const Result& r) {
    std::string out = "time:";
    char part[64];
    for (size_t s = 0; s < kStageCount; ++s) {
        std::snprintf(part, sizeof part, " %s %.2f s%s", std::string(stageName(Stage(s))).c_str(),
                      r.stageSeconds[s], s + 1 < kStageCount ? "," : ";");
        out += part;
    }
    if (r.timeBudget > 0) {
        std::snprintf(part, sizeof part, " total %.2f s of a %.0f s budget\n", r.seconds,
                      r.timeBudget);
    } else {
        std::snprintf(part, sizeof part, " total %.2f s (no time budget)\n", r.seconds);
    }
    return out + part;
}

std::string reportJson(const Result& r) {
    json phases = json::array();
    for (const auto& p : r.phases) {
        phases.push_back(phaseJson(p));
    }
    json candidates = json::array();
    for (const auto& c : r.candidates) {
        candidates.push_back(candidateJson(c, !r.ranks.empty()));
    }
    auto rejections = [](const std::vector<extract::Rejection>& xs) {
        json out = json::array();
        for (const auto& x : xs) {
            out.push_back({{"rank", x.rank}, {"expression", x.text}, {"reason", x.reason}});
        }
        return out;
    };
    json rejected = rejections(r.rejected);
    json assumptions = json::array();
    for (const auto& a : r.assumptions) {
        assumptions.push_back({{"var", a.var}, {"divisible_by", a.divisor}});
    }
    json j = {
        {"input",
         {{"file", r.file},
          {"sizes", bindings(r.sizes)},
          {"expression", r.input},
          {"assumptions", assumptions}}},
        {"device", r.device},
        {"devices", devicesJson(r)},
        {"ranks", ranksJson(r)},
        {"cost_model", r.costModel},
        {"rule_phases", phases},
        {"egraph",
         {{"nodes", r.nodes},
          {"classes", r.classes},
          {"bytes", r.egraphBytes},
          {"search_stages", r.searchStages}}},
        {"peak_rss_mb", r.peakRssMb},
        {"extraction",
         {{"states", r.extractStats.states},
          {"terms", r.extractStats.terms},
          {"seconds", r.extractStats.seconds},
          {"rejected", rejected},
          {"exploration",
           {{"drawn", r.exploreDrawn},
            {"checked", r.exploreChecked},
            {"accepted", r.exploreAccepted},
            {"taken", r.exploreTaken},
            {"guided_rejected", r.guidedRejectedCount},
            {"guided_rejections", rejections(r.guidedRejected)},
            {"refinement",
             {{"rounds", r.refineRounds},
              {"checked", r.refineChecked},
              {"accepted", r.refineAccepted}}}}}}},
        {"tuning",
         {{"search", tunerName(r.tuner)},
          {"budget", r.tuneBudget},
          {"measured", r.tuneUsed},
          {"compile_workers", r.compileWorkers},
          {"programs_from_workers", r.programsFromWorkers}}},
        {"candidates", candidates},
        {"validation",
         {{"configurations", r.validations}, {"references_interpreted", r.referencesInterpreted}}},
        {"kendall_tau",
         {{"candidates", r.tauCandidates},
          {"distinct_kernels", r.tauDistinct},
          {"distinct_kernel_count", r.distinctKernels},
          {"measurements", r.tauMeasurements}}},
        {"interrupted", r.interrupted},
        {"over_time_budget", r.overBudget},
        {"time_budget", r.timeBudget},
        {"stages", stagesJson(r)},
        {"seconds", r.seconds},
        {"notes", r.notes},
    };
    if (r.best) {
        j["chosen"] = {{"index", *r.best},
                       {"expression", r.candidates[*r.best].lowered},
                       {"cross_check", r.crossCheck},
                       {"derivation", r.derivation}};
    } else {
        j["chosen"] = nullptr;
    }
    return j.dump(2) + "\n";
}

std::string kernelFile(const Result& r) {
    if (!r.best) {
        return {};
    }
    const CandidateResult& c = r.candidates[*r.best];
    std::string out = "// Generated by egopt from " + r.file + " (" + valuesText(r.sizes) +
                      ") for " + r.device + "\n//\n// Low-level expression:\n";
    std::string expr = c.lowered;
    for (size_t pos = 0; pos < expr.size(); pos += 96) {
        out += "//   " + expr.substr(pos, 96) + "\n"; // no "*/" hazards with line comments
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "//\n// Tuning: %s; median %.4f ms, %.2f GB/s, %.2f GFLOP/s; predicted %.4f ms\n"
                  "// Launch plan: %s.report.json (\"chosen\" and its candidate's \"launch\")\n\n",
                  valuesText(c.values).c_str(), c.seconds * 1e3, c.gbPerSec, c.gflops,
                  c.predicted * 1e3, std::filesystem::path(r.file).stem().string().c_str());
    return out + line + c.source;
}

namespace {

// The compiler's log of each candidate that failed to build, indented under the table; a log
// already shown for an earlier candidate is named, not repeated.
std::string buildLogs(const Result& r) {
    std::string out;
    std::map<std::string, size_t> shown;
    for (const auto& c : r.candidates) {
        if (c.buildLog.empty()) {
            continue;
        }
        auto [it, added] = shown.emplace(c.buildLog, c.index);
        out += "candidate " + std::to_string(c.index) + ": the OpenCL build failed; ";
        if (!added) {
            out += "build log as candidate " + std::to_string(it->second) + "'s\n";
            continue;
        }
        out += "build log:\n";
        for (size_t begin = 0; begin < c.buildLog.size();) {
            size_t end = c.buildLog.find('\n', begin);
            end = end == std::string::npos ? c.buildLog.size() : end;
            out += "    " + c.buildLog.substr(begin, end - begin) + "\n";
            begin = end + 1;
        }
    }
    return out;
}

} // namespace

std::string candidateTable(const Result& r) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "%4s %-15s %11s %11s %9s %9s  %-22s %s\n", "#", "status",
                  "time (ms)", "pred. (ms)", "GB/s", "GFLOP/s", "tuning", "expression");
    out += line;
    for (const auto& c : r.candidates) {
        bool ok = c.seconds > 0; // valid, or measured and not validated
        std::string mark = r.best && *r.best == c.index ? "*" : " ";
        std::string status = std::string(statusName(c.status)) + (c.guided       ? " (g)"
                                                                  : c.explored   ? " (x)"
                                                                  : c.secondView ? " (o)"
                                                                                 : "");
        std::snprintf(
            line, sizeof line, "%3zu%s %-15s %11.4f %11.4f %9.2f %9.2f  %-22s %s\n", c.index,
            mark.c_str(), status.c_str(), ok ? c.seconds * 1e3 : 0.0, ok ? c.predicted * 1e3 : 0.0,
            ok ? c.gbPerSec : 0.0, ok ? c.gflops : 0.0, shorten(valuesText(c.values), 22).c_str(),
            shorten(c.status == CandidateResult::Status::Valid ? c.text
                                                               : c.text + "  [" + c.reason + "]",
                    150)
                .c_str());
        out += line;
    }
    out += buildLogs(r);
    if (std::any_of(r.candidates.begin(), r.candidates.end(),
                    [](const CandidateResult& c) { return c.explored; })) {
        out += "(x): found by exploration, ranked by the cost model (docs/extraction.md)\n";
    }
    if (std::any_of(r.candidates.begin(), r.candidates.end(),
                    [](const CandidateResult& c) { return c.guided; })) {
        out += "(g): found by exploration's guided draws (a macro rule's schedule, or the shape "
               "goal's shared reduction), ranked by the cost model (docs/extraction.md)\n";
    }
    if (std::any_of(r.candidates.begin(), r.candidates.end(),
                    [](const CandidateResult& c) { return c.secondView; })) {
        out +=
            "(o): ranked by the GPU occupancy view of the extraction cost (docs/extraction.md)\n";
    }
    std::snprintf(line, sizeof line,
                  "Kendall's tau (predicted vs measured): %.3f over timed candidates, %.3f over "
                  "their %zu distinct kernels, %.3f over all %zu measurements\n",
                  r.tauCandidates, r.tauDistinct, r.distinctKernels, r.tauMeasurements, r.tuneUsed);
    out += line;
    if (r.best) {
        out += "chosen: candidate " + std::to_string(*r.best) + "; cross-check: " + r.crossCheck +
               "\n";
    }
    return out;
}

OutputPaths writeOutputs(const Result& result, const std::string& dir) {
    namespace fs = std::filesystem;
    fs::path in(result.file);
    fs::path base = (dir.empty() ? in.parent_path() : fs::path(dir)) / in.stem();
    auto write = [](const fs::path& path, const std::string& text) {
        std::ofstream out(path, std::ios::binary);
        if (!out || !(out << text)) {
            badInput("cannot write '" + path.string() + "'");
        }
    };
    OutputPaths paths;
    if (!dir.empty()) {
        std::error_code ec;
        fs::create_directories(dir, ec);
    }
    paths.report = base.string() + ".report.json";
    write(paths.report, reportJson(result));
    if (result.best) {
        paths.kernel = base.string() + ".cl";
        write(paths.kernel, kernelFile(result));
    }
    return paths;
}

} // namespace egopt::pipeline
