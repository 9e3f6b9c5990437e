// egopt fit: fits the learned cost model (costmodel/) to recorded measurements and reports how
// well the recorded predictions and the fitted model rank the measured times.
#include "cli.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/support/diagnostic.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace egopt::cli {

namespace {

double parseRidge(const std::string& s) {
    try {
        size_t used = 0;
        double r = std::stod(s, &used);
        if (used == s.size() && r >= 0) {
            return r;
        }
    } catch (const std::exception&) {
    }
    badInput("--ridge: expected a non-negative number, got '" + s + "'");
}

void printTau(const std::string& what, const std::vector<costmodel::Record>& records,
              const std::vector<double>& predicted) {
    std::vector<double> measured;
    for (const auto& r : records) {
        measured.push_back(r.measuredSeconds);
    }
    std::cout << "  Kendall's tau (" << what << " vs measured): " << std::fixed
              << std::setprecision(3) << costmodel::kendallTau(predicted, measured) << "\n";
}

} // namespace

int runFit(const Args& args) {
    auto output = args.value("output");
    if (!output) {
        badInput("fit: -o model.json is required");
    }
    std::vector<costmodel::Record> records;
    for (const auto& file : args.positional) {
        auto more = costmodel::readRecords(file);
        records.insert(records.end(), more.begin(), more.end());
    }
    costmodel::FitOptions opt;
    if (auto r = args.value("ridge")) {
        opt.ridge = parseRidge(*r);
    }
    if (auto f = args.value("features")) {
        opt.features = splitCommas(*f);
    }
    costmodel::LearnedModel model = costmodel::fitLearned(records, opt);
    costmodel::saveModel(model, *output);
    std::cout << "fitted " << model.features.size() << " features on " << model.trainedOn
              << " records (ridge " << model.ridge << ") -> " << *output << "\n";
    for (size_t i = 0; i < model.features.size(); ++i) {
        std::cout << "  " << std::left << std::setw(24) << model.features[i] << std::right
                  << std::showpos << std::setprecision(4) << model.weights[i] << std::noshowpos
                  << "\n";
    }
    std::cout << "  bias " << model.bias << "\n";
    std::vector<double> recorded, fitted;
    for (const auto& r : records) {
        recorded.push_back(r.predicted);
        fitted.push_back(model.predictSeconds(r.features, {}));
    }
    printTau("recorded predictions", records, recorded);
    printTau("fitted model, in sample", records, fitted);
    return kExitOk;
}

} // namespace egopt::cli
