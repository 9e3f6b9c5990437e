// Model files (costmodel/*.json): finding, parsing with errors that name the file and what was
// expected, and writing.
#include "detail.hpp"
#include "egopt/support/diagnostic.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace egopt::costmodel {

using nlohmann::json;

namespace detail {

namespace {

// The calibrated constants as JSON keys.
std::vector<std::pair<const char*, double DeviceProfile::*>> constantKeys() {
    return {{"global_bandwidth", &DeviceProfile::globalBandwidth},
            {"strided_penalty", &DeviceProfile::stridedPenalty},
            {"local_bandwidth", &DeviceProfile::localBandwidth},
            {"flops_per_cu_per_cycle", &DeviceProfile::flopsPerCuPerCycle},
            {"stmts_per_cu_per_cycle", &DeviceProfile::stmtsPerCuPerCycle},
            {"launch_overhead", &DeviceProfile::launchOverhead},
            {"barrier_cost", &DeviceProfile::barrierCost},
            {"lanes", &DeviceProfile::lanes},
            {"driver_local_size", &DeviceProfile::driverLocalSize},
            {"group_overhead", &DeviceProfile::groupOverhead},
            {"saturation_items", &DeviceProfile::saturationItems},
            {"register_file_bytes", &DeviceProfile::registerFileBytes},
            {"private_bytes_max", &DeviceProfile::privateBytesMax},
            {"dram_bytes_in_flight", &DeviceProfile::dramBytesInFlight},
            {"max_coalesced_bytes", &DeviceProfile::maxCoalescedBytes},
            {"coalesced_span_bytes", &DeviceProfile::coalescedSpanBytes},
            {"sector_bytes", &DeviceProfile::sectorBytes},
            {"cache_bytes", &DeviceProfile::cacheBytes},
            {"cache_bandwidth", &DeviceProfile::cacheBandwidth},
            {"cache_saturation_items", &DeviceProfile::cacheSaturationItems},
            {"transaction_bytes", &DeviceProfile::transactionBytes},
            {"transactions_per_cu_per_cycle", &DeviceProfile::transactionsPerCuPerCycle},
            {"compute_saturation_items", &DeviceProfile::computeSaturationItems},
            {"read_latency", &DeviceProfile::readLatency},
            {"local_banks", &DeviceProfile::localBanks}};
}

[[noreturn]] void bad(const std::string& file, const std::string& msg) {
    badInput("cost model " + file + ": " + msg);
}

double number(const json& j, const std::string& key, const std::string& file) {
    if (!j.is_number()) {
        bad(file, "'" + key + "' must be a number, got " + j.dump());
    }
    return j.get<double>();
}

} // namespace

json calibrationsToJson(const std::vector<Calibration>& classes) {
    json out = json::array();
    for (const auto& c : classes) {
        json e{{"class", c.deviceClass}, {"match", c.match}, {"gpu", c.constants.gpu}};
        for (const auto& [key, field] : constantKeys()) {
            e[key] = c.constants.*field;
        }
        out.push_back(e);
    }
    return out;
}

std::vector<Calibration> calibrationsFromJson(const json& j, const std::string& file) {
    if (!j.is_array() || j.empty()) {
        bad(file, "'classes' must be a non-empty array of device classes");
    }
    std::vector<Calibration> out;
    for (const auto& e : j) {
        if (!e.is_object() || !e.contains("class") || !e["class"].is_string()) {
            bad(file, "each device class must be an object with a string 'class'");
        }
        Calibration c;
        c.deviceClass = e["class"];
        c.match = e.value("match", "");
        c.constants.gpu = e.value("gpu", false);
        auto keys = constantKeys();
        for (const auto& [key, value] : e.items()) {
            auto it = std::find_if(keys.begin(), keys.end(),
                                   [&](const auto& k) { return key == k.first; });
            if (it != keys.end()) {
                c.constants.*(it->second) = number(value, key, file);
            } else if (key != "class" && key != "match" && key != "gpu" && key != "comment") {
                bad(file, "class '" + c.deviceClass + "': unknown key '" + key + "'");
            }
        }
        c.constants.deviceClass = c.deviceClass;
        out.push_back(std::move(c));
    }
    return out;
}

KernelFeatures featuresFromJson(const json& j, const std::string& where) {
    if (!j.is_object()) {
        badInput(where + ": 'features' must be an object of numbers");
    }
    std::vector<double> v;
    for (const auto& name : featureNames()) {
        v.push_back(j.contains(name) ? number(j[name], name, where) : 0.0);
    }
    KernelFeatures k;
    k.setValues(v);
    k.name = j.value("name", "");
    // Not a feature, but the analytic model reads it (registers); records before it read 0.
    k.privateBytes =
        j.contains("private_bytes") ? number(j["private_bytes"], "private_bytes", where) : 0.0;
    // Likewise the read bytes a work-item keeps in flight (records before it: not bounded).
    k.readBytesInFlight = j.contains("read_bytes_in_flight")
                              ? number(j["read_bytes_in_flight"], "read_bytes_in_flight", where)
                              : 0.0;
    return k;
}

json featuresToJson(const KernelFeatures& k) {
    json j = json::object();
    auto v = k.values();
    for (size_t i = 0; i < v.size(); ++i) {
        j[featureNames()[i]] = v[i];
    }
    j["private_bytes"] = k.privateBytes;
    j["read_bytes_in_flight"] = k.readBytesInFlight;
    return j;
}

} // namespace detail

