// Measurement records: one JSON object per line (JSONL), appended as candidates run.
#include "detail.hpp"
#include "egopt/support/diagnostic.hpp"

#include <fstream>

namespace egopt::costmodel {

using nlohmann::json;

std::string recordToJson(const Record& r) {
    json sizes = json::object();
    for (const auto& [k, v] : r.sizes) {
        sizes[k] = v;
    }
    json kernels = json::array();
    for (const auto& k : r.features.kernels) {
        json e = detail::featuresToJson(k);
        e["name"] = k.name;
        kernels.push_back(e);
    }
    json j{{"device", r.device},
           {"device_class", r.deviceClass},
           {"label", r.label},
           {"sizes", sizes},
           {"program", r.program},
           {"features", detail::featuresToJson(r.features.total)},
           {"kernels", kernels},
           {"predicted", r.predicted},
           {"measured", r.measuredSeconds}};
    if (!r.source.empty()) {
        j["source"] = r.source;
    }
    return j.dump();
}

void appendRecord(const std::string& path, const Record& record) {
    std::ofstream out(path, std::ios::app);
    if (!out || !(out << recordToJson(record) << "\n")) {
        badInput("cannot append to record file '" + path + "'");
    }
}

namespace {

Record recordFromJson(const json& j, const std::string& where) {
    if (!j.is_object() || !j.contains("features") || !j.contains("measured") ||
        !j["measured"].is_number()) {
        badInput(where + ": expected a record object with 'features' and a numeric 'measured'");
    }
    Record r;
    r.device = j.value("device", "");
    r.deviceClass = j.value("device_class", "");
    r.label = j.value("label", "");
    r.program = j.value("program", "");
    r.source = j.value("source", "");
    r.predicted = j.value("predicted", 0.0);
    r.measuredSeconds = j["measured"];
    if (j.contains("sizes") && j["sizes"].is_object()) {
        for (const auto& [k, v] : j["sizes"].items()) {
            r.sizes[k] = v.is_number_integer() ? v.get<int64_t>() : 0;
        }
    }
    r.features.total = detail::featuresFromJson(j["features"], where);
    if (j.contains("kernels") && j["kernels"].is_array()) {
        for (const auto& k : j["kernels"]) {
            r.features.kernels.push_back(detail::featuresFromJson(k, where));
        }
    }
    return r;
}

} // namespace

std::vector<Record> readRecords(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        badInput("cannot read record file '" + path + "'");
    }
    std::vector<Record> out;
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        std::string where = path + ":" + std::to_string(n);
        json j;
        try {
            j = json::parse(line);
        } catch (const json::parse_error& e) {
            badInput(where + ": not valid JSON: " + e.what());
        }
        out.push_back(recordFromJson(j, where));
    }
    return out;
}

} // namespace egopt::costmodel
