// The pipeline's stages (internal; pipeline.cpp strings them together).
#pragma once

#include "bench.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/pipeline/pipeline.hpp"
#include "egopt/pipeline/tuner.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace egopt::pipeline {

using Progress = std::function<void(const std::string&)>;

// saturate.cpp (gpu: the target is a GPU, see targetsGpu)
void saturatePhases(egraph::EGraph& g, const Options& options, bool gpu, Result& result,
                    const Progress& progress);

// The state shared by tuning and confirmation: candidates, the model, the device bench, and
// every measurement made (keyed by candidate and tuning values).
struct Work {
    const Options& options;
    lift::Program& original;
    arith::Bindings sizes;
    std::vector<SizeAssumption> assumed; // saturation's size assumptions (checked by buildAt)
    std::vector<extract::Candidate> candidates;
    std::unique_ptr<costmodel::Model> model;
    costmodel::DeviceProfile profile;
    std::unique_ptr<Bench> bench;
    Progress progress;
    struct Run {
        std::optional<Timing> timing; // nullopt: failed
        std::string error;
        std::string buildLog; // the OpenCL compiler's log when the build failed
        double predicted = 0;
        double arithOps = 0;
        std::string launchJson;
    };
    std::map<std::pair<size_t, arith::Bindings>, Run> runs;

    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

    bool stopped() const { return options.stop && options.stop->requested(); }
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    // Past `share` of Options::timeBudget (never when the budget is 0).
    bool pastBudget(double share) const {
        return options.timeBudget > 0 && elapsed() > share * options.timeBudget;
    }
    // The model's seconds for a configuration (nullopt when it does not generate or does not fit
    // the device: codegen::resourceProblem).
    std::optional<double> predict(size_t c, const arith::Bindings& values);
    std::optional<double> predict(const extract::Candidate& c, const arith::Bindings& values);
    // The prediction at the candidate's default tuning values (the tuner's starting point), which
    // ranks candidates and explored terms before anything is measured.
    std::optional<double> predictAtDefaults(const extract::Candidate& c);
    // Builds and times a configuration at the real sizes; records it (and appends a record to
    // --record). nullopt when it fails to generate, build or run.
    std::optional<double> measure(size_t c, const arith::Bindings& values);
};

// confirm.cpp: validation of each candidate's fastest configurations at small sizes, the choice
// of the best, and its real-size cross-check.
void confirm(Work& work, const TuneResult& tuned, Result& result);

// The derivation of the chosen candidate (explanations; empty when they are off).
std::vector<std::string> derivation(egraph::EGraph& g, const egraph::Inserted& input,
                                    const extract::Candidate& chosen);

} // namespace egopt::pipeline
