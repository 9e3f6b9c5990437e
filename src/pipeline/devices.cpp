// Several devices in one process (docs/pipeline.md, "Several devices"): which devices a run uses,
// and the pool that hands jobs out to one host thread per device.
#include "egopt/lift/sizes.hpp"
#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"
#include "jobs.hpp"
#include "stages.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
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

namespace {

// Bytes of one value of `t` at the concrete sizes (long double: absurd sizes must not wrap).
long double valueBytes(const lift::TypeArena& types, lift::TypeId t) {
    long double n = 1;
    for (; types.isArray(t); t = types.elemOf(t)) {
        n *= static_cast<long double>(types.lengthOf(t).constant().value_or(0));
    }
    return n * static_cast<long double>(types.byteSize(t));
}

std::string showBytes(long double bytes) {
    return bytes >= 1e9L ? fmt("%.1f GB", static_cast<double>(bytes / 1e9L))
                         : fmt("%.1f MB", static_cast<double>(bytes / 1e6L));
}

} // namespace

void checkDataFits(lift::Program& program, lift::TypeId resultType, const arith::Bindings& sizes,
                   const runtime::Device& device) {
    std::map<std::string, arith::Size, std::less<>> sizeMap;
    for (const auto& [k, v] : sizes) {
        sizeMap.emplace(k, arith::Size(v));
    }
    std::vector<std::pair<std::string, lift::TypeId>> data{{"the result", resultType}};
    for (lift::NodeId p : program.lambdaParams(program.root)) {
        const lift::ParamInfo& param = program.params.at(static_cast<size_t>(program.node(p).ival));
        data.emplace_back("parameter '" + param.name + "'", param.declaredType);
    }
    long double total = 0;
    for (const auto& [what, type] : data) {
        long double bytes = valueBytes(program.types, program.types.substitute(type, sizeMap));
        total += bytes;
        if (device.maxAllocBytes != 0 && bytes > static_cast<long double>(device.maxAllocBytes)) {
            badInput(what + " is " + showBytes(bytes) + " at " +
                     lift::showBindings(program, sizes) + ", more than the largest buffer of " +
                     device.describe() + " (" +
                     showBytes(static_cast<long double>(device.maxAllocBytes)) +
                     ", CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
        }
    }
    if (device.globalMemBytes != 0 && total > static_cast<long double>(device.globalMemBytes)) {
        badInput("the parameters and the result are " + showBytes(total) + " at " +
                 lift::showBindings(program, sizes) + ", more than the memory of " +
                 device.describe() + " (" +
                 showBytes(static_cast<long double>(device.globalMemBytes)) + ")");
    }
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

namespace {

// The jobs of one forEachJob call with worker processes: a queue that the local device threads
// and the calling thread (which alone talks to the workers) take from, and into which a lost
// job goes back at the front.
class JobQueue {
public:
    explicit JobQueue(size_t jobs) : open_(jobs), losses_(jobs, 0) {
        for (size_t j = 0; j < jobs; ++j) {
            todo_.push_back(j);
        }
    }

    // The next job for a local device (waiting while others may still come back); nullopt when
    // all are done or one failed.
    std::optional<size_t> waitNext() {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return !todo_.empty() || open_ == 0 || first_; });
        return takeLocked();
    }
    std::optional<size_t> tryNext() {
        std::lock_guard lock(m_);
        return takeLocked();
    }
    void done() {
        std::lock_guard lock(m_);
        --open_;
        cv_.notify_all();
    }
    // A lost job: handed out again unless lost before (then false: abandon it).
    bool requeue(size_t j) {
        std::lock_guard lock(m_);
        if (++losses_[j] > 1) {
            return false;
        }
        todo_.push_front(j);
        cv_.notify_all();
        return true;
    }
    void fail(std::exception_ptr e) {
        std::lock_guard lock(m_);
        first_ = first_ ? first_ : e;
        cv_.notify_all();
    }
    bool finished() {
        std::lock_guard lock(m_);
        return open_ == 0 || first_;
    }
    std::exception_ptr failure() {
        std::lock_guard lock(m_);
        return first_;
    }

private:
    std::optional<size_t> takeLocked() {
        if (todo_.empty() || open_ == 0 || first_) {
            return std::nullopt;
        }
        size_t j = todo_.front();
        todo_.pop_front();
        return j;
    }
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<size_t> todo_;
    size_t open_;
    std::vector<int> losses_;
    std::exception_ptr first_;
};

// The calling thread's part: sends jobs to workers with room, takes their replies, puts lost
// jobs back; returns once every job is done (or one failed and no reply is outstanding).
void dispatch(JobQueue& queue, RemoteJobs& r) {
    constexpr std::chrono::milliseconds kPoll{5};
    size_t inFlight = 0;
    while (inFlight > 0 || !queue.finished()) {
        try {
            while (r.remote.room() > 0) {
                std::optional<size_t> j = queue.tryNext();
                if (!j) {
                    break;
                }
                if (std::optional<RemoteJobs::Message> m = r.encode(*j)) {
                    r.remote.send(*j, m->bytes, m->seconds);
                    ++inFlight;
                } else {
                    queue.done(); // settled here (not started)
                }
            }
            for (const Remote::Event& e : r.remote.poll(kPoll)) {
                --inFlight;
                if (!e.lost) {
                    r.finish(e.id, e.reply, e.rank);
                    queue.done();
                } else if (queue.requeue(e.id)) {
                    ++r.reassigned;
                } else {
                    r.abandon(e.id, e.why);
                    queue.done();
                }
            }
        } catch (...) {
            queue.fail(std::current_exception());
            if (inFlight == 0) {
                return;
            }
        }
    }
}

} // namespace

