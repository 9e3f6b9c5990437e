// Internal helpers shared by the model files.
#pragma once

#include "egopt/costmodel/costmodel.hpp"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace egopt::costmodel::detail {

// The calibration of the first class matching the device (the OpenCL properties filled in).
DeviceProfile profileFrom(const std::vector<Calibration>& classes, const runtime::Device& device);

// Calibration classes to and from JSON; errors name `file`.
nlohmann::json calibrationsToJson(const std::vector<Calibration>& classes);
std::vector<Calibration> calibrationsFromJson(const nlohmann::json& j, const std::string& file);

// Feature values by name from a JSON object (missing names: 0); errors name `where`.
KernelFeatures featuresFromJson(const nlohmann::json& j, const std::string& where);
nlohmann::json featuresToJson(const KernelFeatures& k);

// C operations of a user-function body, counted on the interpreter's C AST (loops with constant
// trip counts multiply their bodies; a branch counts its larger arm); `lanes` scales vector code.
double countOps(const std::string& name, const std::string& body, double lanes);

// The work-group size a driver picks for dimension 0 of a launch without a local size: the
// largest divisor of the global size that is at most `preferred` (launch_shape.cpp).
int64_t driverLocal(int64_t global, double preferred);

// Whether a CPU driver (PoCL) runs the whole NDRange `global` as one work-group.
bool smallRange(const std::array<int64_t, 3>& global, const DeviceProfile& profile);

} // namespace egopt::costmodel::detail
