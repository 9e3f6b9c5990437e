// Several devices in one process (docs/pipeline.md, "Several devices"): which devices a run uses,
// and the pool that hands jobs out to one host thread per device.
#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"
#include "stages.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace egopt::pipeline {

std::vector<runtime::Device> selectDevices(const Options& options) {
    std::vector<runtime::Device> all = runtime::listDevices();
    if (options.devices.empty()) {
        return {runtime::chooseDevice(all, options.device)};
    }
    std::vector<runtime::Device> chosen = runtime::chooseDevices(all, options.devices);
    if (!options.device.empty()) {
        // The reference device goes first: it validates early and cross-checks the best.
        const runtime::Device& ref = runtime::chooseDevice(all, options.device);
        auto it = std::find_if(chosen.begin(), chosen.end(),
                               [&](const runtime::Device& d) { return d.index == ref.index; });
        if (it == chosen.end()) {
            badInput("--device " + options.device + " (" + ref.describe() +
                     ") is not among --devices " + options.devices);
        }
        std::rotate(chosen.begin(), it, it + 1);
    }
    // Timings of different models are never compared: a candidate measured on one model and
    // another on a different one would be ranked by the hardware, not by the kernel.
    for (const runtime::Device& d : chosen) {
        if (!runtime::sameModel(d, chosen.front())) {
            badInput("--devices: " + d.describe() + " is not the same model as " +
                     chosen.front().describe() +
                     " (name, vendor, platform, OpenCL and driver "
                     "versions must match so that their timings compare)");
        }
    }
    return chosen;
}

void forEachJob(size_t jobs, size_t workers, const std::function<void(size_t, size_t)>& job) {
    if (workers <= 1 || jobs <= 1) {
        for (size_t j = 0; j < jobs; ++j) {
            job(j, 0);
        }
        return;
    }
    size_t started = std::min(workers, jobs);
    std::atomic<size_t> next{started};
    std::mutex failed;
    std::exception_ptr first;
    auto loop = [&](size_t worker) {
        // Worker w starts with job w, so every device gets work however fast the first jobs
        // end; then each takes the next job when it is free (one slow kernel does not hold back
        // the other devices).
        for (size_t j = worker; j < jobs; j = next.fetch_add(1)) {
            try {
                job(j, worker);
            } catch (...) {
                std::lock_guard lock(failed);
                first = first ? first : std::current_exception();
                next.store(jobs); // stop handing out jobs
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 0; w < started; ++w) {
        threads.emplace_back(loop, w);
    }
    for (auto& t : threads) {
        t.join();
    }
    if (first) {
        std::rethrow_exception(first);
    }
}

} // namespace egopt::pipeline
