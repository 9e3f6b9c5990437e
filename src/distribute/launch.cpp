// The MPI launcher's environment and the devices' share-out (launch.hpp).
#include "launch.hpp"

#include <cstdlib>

namespace egopt::distribute {

namespace {

int envInt(std::initializer_list<const char*> names, int fallback) {
    for (const char* name : names) {
        if (const char* v = std::getenv(name); v && *v) {
            return std::atoi(v);
        }
    }
    return fallback;
}

} // namespace

bool launchedByMpi() {
    return envInt({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}, -1) >= 0;
}

int launchRank() {
    return envInt({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0);
}

int launchSize() {
    return envInt({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, 1);
}

std::vector<size_t> shareOf(size_t devices, int local, int ranks) {
    std::vector<size_t> mine;
    if (devices == 0 || ranks < 1 || local < 0) {
        return mine;
    }
    for (size_t i = size_t(local); i < devices; i += size_t(ranks)) {
        mine.push_back(i);
    }
    if (mine.empty()) {
        mine.push_back(size_t(local) % devices);
    }
    return mine;
}

} // namespace egopt::distribute
