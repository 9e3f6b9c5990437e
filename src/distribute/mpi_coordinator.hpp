// Rank 0's view of the workers over MPI (pipeline::Remote; docs/distributed.md, "Failures").
// Only the pipeline's calling thread uses it.
#pragma once

#include "egopt/pipeline/remote.hpp"
#include "mpi_common.hpp"

#include <map>
#include <vector>

namespace egopt::distribute {

class MpiRemote : public pipeline::Remote {
public:
    explicit MpiRemote(int size);
    ~MpiRemote() override;

    std::vector<Worker> start(const std::string& setup, std::chrono::milliseconds wait) override;
    size_t room() const override;
    void send(uint64_t id, const std::string& job, double seconds) override;
    std::vector<Event> poll(std::chrono::milliseconds wait) override;
    std::vector<std::pair<int, std::string>> lost() const override;
    std::string host() const override { return hostName(); }

    // Tells every worker to stop and waits up to `wait` for each one that was not lost to say
    // goodbye; false unless every worker did (a lost one may be dead, or still running).
    bool stop(std::chrono::milliseconds wait);

private:
    struct WorkerState {
        int rank = 0;
        std::string host;
        std::vector<pipeline::DeviceFacts> devices;
        bool hello = false, live = false, bye = false;
        std::string lostWhy;
        Clock::time_point lastHeard{};
        std::map<uint64_t, std::pair<Clock::time_point, double>>
            inFlight; // id -> deadline, seconds
    };

    void drain();         // takes every message that has arrived
    void take(Message m); // one of them
    void checkTimes();    // silent workers and jobs past their deadline
    void lose(WorkerState& w, std::string why);

    std::vector<WorkerState> workers_; // ranks 1 .. size-1
    Outbox outbox_;
    std::vector<Event> events_;
    double silence_;    // seconds without a message from a worker with jobs: lost
    double jobSeconds_; // > 0: every job's time-out (tests), in place of the pipeline's
    bool started_ = false;
};

} // namespace egopt::distribute
