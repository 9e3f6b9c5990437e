// `egopt devices`: the OpenCL devices this machine offers, indexed as --device expects them.
#include "cli.hpp"
#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"

#include <iostream>

namespace egopt::cli {

int runDevices(const Args& /*args*/) {
    std::cout << runtime::formatDeviceTable(runtime::listDevices());
    return kExitOk;
}

} // namespace egopt::cli
