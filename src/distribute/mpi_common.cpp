// Message plumbing shared by the coordinator and the workers (mpi_common.hpp).
#include "mpi_common.hpp"

#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace egopt::distribute {

void Outbox::post(int dest, int tag, std::string bytes) {
    Pending& p = pending_.emplace_back();
    p.bytes = std::move(bytes);
    // MPI_ERRORS_RETURN: a send to a rank that is gone fails here or never completes; either
    // way the coordinator's time-outs decide, not the send.
    if (MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, dest, tag,
                  MPI_COMM_WORLD, &p.request) != MPI_SUCCESS) {
        pending_.pop_back();
    }
}

void Outbox::progress() {
    for (auto it = pending_.begin(); it != pending_.end();) {
        int done = 0;
        if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) {
            it = pending_.erase(it);
        } else {
            ++it;
        }
    }
}

bool Outbox::flush(Clock::time_point deadline) {
    for (progress(); !empty(); progress()) {
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

Outbox::~Outbox() {
    // Sends that never completed (their receiver is gone): their requests are let go so that
    // MPI_Finalize does not wait for them.
    for (Pending& p : pending_) {
        MPI_Request_free(&p.request);
    }
}

std::optional<Message> receive(int source) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS || !flag) {
        return std::nullopt;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    Message m;
    m.source = status.MPI_SOURCE;
    m.tag = status.MPI_TAG;
    m.bytes.resize(static_cast<size_t>(count));
    // The message has arrived (probed), so this receive does not wait for its sender.
    if (MPI_Recv(m.bytes.data(), count, MPI_BYTE, m.source, m.tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return std::nullopt;
    }
    return m;
}

std::string withId(uint64_t id, const std::string& bytes) {
    std::string out(sizeof id, '\0');
    std::memcpy(out.data(), &id, sizeof id);
    return out + bytes;
}

uint64_t idOf(const std::string& message) {
    uint64_t id = 0;
    if (message.size() >= sizeof id) {
        std::memcpy(&id, message.data(), sizeof id);
    }
    return id;
}

std::string afterId(const std::string& message) {
    return message.size() >= sizeof(uint64_t) ? message.substr(sizeof(uint64_t)) : std::string();
}

double envSeconds(const char* name, double fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) {
        return fallback;
    }
    char* end = nullptr;
    double d = std::strtod(v, &end);
    return end && *end == '\0' && d > 0 ? d : fallback;
}

std::string hostName() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) {
        return "?";
    }
    return buf;
}

} // namespace egopt::distribute