std::string AnalyticModel::toJson() const {
    json j{{"kind", "analytic"}, {"classes", detail::calibrationsToJson(classes_)}};
    return j.dump(2) + "\n";
}

std::string LearnedModel::toJson() const {
    json j{{"kind", "learned"},
           {"features", features},
           {"weights", weights},
           {"bias", bias},
           {"ridge", ridge},
           {"trained_on", trainedOn},
           {"device_class", deviceClass}};
    if (!classes.empty()) {
        j["classes"] = detail::calibrationsToJson(classes);
    }
    return j.dump(2) + "\n";
}

namespace {

std::unique_ptr<Model> learnedFromJson(const json& j, const std::string& file) {
    auto m = std::make_unique<LearnedModel>();
    if (!j.contains("features") || !j["features"].is_array() || !j.contains("weights") ||
        !j["weights"].is_array() || !j.contains("bias") || !j["bias"].is_number()) {
        detail::bad(file, "a learned model needs 'features' (names), 'weights' (numbers) and "
                          "'bias' (a number)");
    }
    for (const auto& f : j["features"]) {
        if (!f.is_string() || std::find(featureNames().begin(), featureNames().end(),
                                        f.get<std::string>()) == featureNames().end()) {
            detail::bad(file, "unknown feature " + f.dump() + " (see docs/cost-models.md)");
        }
        m->features.push_back(f);
    }
    for (const auto& w : j["weights"]) {
        m->weights.push_back(detail::number(w, "weights", file));
    }
    if (m->weights.size() != m->features.size()) {
        detail::bad(file, std::to_string(m->features.size()) + " features but " +
                              std::to_string(m->weights.size()) + " weights");
    }
    m->bias = j["bias"];
    m->ridge = j.value("ridge", 0.0);
    m->trainedOn = j.value("trained_on", size_t{0});
    m->deviceClass = j.value("device_class", "");
    if (j.contains("classes")) {
        m->classes = detail::calibrationsFromJson(j["classes"], file);
    }
    return m;
}

} // namespace

std::unique_ptr<Model> parseModel(const std::string& text, const std::string& file) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        detail::bad(file, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) {
        detail::bad(file, "expected an object with \"kind\": \"analytic\" or \"learned\"");
    }
    std::string kind = j["kind"];
    std::unique_ptr<Model> m;
    if (kind == "analytic") {
        if (!j.contains("classes")) {
            detail::bad(file, "an analytic model needs 'classes' (device calibrations)");
        }
        m = std::make_unique<AnalyticModel>(detail::calibrationsFromJson(j["classes"], file));
    } else if (kind == "learned") {
        m = learnedFromJson(j, file);
    } else {
        detail::bad(file, "unknown kind '" + kind + "' (expected analytic or learned)");
    }
    m->source_ = file;
    return m;
}

std::string defaultModelDir() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates{"costmodel"};
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        candidates.push_back(exe.parent_path() / "../../costmodel");
        candidates.push_back(exe.parent_path() / "../costmodel");
        candidates.push_back(exe.parent_path() / "../share/egopt/costmodel");
    }
    for (const auto& c : candidates) {
        if (fs::exists(c / "analytic.json", ec)) {
            return c.string();
        }
    }
    return "";
}

std::unique_ptr<Model> loadModel(const std::string& nameOrFile) {
    std::string path = nameOrFile;
    if (nameOrFile == "analytic" || nameOrFile == "learned") {
        std::string dir = defaultModelDir();
        if (dir.empty()) {
            badInput("cannot find costmodel/" + nameOrFile +
                     ".json (looked in ./costmodel and beside the executable): pass a file");
        }
        path = dir + "/" + nameOrFile + ".json";
    }
    std::ifstream in(path);
    if (!in) {
        badInput("cannot read cost model '" + path +
                 "' (expected 'analytic', 'learned' or a model file)");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return parseModel(ss.str(), path);
}

void saveModel(const Model& model, const std::string& path) {
    std::ofstream out(path);
    if (!out || !(out << model.toJson())) {
        badInput("cannot write cost model '" + path + "'");
    }
}

} // namespace egopt::costmodel
