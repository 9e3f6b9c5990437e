#include "egopt/runtime/device.hpp"

#include "egopt/runtime/handle.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iomanip>
#include <optional>
#include <sstream>

namespace egopt::runtime {

namespace {

// Defined by cl_ext.h as CL_PLATFORM_NOT_FOUND_KHR; repeated here to avoid the extension header.
constexpr cl_int kPlatformNotFound = -1001;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool containsIgnoringCase(std::string_view haystack, std::string_view needle) {
    return lower(haystack).find(lower(needle)) != std::string::npos;
}

// Drivers include the terminating NUL in the reported size, and some pad with trailing spaces.
std::string trimmed(std::string text) {
    while (!text.empty() &&
           (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back())))) {
        text.pop_back();
    }
    return text;
}

std::string platformString(cl_platform_id platform, cl_platform_info param) {
    size_t size = 0;
    checkCl(clGetPlatformInfo(platform, param, 0, nullptr, &size), "clGetPlatformInfo");
    std::string value(size, '\0');
    checkCl(clGetPlatformInfo(platform, param, size, value.data(), nullptr), "clGetPlatformInfo");
    return trimmed(std::move(value));
}

std::string deviceString(cl_device_id device, cl_device_info param) {
    size_t size = 0;
    checkCl(clGetDeviceInfo(device, param, 0, nullptr, &size), "clGetDeviceInfo");
    std::string value(size, '\0');
    checkCl(clGetDeviceInfo(device, param, size, value.data(), nullptr), "clGetDeviceInfo");
    return trimmed(std::move(value));
}

template <typename T>
T deviceValue(cl_device_id device, cl_device_info param) {
    T value{};
    checkCl(clGetDeviceInfo(device, param, sizeof value, &value, nullptr), "clGetDeviceInfo");
    return value;
}

std::string typeName(cl_device_type type) {
    std::string out;
    auto add = [&](cl_device_type bit, const char* name) {
        if (type & bit) {
            out += out.empty() ? name : std::string("|") + name;
        }
    };
    add(CL_DEVICE_TYPE_CPU, "CPU");
    add(CL_DEVICE_TYPE_GPU, "GPU");
    add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
    add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
    return out.empty() ? "OTHER" : out;
}

std::vector<cl_platform_id> platformIds() {
    cl_uint count = 0;
    cl_int status = clGetPlatformIDs(0, nullptr, &count);
    if (status == kPlatformNotFound || (status == CL_SUCCESS && count == 0)) {
        throw Error(ErrorKind::Internal,
                    "no OpenCL platform is installed (the ICD loader found no drivers; "
                    "check /etc/OpenCL/vendors or install e.g. pocl-opencl-icd)");
    }
    checkCl(status, "clGetPlatformIDs");
    std::vector<cl_platform_id> ids(count);
    checkCl(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
    return ids;
}

// A platform without devices answers CL_DEVICE_NOT_FOUND, which is not an error for listing.
std::vector<cl_device_id> deviceIds(cl_platform_id platform) {
    cl_uint count = 0;
    cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND || count == 0) {
        return {};
    }
    checkCl(status, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(count);
    checkCl(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr),
            "clGetDeviceIDs");
    return ids;
}

Device describeDevice(const Device& platformPart, cl_device_id id) {
    Device d = platformPart;
    d.id = id;
    d.name = deviceString(id, CL_DEVICE_NAME);
    d.vendor = deviceString(id, CL_DEVICE_VENDOR);
    d.version = deviceString(id, CL_DEVICE_VERSION);
    d.driverVersion = deviceString(id, CL_DRIVER_VERSION);
    d.type = typeName(deviceValue<cl_device_type>(id, CL_DEVICE_TYPE));
    d.computeUnits = deviceValue<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
    d.maxWorkGroupSize = deviceValue<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    auto dims = std::min<cl_uint>(3, deviceValue<cl_uint>(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS));
    std::vector<size_t> items(std::max<cl_uint>(dims, 1), 0);
    if (dims > 0 && clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dims,
                                    items.data(), nullptr) == CL_SUCCESS) {
        std::copy_n(items.begin(), dims, d.maxWorkItemSizes.begin());
    }
    d.localMemBytes = deviceValue<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
    d.globalMemBytes = deviceValue<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
    d.maxAllocBytes = deviceValue<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    d.maxClockMHz = deviceValue<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    return d;
}

std::optional<size_t> parseIndex(std::string_view spec) {
    size_t value = 0;
    auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), value);
    if (ec != std::errc() || end != spec.data() + spec.size()) {
        return std::nullopt;
    }
    return value;
}

std::string deviceList(const std::vector<Device>& devices) {
    std::string out;
    for (const Device& d : devices) {
        out += "\n  " + d.describe();
    }
    return out;
}

