// Several processes and hosts with MPI (docs/distributed.md): `mpirun -np P egopt program.lift`
// runs rank 0 as the coordinator (the whole pipeline, the report) and every other rank as a
// worker that runs device jobs on its own devices; rank 0 times on its devices too.
//
//     distribute::Session mpi;             // MPI_Init when started by mpirun with P > 1
//     if (mpi.rank() > 0) return mpi.serve(options);
//     options.remote = mpi.remote();       // nullptr when alone
//     pipeline::run(options);              // ~Session: stops the workers, MPI_Finalize
//
// Built without MPI (cmake -DEGOPT_MPI=OFF) a Session is always a world of one; under mpirun
// every rank but rank 0 then says so and exits.
#pragma once

#include "egopt/pipeline/pipeline.hpp"

#include <memory>

namespace egopt::distribute {

// True when this egopt was built with MPI.
bool available();

class Session {
public:
    // Joins the MPI job when the process was started by an MPI launcher (its environment says
    // so); a world of one otherwise.
    Session();
    // On rank 0: tells every worker to stop, waits a bounded time for them, then finalizes MPI.
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    int rank() const;
    int size() const;
    // This rank's share of its host's devices: the devices that Options::device/devices choose,
    // dealt out round-robin over the ranks on the host (one each when there are as many), written
    // back into `options` as indices. Unchanged in a world of one.
    void shareDevices(pipeline::Options& options) const;
    // Rank 0 of several: the workers, for pipeline::Options::remote; nullptr otherwise.
    pipeline::Remote* remote();
    // Ranks > 0: runs the coordinator's device jobs until it says stop; the exit code.
    int serve(const pipeline::Options& options);
    // Rank 0: the exit code the process returns, for when it must end without waiting for
    // MPI_Finalize (a lost worker; internal error until set).
    void exitCode(int code);

    struct State;

private:
    std::unique_ptr<State> state_;
};

} // namespace egopt::distribute
