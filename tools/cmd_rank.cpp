// egopt rank: re-predicts recorded runs with a cost model and reports how it ranks each run's
// candidates (Kendall's tau-b and the predicted-best candidate's gap), next to the predictions
// recorded when they ran.
#include "cli.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"

#include <cstdio>
#include <iostream>
#include <map>

namespace egopt::cli {

namespace {

// The profile a record is re-predicted with: the model's calibration of the record's device
// class (an analytic model's entry of that name, else the one its device name matches), with
// the compute units and clock given on the command line (records do not hold them).
costmodel::DeviceProfile profileFor(const costmodel::Model& model, const costmodel::Record& r,
                                    const Args& args) {
    runtime::Device device;
    device.name = r.device;
    device.type = "GPU";
    costmodel::DeviceProfile p = model.profile(device);
    if (const auto* a = dynamic_cast<const costmodel::AnalyticModel*>(&model)) {
        for (const auto& c : a->classes()) {
            if (c.deviceClass == r.deviceClass) {
                p = costmodel::queryProfile(device, c.constants);
                p.deviceClass = c.deviceClass;
            }
        }
    }
    p.computeUnits = nonNegativeNumber(args, "compute-units", p.computeUnits);
    p.clockHz = nonNegativeNumber(args, "clock-mhz", p.clockHz * 1e-6) * 1e6;
    return p;
}

} // namespace

int runRank(const Args& args) {
    auto model = costmodel::loadModel(args.value("cost-model").value_or("analytic"));
    std::vector<costmodel::Record> records;
    for (const auto& file : args.positional) {
        auto more = costmodel::readRecords(file);
        records.insert(records.end(), more.begin(), more.end());
    }
    std::map<std::string, costmodel::DeviceProfile> profiles; // by device class
    auto predict = [&](const costmodel::Record& r) {
        auto it = profiles.find(r.deviceClass);
        if (it == profiles.end()) {
            it = profiles.emplace(r.deviceClass, profileFor(*model, r, args)).first;
        }
        return model->predictSeconds(r.features, it->second);
    };
    auto runs = costmodel::rankRuns(records, predict);
    std::cout << "model " << model->source() << " (" << model->kind() << "), " << records.size()
              << " records, " << runs.size() << " runs\n";
    std::printf("%-4s %-28s %8s %11s %10s %10s %10s %10s\n", "run", "program", "records",
                "candidates", "tau rec.", "tau model", "gap rec.", "gap model");
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        std::printf("%-4zu %-28s %8zu %11zu %10.3f %10.3f %10.3f %10.3f\n", i + 1, r.label.c_str(),
                    r.records, r.measured.size(), r.tauRecorded, r.tauPredicted, r.gapRecorded,
                    r.gapPredicted);
    }
    return kExitOk;
}

} // namespace egopt::cli
