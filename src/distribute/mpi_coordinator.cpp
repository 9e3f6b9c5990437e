// Rank 0's side of the job protocol (mpi_coordinator.hpp). Open MPI without ULFM reports no
// process failure to the survivors, so a worker is given up on by time: when it has jobs and has
// sent nothing (not even a heartbeat) for `silence_` seconds (it died, or its process stopped),
// or when one of its jobs passes the job's time-out (a kernel or driver that hangs).
#include "mpi_coordinator.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace egopt::distribute {

namespace {

std::string secondsText(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", s);
    return buf;
}

} // namespace

MpiRemote::MpiRemote(int size)
    : silence_(envSeconds("EGOPT_MPI_SILENCE_SECONDS", 10)),
      jobSeconds_(envSeconds("EGOPT_MPI_JOB_SECONDS", 0)) {
    for (int r = 1; r < size; ++r) {
        WorkerState w;
        w.rank = r;
        workers_.push_back(std::move(w));
    }
}

MpiRemote::~MpiRemote() = default;

std::vector<pipeline::Remote::Worker> MpiRemote::start(const std::string& setup,
                                                       std::chrono::milliseconds wait) {
    started_ = true;
    auto deadline = Clock::now() + wait;
    auto allHeard = [&] {
        return std::all_of(workers_.begin(), workers_.end(),
                           [](const WorkerState& w) { return w.hello || !w.lostWhy.empty(); });
    };
    while (!allHeard() && Clock::now() < deadline) {
        drain();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::vector<Worker> out;
    for (WorkerState& w : workers_) {
        if (!w.hello && w.lostWhy.empty()) {
            lose(w, "did not list its devices within " +
                        secondsText(std::chrono::duration<double>(wait).count()) + " s");
        }
        if (!w.live) {
            continue;
        }
        outbox_.post(w.rank, kSetup, setup);
        w.lastHeard = Clock::now();
        out.push_back({w.rank, w.host, w.devices});
    }
    events_.clear(); // no job was in flight
    return out;
}

size_t MpiRemote::room() const {
    size_t free = 0;
    for (const WorkerState& w : workers_) {
        if (w.live && w.devices.size() > w.inFlight.size()) {
            free += w.devices.size() - w.inFlight.size();
        }
    }
    return free;
}

void MpiRemote::send(uint64_t id, const std::string& job, double seconds) {
    // The worker with the most free devices (the lowest rank among equals).
    WorkerState* best = nullptr;
    for (WorkerState& w : workers_) {
        if (w.live && w.devices.size() > w.inFlight.size() &&
            (!best ||
             w.devices.size() - w.inFlight.size() > best->devices.size() - best->inFlight.size())) {
            best = &w;
        }
    }
    if (!best) {
        events_.push_back({id, 0, true, "", "no worker had room"});
        return;
    }
    if (best->inFlight.empty()) {
        best->lastHeard = std::max(best->lastHeard, Clock::now()); // silence counts from now
    }
    double limit = jobSeconds_ > 0 ? jobSeconds_ : seconds;
    best->inFlight[id] = {Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(limit)),
                          limit};
    outbox_.post(best->rank, kJob, withId(id, job));
}

std::vector<pipeline::Remote::Event> MpiRemote::poll(std::chrono::milliseconds wait) {
    auto until = Clock::now() + wait;
    for (;;) {
        outbox_.progress();
        drain();
        checkTimes();
        if (!events_.empty() || Clock::now() >= until) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return std::exchange(events_, {});
}

std::vector<std::pair<int, std::string>> MpiRemote::lost() const {
    std::vector<std::pair<int, std::string>> out;
    for (const WorkerState& w : workers_) {
        if (!w.lostWhy.empty()) {
            out.emplace_back(w.rank, w.lostWhy);
        }
    }
    return out;
}

void MpiRemote::drain() {
    while (std::optional<Message> m = receive(MPI_ANY_SOURCE)) {
        take(std::move(*m));
    }
}

void MpiRemote::take(Message m) {
    if (m.source < 1 || size_t(m.source) > workers_.size()) {
        return;
    }
    WorkerState& w = workers_[size_t(m.source - 1)];
    w.lastHeard = Clock::now();
    switch (m.tag) {
    case kHello:
        if (!w.hello && w.lostWhy.empty()) {
            size_t cut = m.bytes.find('\0');
            w.host = m.bytes.substr(0, cut);
            w.devices = pipeline::decodeDevices(cut == std::string::npos ? std::string()
                                                                         : m.bytes.substr(cut + 1));
            w.hello = true;
            w.live = !w.devices.empty();
            if (!w.live) {
                w.lostWhy = "it has no device";
            }
        }
        break;
    case kReply:
        // A reply from a worker given up on, or for a job it no longer holds, comes too late:
        // the job was handed out again.
        if (w.live && w.inFlight.erase(idOf(m.bytes)) > 0) {
            events_.push_back({idOf(m.bytes), w.rank, false, afterId(m.bytes), ""});
        }
        break;
    case kFailed:
        if (w.lostWhy.empty()) {
            lose(w, "it failed: " + m.bytes);
        }
        break;
    case kBye:
        w.bye = true;
        break;
    default: // heartbeats: lastHeard is all they say
        break;
    }
}

void MpiRemote::checkTimes() {
    auto now = Clock::now();
    for (WorkerState& w : workers_) {
        if (!w.live || w.inFlight.empty()) {
            continue;
        }
        double quiet = std::chrono::duration<double>(now - w.lastHeard).count();
        if (quiet > silence_) {
            lose(w, "no message for " + secondsText(quiet) +
                        " s while it held jobs (the process died or stopped responding)");
            continue;
        }
        for (const auto& [id, deadline] : w.inFlight) {
            if (now > deadline.first) {
                lose(w, "a job ran past its time-out of " + secondsText(deadline.second) + " s");
                break;
            }
        }
    }
}

void MpiRemote::lose(WorkerState& w, std::string why) {
    w.live = false;
    w.lostWhy = std::move(why);
    for (const auto& [id, job] : w.inFlight) {
        events_.push_back(
            {id, w.rank, true, "", "rank " + std::to_string(w.rank) + ": " + w.lostWhy});
    }
    w.inFlight.clear();
}

bool MpiRemote::stop(std::chrono::milliseconds wait) {
    for (const WorkerState& w : workers_) {
        outbox_.post(w.rank, kStop, {});
    }
    auto deadline = Clock::now() + wait;
    auto answered = [&] {
        return std::all_of(workers_.begin(), workers_.end(),
                           [](const WorkerState& w) { return w.bye || !w.lostWhy.empty(); });
    };
    while (!answered() && Clock::now() < deadline) {
        outbox_.progress();
        drain(); // replies that come late are taken and dropped, so no sender waits on them
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // A lost worker whose process still runs (one that hung) answers too: wait a little for it,
    // so that it does not find its goodbye unreceived.
    auto silentLost = [&] {
        return std::any_of(workers_.begin(), workers_.end(),
                           [](const WorkerState& w) { return !w.bye && !w.lostWhy.empty(); });
    };
    for (auto soft = Clock::now() + std::chrono::seconds(1);
         silentLost() && Clock::now() < std::min(soft, deadline);) {
        drain();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    outbox_.flush(std::min(deadline, Clock::now() + std::chrono::seconds(1)));
    return std::all_of(workers_.begin(), workers_.end(),
                       [](const WorkerState& w) { return w.bye; });
}

} // namespace egopt::distribute