[[noreturn]] void noMatch(const std::vector<Device>& devices, std::string_view spec,
                          std::string_view why) {
    badInput("no OpenCL device matches '" + std::string(spec) + "' (" + std::string(why) +
             "); available devices:" + deviceList(devices));
}

std::string memSize(uint64_t bytes) {
    if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) {
        return std::to_string(bytes >> 30) + " GiB";
    }
    if (bytes >= 1024) {
        return std::to_string(bytes >> 10) + " KiB";
    }
    return std::to_string(bytes) + " B";
}

} // namespace

bool Device::isPocl() const {
    return containsIgnoringCase(platformName, "portable computing language") ||
           containsIgnoringCase(platformVendor, "pocl") ||
           containsIgnoringCase(platformVersion, "pocl");
}

std::string Device::describe() const {
    return std::to_string(index) + ": " + platformName + " / " + name + " (" + type + ")";
}

std::vector<Device> listDevices() {
    std::vector<Device> devices;
    for (cl_platform_id platform : platformIds()) {
        Device platformPart;
        platformPart.platformId = platform;
        platformPart.platformName = platformString(platform, CL_PLATFORM_NAME);
        platformPart.platformVendor = platformString(platform, CL_PLATFORM_VENDOR);
        platformPart.platformVersion = platformString(platform, CL_PLATFORM_VERSION);
        for (cl_device_id id : deviceIds(platform)) {
            devices.push_back(describeDevice(platformPart, id));
            devices.back().index = devices.size() - 1;
        }
    }
    if (devices.empty()) {
        throw Error(ErrorKind::Internal, "OpenCL platforms are installed but none has a device");
    }
    return devices;
}

const Device& chooseDevice(const std::vector<Device>& devices, std::string_view spec) {
    if (devices.empty()) {
        throw Error(ErrorKind::Internal, "no OpenCL device is available");
    }
    if (spec.empty()) {
        auto pocl = std::find_if(devices.begin(), devices.end(),
                                 [](const Device& d) { return d.isPocl(); });
        return pocl != devices.end() ? *pocl : devices.front();
    }
    if (std::optional<size_t> index = parseIndex(spec)) {
        if (*index >= devices.size()) {
            noMatch(devices, spec, "index out of range");
        }
        return devices[*index];
    }
    auto match = std::find_if(devices.begin(), devices.end(), [&](const Device& d) {
        return containsIgnoringCase(d.platformName, spec) ||
               containsIgnoringCase(d.platformVendor, spec) || containsIgnoringCase(d.name, spec);
    });
    if (match == devices.end()) {
        noMatch(devices, spec, "not a platform or device name");
    }
    return *match;
}

std::vector<Device> chooseDevices(const std::vector<Device>& devices, std::string_view spec) {
    if (spec == "all") {
        return devices;
    }
    std::vector<Device> chosen;
    for (size_t start = 0; start <= spec.size();) {
        size_t comma = std::min(spec.find(',', start), spec.size());
        std::string_view one = spec.substr(start, comma - start);
        start = comma + 1;
        if (one.empty()) {
            badInput("--devices: empty device spec in '" + std::string(spec) +
                     "' (expected all, or indices or names separated by commas)");
        }
        const Device& d = chooseDevice(devices, one);
        if (std::any_of(chosen.begin(), chosen.end(),
                        [&](const Device& c) { return c.index == d.index; })) {
            badInput("--devices: device " + d.describe() + " is named twice in '" +
                     std::string(spec) + "'");
        }
        chosen.push_back(d);
    }
    return chosen;
}

bool sameModel(const Device& a, const Device& b) {
    return a.name == b.name && a.vendor == b.vendor && a.platformName == b.platformName &&
           a.platformVersion == b.platformVersion && a.version == b.version &&
           a.driverVersion == b.driverVersion;
}

Device selectDevice(std::string_view spec) {
    return chooseDevice(listDevices(), spec);
}

std::string formatDeviceTable(const std::vector<Device>& devices) {
    std::ostringstream out;
    out << std::left << std::setw(6) << "index" << std::setw(30) << "platform" << std::setw(36)
        << "device" << std::setw(6) << "type" << std::right << std::setw(5) << "CUs" << std::setw(9)
        << "max WG" << std::setw(17) << "max items/dim" << std::setw(11) << "local mem"
        << "\n";
    for (const Device& d : devices) {
        out << std::left << std::setw(6) << d.index << std::setw(30) << d.platformName.substr(0, 29)
            << std::setw(36) << d.name.substr(0, 35) << std::setw(6) << d.type << std::right
            << std::setw(5) << d.computeUnits << std::setw(9) << d.maxWorkGroupSize << std::setw(17)
            << (std::to_string(d.maxWorkItemSizes[0]) + "," +
                std::to_string(d.maxWorkItemSizes[1]) + "," + std::to_string(d.maxWorkItemSizes[2]))
            << std::setw(11) << memSize(d.localMemBytes) << "\n";
    }
    return out.str();
}

} // namespace egopt::runtime
