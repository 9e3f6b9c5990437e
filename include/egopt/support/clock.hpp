// Wall time on the steady clock, as the stages' timings report it.
#pragma once

#include <chrono>

namespace egopt {

// Seconds since `t`.
inline double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace egopt
