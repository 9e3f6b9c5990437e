// Joining and leaving the MPI job (session.hpp), and each rank's share of its host's devices.
#include "egopt/distribute/session.hpp"
#include "egopt/runtime/device.hpp"
#include "egopt/support/diagnostic.hpp"
#include "launch.hpp"
#include "mpi_coordinator.hpp"
#include "mpi_worker.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace egopt::distribute {

bool available() {
    return true;
}

struct Session::State {
    bool joined = false; // MPI_Init was called
    int rank = 0, size = 1;
    int localRank = 0, localSize = 1;  // among the ranks on this host
    std::unique_ptr<MpiRemote> remote; // rank 0 of several
    std::atomic<int> exitCode{kExitInternal};
};

Session::Session() : state_(std::make_unique<State>()) {
    State& s = *state_;
    if (!launchedByMpi()) {
        return;
    }
    int provided = 0;
    // Only the thread that runs the pipeline (rank 0) or the worker loop calls MPI.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    s.joined = true;
    // A failed call returns an error code instead of aborting the whole job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    MPI_Comm local;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(local, &s.localRank);
        MPI_Comm_size(local, &s.localSize);
        MPI_Comm_free(&local);
    }
    if (s.rank == 0 && s.size > 1) {
        s.remote = std::make_unique<MpiRemote>(s.size);
    }
}

Session::~Session() {
    State& s = *state_;
    if (!s.joined) {
        return;
    }
    if (s.remote) {
        bool allStopped = s.remote->stop(std::chrono::seconds(20));
        s.remote.reset(); // lets go of sends to ranks that are gone
        if (!allStopped) {
            // MPI_Finalize includes every rank, and with a rank dead Open MPI 4.1 (under
            // --enable-recovery) at times waits in it forever (seen in one run of six on this
            // host). The outputs are written: end the process if it has not ended in 10 s.
            std::thread([code = s.exitCode.load()] {
                std::this_thread::sleep_for(std::chrono::seconds(10));
                std::fprintf(stderr, "egopt: MPI_Finalize did not end (a lost rank); exiting\n");
                std::fflush(nullptr);
                std::_Exit(code);
            }).detach();
        }
    }
    MPI_Finalize();
}

void Session::exitCode(int code) {
    state_->exitCode = code;
}

int Session::rank() const {
    return state_->rank;
}

int Session::size() const {
    return state_->size;
}

void Session::shareDevices(pipeline::Options& options) const {
    const State& s = *state_;
    if (s.size <= 1) {
        return;
    }
    std::vector<runtime::Device> chosen;
    try {
        std::vector<runtime::Device> all = runtime::listDevices();
        chosen = options.devices.empty()
                     ? std::vector<runtime::Device>{runtime::chooseDevice(all, options.device)}
                     : runtime::chooseDevices(all, options.devices);
    } catch (const std::exception&) {
        return; // the pipeline (or the worker's JobServer) reports it
    }
    std::vector<size_t> mine = shareOf(chosen.size(), s.localRank, s.localSize);
    std::string list;
    for (size_t i : mine) {
        list += (list.empty() ? "" : ",") + std::to_string(chosen[i].index);
    }
    options.device = std::to_string(chosen[mine.front()].index);
    options.devices = mine.size() > 1 ? list : "";
}

pipeline::Remote* Session::remote() {
    return state_->remote.get();
}

int Session::serve(const pipeline::Options& options) {
    return serveWorker(state_->rank, options);
}

} // namespace egopt::distribute
