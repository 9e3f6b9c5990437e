// What the coordinator and the workers share (docs/distributed.md, "Messages"): the message tags,
// non-blocking sends kept alive until MPI has sent them, and polling receives. Only one thread
// of a process calls MPI (MPI_THREAD_FUNNELED); every wait is bounded by a time-out.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <mpi.h>
#include <optional>
#include <string>

namespace egopt::distribute {

using Clock = std::chrono::steady_clock;

enum Tag : int {
    kHello = 1,     // worker -> 0: its host and devices (pipeline::encodeDevices)
    kSetup = 2,     // 0 -> worker: the run's setup (pipeline::JobServer::setup)
    kJob = 3,       // 0 -> worker: job id + job bytes
    kReply = 4,     // worker -> 0: job id + reply bytes
    kHeartbeat = 5, // worker -> 0: alive (every kHeartbeatEvery)
    kStop = 6,      // 0 -> worker: no more jobs; finalize and exit
    kBye = 7,       // worker -> 0: stopping
    kFailed = 8,    // worker -> 0: it cannot work (why)
};

inline constexpr std::chrono::milliseconds kHeartbeatEvery{500};

// Messages sent with MPI_Isend and kept (with their bytes) until MPI says they are sent.
class Outbox {
public:
    void post(int dest, int tag, std::string bytes);
    void progress(); // forgets the sent ones
    bool empty() const { return pending_.empty(); }
    // Progresses until everything is sent or `deadline`; false on the deadline.
    bool flush(Clock::time_point deadline);
    ~Outbox();

private:
    struct Pending {
        std::string bytes;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    std::list<Pending> pending_; // a list: the bytes stay put while MPI reads them
};

struct Message {
    int source = 0;
    int tag = 0;
    std::string bytes;
};
// The next message from `source` (MPI_ANY_SOURCE: anyone) if one has arrived; never waits.
std::optional<Message> receive(int source);

// A job id followed by its bytes, and back.
std::string withId(uint64_t id, const std::string& bytes);
uint64_t idOf(const std::string& message);
std::string afterId(const std::string& message);

// A number of seconds from the environment (a test's or an operator's override), or `fallback`.
double envSeconds(const char* name, double fallback);

std::string hostName();

} // namespace egopt::distribute
