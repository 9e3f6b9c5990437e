// How an OpenCL driver shapes an NDRange launched without a local size (the cost model's
// launch features, features.cpp).
#include "detail.hpp"

#include <algorithm>

namespace egopt::costmodel::detail {

// The work-group size a driver picks for dimension 0: the largest divisor of the global size
// that is at most the profile's preference.
int64_t driverLocal(int64_t global, double preferred) {
    for (int64_t l = std::max<int64_t>(1, static_cast<int64_t>(preferred)); l > 1; --l) {
        if (global % l == 0) {
            return l;
        }
    }
    return 1;
}

// PoCL (3.1, probed on the 2-core EPYC) does not split an NDRange into work-groups of fewer than
// kMinSplitItems work-items: 48 work-items, or [1,1,2], run as one work-group on one core, 64 as
// two groups of 32 (in any dimension).
constexpr int64_t kMinSplitItems = 32;

bool smallRange(const std::array<int64_t, 3>& global, const DeviceProfile& profile) {
    int64_t items = global[0] * global[1] * global[2];
    return items < 2 * kMinSplitItems && static_cast<double>(items) <= profile.maxWorkGroupSize;
}

} // namespace egopt::costmodel::detail
