// Compiling OpenCL programs in worker processes.
//
// NVIDIA's OpenCL driver compiles one program at a time per process: on an H100 host, 16 threads
// building 16 programs took 1.37 s against 1.58 s one after another (0.1 s a program), and a
// second context in the same process costs 1.3 s to create and compiles no faster. The tuner
// builds dozens of programs per run, so the builds were most of its time on a GPU. Worker
// processes compile in parallel and hand back the program binary, which the session loads in
// 0.02-0.03 s (docs/runtime.md).
//
//     auto pool = std::make_shared<CompilerPool>("/path/to/egopt", device, 4);
//     session.useCompilerPool(pool);   // Session::prebuild now compiles in the workers
//
// A worker is the egopt executable run as `egopt compile-worker --device INDEX --fd 3`: it opens
// the device of that index (listDevices' order, the same in every process) and answers requests
// on the socket it finds at descriptor 3 until the socket closes. Workers start at construction
// and open their device in the background (1.5-3 s each on an H100 host, while the caller
// saturates and extracts).
#pragma once

#include "egopt/runtime/device.hpp"

#include <cstddef>
#include <future>
#include <memory>
#include <string>
#include <string_view>

namespace egopt::runtime {

class CompilerPool {
public:
    // Starts `workers` (>= 1) processes of `executable`. Throws egopt::Error when none can be
    // started (no such executable, or spawning failed).
    CompilerPool(const std::string& executable, const Device& device, size_t workers);
    // Closes the workers' sockets and waits for them to exit (they finish the build at hand).
    ~CompilerPool();
    CompilerPool(const CompilerPool&) = delete;
    CompilerPool& operator=(const CompilerPool&) = delete;

    // The program binary of `source` built with `options` by the next free worker. The future
    // throws BuildError (message and build log) when the source does not compile, and
    // egopt::Error when no worker could build it (a worker died, its device did not open): the
    // caller then builds from source itself.
    std::shared_future<std::string> compile(const std::string& source,
                                            const std::string& options = "");
    size_t workers() const;

private:
    struct State; // the request queue and the workers' threads (compiler_pool.cpp)
    std::unique_ptr<State> state_;
};

// The worker's side: opens the device `deviceSpec` (as selectDevice takes it) and serves requests
// on socket descriptor `fd` until it closes. Returns the process exit code: 0 when the socket
// closed, 3 when the device could not be opened or the socket failed.
int runCompileWorker(std::string_view deviceSpec, int fd);

} // namespace egopt::runtime
