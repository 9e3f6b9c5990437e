// Device work in other processes (docs/distributed.md). The pipeline sees other processes through
// two small interfaces that carry opaque bytes, so that it needs no MPI: the coordinator hands
// jobs to a `Remote` (egopt/distribute implements it over MPI) and every worker process runs
// them with a `JobServer`, on its own devices, with the same code as the coordinator's own
// device threads.
#pragma once

#include "egopt/pipeline/pipeline.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace egopt::pipeline {

// A worker's device, as the coordinator needs it: what `runtime::sameModel` compares and
// `runtime::Device::describe()`.
struct DeviceFacts {
    uint64_t index = 0;
    std::string name, vendor, platformName, platformVersion, version, driverVersion;
    std::string description;
};
std::string encodeDevices(const std::vector<DeviceFacts>& devices);
std::vector<DeviceFacts> decodeDevices(const std::string& bytes);

// The coordinator's view of the worker processes.
class Remote {
public:
    virtual ~Remote() = default;

    struct Worker {
        int rank = 0;
        std::string host;
        std::vector<DeviceFacts> devices; // one job at a time per device
    };
    // Sends every worker the data all of this run's jobs need (the original program, sizes,
    // seed: JobServer::setup) and returns the workers that answered (each with its devices),
    // waiting at most `wait` for them.
    virtual std::vector<Worker> start(const std::string& setup, std::chrono::milliseconds wait) = 0;
    // Jobs the live workers can take now (their free devices).
    virtual size_t room() const = 0;
    // Sends job `id` to a live worker with room; it is lost if no reply comes within `seconds`.
    virtual void send(uint64_t id, const std::string& job, double seconds) = 0;

    struct Event {
        uint64_t id = 0;
        int rank = 0;
        bool lost = false; // the worker died or passed the job's time-out: hand the job out again
        std::string reply; // JobServer::run's answer when not lost
        std::string why;   // when lost
    };
    // Replies and lost jobs, waiting up to `wait` when there are none yet.
    virtual std::vector<Event> poll(std::chrono::milliseconds wait) = 0;
    // Workers declared lost so far: (rank, why).
    virtual std::vector<std::pair<int, std::string>> lost() const = 0;
    // The coordinator's host name (for the report's ranks).
    virtual std::string host() const = 0;
};

// A worker process's side: its devices, the run's setup, and one job at a time per device.
class JobServer {
public:
    // Chooses the devices as the coordinator does (Options::device, Options::devices).
    explicit JobServer(const Options& options);
    ~JobServer();
    JobServer(const JobServer&) = delete;
    JobServer& operator=(const JobServer&) = delete;

    const std::vector<DeviceFacts>& devices() const;
    // The coordinator's Remote::start data: makes this run's inputs for every device.
    void setup(const std::string& bytes);
    // Runs one job on device `slot` (0 .. devices().size()-1; one job per slot at a time) and
    // returns the reply for the coordinator. Failures of the kernel are replies, not exceptions.
    std::string run(const std::string& job, size_t slot);

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace egopt::pipeline
