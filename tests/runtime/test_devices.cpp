#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::runtime;

namespace {

Device fakeDevice(size_t index, std::string platform, std::string vendor, std::string name) {
    Device d;
    d.index = index;
    d.platformName = std::move(platform);
    d.platformVendor = std::move(vendor);
    d.name = std::move(name);
    d.type = "GPU";
    return d;
}

std::vector<Device> fakeDevices() {
    return {fakeDevice(0, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H100 80GB HBM3"),
            fakeDevice(1, "Portable Computing Language", "The pocl project", "pthread-haswell"),
            fakeDevice(2, "Intel(R) OpenCL", "Intel(R) Corporation", "Intel Xeon")};
}

} // namespace

TEST_CASE("the installed OpenCL devices are listed", "[runtime]") {
    std::vector<Device> devices = listDevices();
    REQUIRE_FALSE(devices.empty());
    for (size_t i = 0; i < devices.size(); ++i) {
        CHECK(devices[i].index == i);
        CHECK_FALSE(devices[i].name.empty());
        CHECK(devices[i].computeUnits > 0);
        CHECK(devices[i].maxWorkGroupSize > 0);
        CHECK(devices[i].localMemBytes > 0);
        CHECK(devices[i].globalMemBytes > 0);
        CHECK(devices[i].maxAllocBytes > 0);
        CHECK(devices[i].maxAllocBytes <= devices[i].globalMemBytes);
        CHECK(devices[i].maxWorkItemSizes[0] > 0); // every device has dimension 0
    }
    std::string table = formatDeviceTable(devices);
    CHECK(table.find(devices[0].name.substr(0, 20)) != std::string::npos);
    CHECK(table.find("max items/dim") != std::string::npos);
    CHECK(table.find(std::to_string(devices[0].maxWorkItemSizes[0]) + ",") != std::string::npos);
}

TEST_CASE("devices are selected by index and by name", "[runtime]") {
    std::vector<Device> devices = listDevices();
    CHECK(selectDevice("0").id == devices[0].id);
    Device pocl = selectDevice("pocl");
    CHECK(pocl.isPocl());
    CHECK(selectDevice("PORTABLE computing").id == pocl.id);
    CHECK(selectDevice("").id == pocl.id);
}

TEST_CASE("device specs are matched against platform, vendor and device names", "[runtime]") {
    std::vector<Device> devices = fakeDevices();
    CHECK(chooseDevice(devices, "").index == 1); // PoCL preferred by default
    CHECK(chooseDevice(devices, "nvidia").index == 0);
    CHECK(chooseDevice(devices, "xeon").index == 2);
    CHECK(chooseDevice(devices, "POCL").index == 1);
    CHECK(chooseDevice(devices, "2").index == 2);
    std::vector<Device> noPocl = {devices[0], devices[2]};
    CHECK(chooseDevice(noPocl, "").index == 0);
}

TEST_CASE("an unknown device spec is an error listing the devices", "[runtime]") {
    std::vector<Device> devices = fakeDevices();
    for (const char* spec : {"radeon", "7"}) {
        try {
            chooseDevice(devices, spec);
            FAIL("no error for " << spec);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::BadInput);
            std::string message = e.what();
            CHECK(message.find(spec) != std::string::npos);
            CHECK(message.find("0: NVIDIA CUDA / NVIDIA H100 80GB HBM3") != std::string::npos);
            CHECK(message.find("2: Intel(R) OpenCL / Intel Xeon") != std::string::npos);
        }
    }
    CHECK_THROWS_WITH(selectDevice("no-such-device-xyz"),
                      Catch::Contains("available devices") && Catch::Contains("0: "));
    CHECK_THROWS_AS(chooseDevice({}, ""), Error);
}
