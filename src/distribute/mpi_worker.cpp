// A worker rank (docs/distributed.md): says which devices it has, takes the run's setup, runs
// jobs on one thread per device with pipeline::JobServer, and sends each reply back as it ends.
// The main thread alone talks to MPI; it also sends a heartbeat every kHeartbeatEvery, so that
// the coordinator can tell a worker that died from one whose jobs take long. A watchdog thread
// ends the process when the main thread stops making progress or outlives the run, so that a
// worker never keeps mpirun waiting.
#include "mpi_worker.hpp"

#include "egopt/pipeline/remote.hpp"
#include "egopt/support/clock.hpp"
#include "mpi_common.hpp"

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

namespace egopt::distribute {

namespace {

// Test hooks (tests/pipeline/test_distribute.cpp): rank 1 is killed when its job N+1 arrives, or
// its device thread hangs on job N+1 (until the process ends).
long testHook(const char* name, int rank) {
    const char* v = std::getenv(name);
    return v && *v && rank == 1 ? std::strtol(v, nullptr, 10) : -1;
}

class Worker {
public:
    Worker(int rank, const pipeline::Options& options)
        : rank_(rank), exitAfter_(testHook("EGOPT_TEST_WORKER_EXIT_AFTER", rank)),
          hangAfter_(testHook("EGOPT_TEST_WORKER_HANG_AFTER", rank)),
          // With a time budget the run ends by then; a worker that has heard nothing from the
          // coordinator for that long (and 5 minutes more) outlived it.
          idleLimit_(options.timeBudget > 0 ? options.timeBudget + 300 : 0) {
        try {
            server_ = std::make_unique<pipeline::JobServer>(options);
        } catch (const std::exception& e) {
            failure_ = e.what();
        }
    }

