// The sanitizer run (scripts/test --sanitize sets EGOPT_SANITIZER_RUN): the suite built with
// AddressSanitizer and UBSan runs many times slower than the normal build (its libraries at -Og,
// the tests at -O0). There it looks for memory and undefined-behaviour errors along the same code
// paths, so the heaviest tests take smaller workloads; the statistics and the large cases are the
// normal run's.
#pragma once

#include <cstdlib>

namespace egopt::testenv {

inline bool sanitizerRun() {
    return std::getenv("EGOPT_SANITIZER_RUN") != nullptr;
}

// `normal` in the normal run, `reduced` in the sanitizer run.
template <class T>
T unlessSanitized(T normal, T reduced) {
    return sanitizerRun() ? reduced : normal;
}

} // namespace egopt::testenv
