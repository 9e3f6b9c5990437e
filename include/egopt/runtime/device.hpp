// OpenCL device discovery and selection.
//
// Devices are listed in a fixed order: platforms as clGetPlatformIDs returns them, and within a
// platform its devices as clGetDeviceIDs(CL_DEVICE_TYPE_ALL) returns them. A device's index is its
// position in that flattened list; it is what `egopt devices` prints and what `--device 0` means.
#pragma once

#include <CL/cl.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::runtime {

// A device and the properties that the code generator and the tuner care about. A plain value:
// platform and device ids stay valid for the life of the process.
struct Device {
    size_t index = 0; // position in listDevices()
    std::string platformName;
    std::string platformVendor;
    std::string platformVersion;
    std::string name;
    std::string vendor;
    std::string version;       // "OpenCL 3.0 ..."
    std::string driverVersion; // CL_DRIVER_VERSION
    std::string type;          // "CPU", "GPU", "ACCELERATOR", or several joined by "|"
    cl_uint computeUnits = 0;
    size_t maxWorkGroupSize = 0;
    // CL_DEVICE_MAX_WORK_ITEM_SIZES: the largest local size per dimension (NVIDIA: 1024, 1024,
    // 64); 0 where the device has fewer dimensions or did not say.
    std::array<size_t, 3> maxWorkItemSizes{0, 0, 0};
    uint64_t localMemBytes = 0;
    uint64_t globalMemBytes = 0;
    uint64_t maxAllocBytes = 0; // CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest single buffer
    cl_uint maxClockMHz = 0;
    cl_platform_id platformId = nullptr;
    cl_device_id id = nullptr;

    // True for the Portable Computing Language (PoCL) CPU implementation.
    bool isPocl() const;
    // "0: Portable Computing Language / pthread-haswell (CPU)".
    std::string describe() const;
};

// Every device of every platform. Throws egopt::Error (Internal) when no OpenCL platform is
// installed (clGetPlatformIDs says CL_PLATFORM_NOT_FOUND_KHR or reports zero platforms) or when
// the platforms have no devices.
std::vector<Device> listDevices();

// Picks one device of `devices` by spec:
//   ""        the first PoCL device if there is one, else the first device;
//   "N"       (decimal digits) the device with index N;
//   otherwise the first device whose platform name, platform vendor or device name contains the
//             spec, ignoring case ("nvidia", "pocl", "EPYC").
// Throws egopt::Error (BadInput) listing the available devices when nothing matches, and
// egopt::Error (Internal) when `devices` is empty.
const Device& chooseDevice(const std::vector<Device>& devices, std::string_view spec);

// Several devices of `devices` (--devices): "all", or a comma-separated list of specs as
// chooseDevice takes them ("0,1", "nvidia"), in the order given. Throws egopt::Error (BadInput)
// when a spec matches nothing, the list is empty or names a device twice.
std::vector<Device> chooseDevices(const std::vector<Device>& devices, std::string_view spec);

// True when timings on `a` and `b` are comparable: the same device model (name, vendor) under
// the same platform, OpenCL version and driver.
bool sameModel(const Device& a, const Device& b);

// chooseDevice(listDevices(), spec), returned by value.
Device selectDevice(std::string_view spec);

// One line per device: index, platform, device, type, compute units, max work-group size and
// local memory, in aligned columns under a header line.
std::string formatDeviceTable(const std::vector<Device>& devices);

} // namespace egopt::runtime
