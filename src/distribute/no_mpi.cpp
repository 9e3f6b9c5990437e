// A build without MPI (cmake -DEGOPT_MPI=OFF): every Session is a world of one. Started by
// mpirun anyway, rank 0 runs alone and the other ranks say why they do nothing.
#include "egopt/distribute/session.hpp"
#include "launch.hpp"

#include <cstdio>

namespace egopt::distribute {

bool available() {
    return false;
}

struct Session::State {
    int launchRank = 0;
};

Session::Session() : state_(std::make_unique<State>()) {
    state_->launchRank = launchRank();
    if (launchedByMpi() && launchSize() > 1 && state_->launchRank == 0) {
        std::fprintf(stderr, "egopt: built without MPI (EGOPT_MPI=OFF): rank 0 runs alone\n");
    }
}

Session::~Session() = default;

int Session::rank() const {
    return state_->launchRank;
}

int Session::size() const {
    return 1;
}

void Session::shareDevices(pipeline::Options&) const {}

void Session::exitCode(int) {}

pipeline::Remote* Session::remote() {
    return nullptr;
}

int Session::serve(const pipeline::Options&) {
    std::fprintf(stderr, "egopt: built without MPI (EGOPT_MPI=OFF): rank %d does nothing\n",
                 state_->launchRank);
    return 0;
}

} // namespace egopt::distribute
