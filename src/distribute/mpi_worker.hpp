// A worker rank's loop (mpi_worker.cpp): runs the coordinator's device jobs until it says stop,
// then finalizes MPI and ends the process.
#pragma once

#include "egopt/pipeline/pipeline.hpp"

namespace egopt::distribute {

[[noreturn]] int serveWorker(int rank, const pipeline::Options& options);

} // namespace egopt::distribute