void forEachJob(size_t jobs, size_t workers, const std::function<void(size_t, size_t)>& job,
                RemoteJobs* remote) {
    if (!remote) {
        forEachJob(jobs, workers, job);
        return;
    }
    JobQueue queue(jobs);
    auto loop = [&](size_t worker) {
        while (std::optional<size_t> j = queue.waitNext()) {
            try {
                job(*j, worker);
            } catch (...) {
                queue.fail(std::current_exception());
            }
            queue.done();
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w) {
        threads.emplace_back(loop, w);
    }
    dispatch(queue, *remote);
    for (auto& t : threads) {
        t.join();
    }
    if (std::exception_ptr e = queue.failure()) {
        std::rethrow_exception(e);
    }
}

namespace {

runtime::Device asDevice(const DeviceFacts& f) {
    runtime::Device d;
    d.index = f.index;
    d.name = f.name;
    d.vendor = f.vendor;
    d.platformName = f.platformName;
    d.platformVersion = f.platformVersion;
    d.version = f.version;
    d.driverVersion = f.driverVersion;
    return d;
}

// How long the coordinator waits for every worker to list its devices.
constexpr std::chrono::seconds kStartWait{60};

} // namespace

void startWorkers(Work& w, Result& result) {
    JobSetup setup{w.original, w.sizes, w.options.seed, w.codegen, w.assumed};
    RankResult self{0, w.options.remote->host(), {}, 0, ""};
    for (const auto& b : w.benches) {
        self.devices.push_back(b->device().index);
    }
    result.ranks.push_back(self);
    for (const Remote::Worker& worker : w.options.remote->start(encodeSetup(setup), kStartWait)) {
        RankResult rank{worker.rank, worker.host, {}, 0, ""};
        for (const DeviceFacts& f : worker.devices) {
            // As with --devices: timings of different models are never compared.
            if (!runtime::sameModel(asDevice(f), w.bench().device())) {
                badInput(fmt("MPI rank %d: %s is not the same model as the reference device %s "
                             "(name, vendor, platform, OpenCL and driver versions must match so "
                             "that their timings compare)",
                             worker.rank, f.description.c_str(),
                             w.bench().device().describe().c_str()));
            }
            rank.devices.push_back(f.index);
            result.devices.push_back({f.index, f.description, worker.rank});
            ++w.remoteDevices;
        }
        result.ranks.push_back(std::move(rank));
    }
    result.notes.push_back(fmt("%zu MPI ranks: rank 0 coordinates and times on %zu device(s), "
                               "%zu worker rank(s) on %zu device(s) of the same model",
                               result.ranks.size(), w.benches.size(), result.ranks.size() - 1,
                               w.remoteDevices));
}

void finishWorkers(const Work& w, Result& result) {
    for (const auto& [rank, why] : w.options.remote->lost()) {
        auto it = std::find_if(result.ranks.begin(), result.ranks.end(),
                               [&](const RankResult& r) { return r.rank == rank; });
        if (it == result.ranks.end()) {
            it = result.ranks.insert(result.ranks.end(), RankResult{rank, "", {}, 0, ""});
        }
        it->lost = why;
        result.notes.push_back(
            fmt("MPI rank %d lost: %s; its jobs were handed out again", rank, why.c_str()));
    }
    for (RankResult& r : result.ranks) {
        auto it = w.rankJobs.find(r.rank);
        r.jobs = it == w.rankJobs.end() ? 0 : it->second;
    }
    if (w.reassignedJobs > 0) {
        result.notes.push_back(fmt("%zu device job(s) reassigned after their worker rank was "
                                   "lost",
                                   w.reassignedJobs));
    }
}

} // namespace egopt::pipeline
