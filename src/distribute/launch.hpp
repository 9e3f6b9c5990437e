// What the environment says about an MPI launch (launch.cpp), and how a host's devices are
// shared out among its ranks; the same with and without MPI.
#pragma once

#include <cstddef>
#include <vector>

namespace egopt::distribute {

// True when an MPI launcher (Open MPI's mpirun, a PMI or PMIx launcher) started this process.
bool launchedByMpi();
// The rank and size the launcher's environment gives (0 and 1 when none).
int launchRank();
int launchSize();

// Positions (in 0 .. devices-1) of the devices that rank `local` of the `ranks` ranks on a host
// takes: every ranks-th one from position `local`; when there are fewer devices than ranks,
// the one at local % devices (ranks share it).
std::vector<size_t> shareOf(size_t devices, int local, int ranks);

} // namespace egopt::distribute
