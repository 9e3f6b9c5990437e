// Re-predicting recorded runs of another device (the hidden [.rerank] case and the recorded-runs
// test): an H200 profile from a model's class, and a record's features recomputed from its
// front-end source with the current generator and feature code.
#pragma once

#include "support.hpp"

#include <fstream>
#include <sstream>

namespace egopt::costmodel::test {

// The model's calibration of `deviceClass` (its match for an NVIDIA H200 if empty or absent)
// with an H200's compute units and clock, which records do not hold.
inline DeviceProfile recordedProfile(const Model& model, const std::string& deviceClass,
                                     double computeUnits = 132, double clockMHz = 1980) {
    runtime::Device device;
    device.name = "NVIDIA H200";
    device.vendor = "NVIDIA Corporation";
    device.type = "GPU";
    DeviceProfile p = model.profile(device);
    if (const auto* a = dynamic_cast<const AnalyticModel*>(&model)) {
        for (const auto& c : a->classes()) {
            if (c.deviceClass == deviceClass) {
                p = queryProfile(device, c.constants);
                p.deviceClass = c.deviceClass;
            }
        }
    }
    p.computeUnits = computeUnits;
    p.clockHz = clockMHz * 1e6;
    p.maxWorkGroupSize = 1024;
    return p;
}

// A record's whole program: its front-end source, or else its printed term put inside the
// label's program file (its text up to the first `=>`: sizes, types, parameters), which parses
// only for terms the front end reads.
inline std::string wholeProgram(const Record& r) {
    if (!r.source.empty()) {
        return r.source;
    }
    if (r.program.starts_with("val ") || r.program.starts_with("//")) {
        return r.program;
    }
    std::ifstream in(sourceDir() + "/" + r.label);
    std::stringstream file;
    file << in.rdbuf();
    std::string text = file.str();
    auto arrow = text.find("=>");
    return arrow == std::string::npos ? r.program
                                      : text.substr(0, arrow + 2) + " " + r.program + ")";
}

// Recomputes a record's features from its program at its sizes; throws where it does not parse.
inline void recomputeFeatures(Record& r, const DeviceProfile& prof) {
    lift::Program p = lift::parseProgram(wholeProgram(r), r.label);
    lift::TypeInfo info = lift::typecheck(p);
    r.features = computeFeatures(codegen::generate(p, info, r.sizes), r.sizes, prof);
}

} // namespace egopt::costmodel::test