    [[noreturn]] void run() {
        std::vector<pipeline::DeviceFacts> devices;
        if (server_) {
            devices = server_->devices();
        }
        if (!failure_.empty()) {
            outbox_.post(0, kFailed, failure_); // first, so that it is the reason given
        }
        outbox_.post(0, kHello, hostName() + '\0' + pipeline::encodeDevices(devices));
        std::thread(&Worker::watch, this).detach();
        loop();
        // Stopping: what is still to send goes first, then the goodbye.
        outbox_.flush(Clock::now() + std::chrono::seconds(5));
        outbox_.post(0, kBye, {});
        outbox_.flush(Clock::now() + std::chrono::seconds(2));
        finalizing_ = true;
        MPI_Finalize();
        std::fflush(nullptr);
        // Device threads may be inside a job (or a hung driver call): no joins, no destructors.
        std::_Exit(0);
    }

private:
    void loop() {
        auto lastBeat = Clock::now();
        for (;;) {
            beat_ = Clock::now().time_since_epoch().count();
            while (std::optional<Message> m = receive(0)) {
                heard_ = Clock::now().time_since_epoch().count();
                if (m->tag == kStop) {
                    stopNow();
                    return;
                }
                take(std::move(*m));
            }
            sendReplies();
            if (Clock::now() - lastBeat >= kHeartbeatEvery) {
                outbox_.post(0, kHeartbeat, {});
                lastBeat = Clock::now();
            }
            outbox_.progress();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    void take(Message m) {
        if (m.tag == kSetup && server_ && !setupStarted_) {
            setupStarted_ = true;
            // Making the inputs may take seconds; the main thread keeps sending heartbeats.
            std::thread([this, bytes = std::move(m.bytes)] { setUp(bytes); }).detach();
        } else if (m.tag == kJob) {
            if (exitAfter_ >= 0 && ++jobsTaken_ > exitAfter_) {
                std::raise(SIGKILL); // the test of a worker that dies holding a job
            }
            std::lock_guard lock(m_);
            jobs_.emplace_back(idOf(m.bytes), afterId(m.bytes));
            cv_.notify_all();
        }
    }

    void setUp(const std::string& bytes) {
        try {
            server_->setup(bytes);
        } catch (const std::exception& e) {
            std::lock_guard lock(m_);
            failed_.push_back(std::string("setup: ") + e.what());
            return;
        }
        for (size_t slot = 0; slot < server_->devices().size(); ++slot) {
            std::thread(&Worker::device, this, slot).detach();
        }
    }

    void device(size_t slot) {
        for (;;) {
            std::unique_lock lock(m_);
            cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
            if (stopping_) {
                return;
            }
            auto [id, bytes] = std::move(jobs_.front());
            jobs_.pop_front();
            bool hang = hangAfter_ >= 0 && ++jobsRun_ > hangAfter_;
            lock.unlock();
            if (hang) {
                lock.lock();
                cv_.wait(lock, [&] { return stopping_; }); // the test of a job that never ends
                return;
            }
            std::string reply;
            std::string failure;
            try {
                reply = server_->run(bytes, slot);
            } catch (const std::exception& e) {
                failure = "job " + std::to_string(id) + ": " + e.what();
            }
            lock.lock();
            if (failure.empty()) {
                replies_.emplace_back(id, std::move(reply));
            } else {
                failed_.push_back(std::move(failure));
            }
        }
    }

    void sendReplies() {
        std::lock_guard lock(m_);
        for (auto& [id, reply] : replies_) {
            outbox_.post(0, kReply, withId(id, reply));
        }
        replies_.clear();
        for (auto& why : failed_) {
            outbox_.post(0, kFailed, why);
        }
        failed_.clear();
    }

    void stopNow() {
        std::lock_guard lock(m_);
        stopping_ = true;
        stoppedAt_ = Clock::now().time_since_epoch().count();
        cv_.notify_all();
    }

    // Ends the process when its main thread has made no progress for a minute, when it has not
    // finished 15 s after being told to stop, or when it outlived the run.
    [[noreturn]] void watch() {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            auto since = [](int64_t ticks) {
                return secondsSince(Clock::time_point(Clock::duration(ticks)));
            };
            bool stuck = !finalizing_ && since(beat_) > 60;
            bool lingering = stoppedAt_ != 0 && since(stoppedAt_) > 15;
            bool orphaned = idleLimit_ > 0 && since(heard_) > idleLimit_;
            if (stuck || lingering || orphaned) {
                std::fprintf(stderr, "egopt: MPI rank %d: %s; exiting\n", rank_,
                             stuck       ? "its main thread made no progress for 60 s"
                             : lingering ? "still running 15 s after the coordinator's stop"
                                         : "nothing heard from the coordinator for too long");
                std::_Exit(3);
            }
        }
    }

    int rank_;
    long exitAfter_, hangAfter_;
    double idleLimit_;
    std::unique_ptr<pipeline::JobServer> server_;
    std::string failure_;
    Outbox outbox_;
    bool setupStarted_ = false;
    long jobsTaken_ = 0, jobsRun_ = 0;

    std::mutex m_; // guards what the device threads share with the main thread
    std::condition_variable cv_;
    std::deque<std::pair<uint64_t, std::string>> jobs_, replies_;
    std::vector<std::string> failed_;
    bool stopping_ = false;

    // For the watchdog: clock ticks of the main thread's last step, of the last message from
    // the coordinator, and of the stop.
    std::atomic<int64_t> beat_{Clock::now().time_since_epoch().count()};
    std::atomic<int64_t> heard_{Clock::now().time_since_epoch().count()};
    std::atomic<int64_t> stoppedAt_{0};
    std::atomic<bool> finalizing_{false};
};

} // namespace

[[noreturn]] int serveWorker(int rank, const pipeline::Options& options) {
    // Never destroyed: run() ends the process, and detached threads use it until then.
    auto* worker = new Worker(rank, options);
    worker->run();
}

} // namespace egopt::distribute
