// Worker processes that compile OpenCL programs (compiler_pool.hpp).
//
// Messages are frames: an 8-byte little-endian length, then the bytes. A request is two frames
// (build options, source); a reply is one status byte and two frames: the binary and nothing,
// or, for a failed build, the message and the build log, or, for any other failure, the message
// and nothing.
#include "egopt/runtime/compiler_pool.hpp"

#include "egopt/runtime/session.hpp"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace egopt::runtime {

namespace {

enum Reply : unsigned char { kBinary = 0, kBuildFailed = 1, kFailed = 2 };

bool writeAll(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        // MSG_NOSIGNAL: a peer that died gives EPIPE here, not a SIGPIPE that ends the process.
        ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            return false;
        }
        p += k;
        n -= size_t(k);
    }
    return true;
}

bool readAll(int fd, void* data, size_t n) {
    char* p = static_cast<char*>(data);
    while (n > 0) {
        ssize_t k = ::recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            return false; // closed, or failed
        }
        p += k;
        n -= size_t(k);
    }
    return true;
}

bool writeFrame(int fd, std::string_view bytes) {
    unsigned char length[8];
    for (int i = 0; i < 8; ++i) {
        length[i] = static_cast<unsigned char>(uint64_t(bytes.size()) >> (8 * i));
    }
    return writeAll(fd, length, sizeof length) && writeAll(fd, bytes.data(), bytes.size());
}

std::optional<std::string> readFrame(int fd) {
    unsigned char length[8];
    if (!readAll(fd, length, sizeof length)) {
        return std::nullopt;
    }
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i) {
        n |= uint64_t(length[i]) << (8 * i);
    }
    std::string bytes(n, '\0');
    if (!readAll(fd, bytes.data(), n)) {
        return std::nullopt;
    }
    return bytes;
}

Error workerFailed(const std::string& why) {
    return Error(ErrorKind::Internal, "compile worker: " + why);
}

} // namespace

struct CompilerPool::State {
    // One request of the queue, with the promise its caller waits on.
    struct Job {
        std::string source, options;
        std::promise<std::string> binary;
    };

    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::shared_ptr<Job>> queue;
    bool closing = false;
    size_t alive = 0;
    std::vector<pid_t> pids;
    std::vector<int> sockets;
    std::vector<std::thread> threads;

    // Hands the worker on `fd` one job at a time until the pool closes or the worker fails.
    void serve(int fd) {
        for (;;) {
            std::shared_ptr<Job> job;
            {
                std::unique_lock lock(mutex);
                ready.wait(lock, [&] { return closing || !queue.empty(); });
                if (queue.empty()) {
                    return;
                }
                job = std::move(queue.front());
                queue.pop_front();
            }
            if (!exchange(fd, *job)) {
                retire();
                return;
            }
        }
    }

    // One request and its reply; false when the worker is gone (the job then fails).
    static bool exchange(int fd, Job& job) {
        unsigned char status = kFailed;
        std::optional<std::string> first, second;
        bool ok = writeFrame(fd, job.options) && writeFrame(fd, job.source) &&
                  readAll(fd, &status, 1) && (first = readFrame(fd)) && (second = readFrame(fd));
        if (!ok) {
            job.binary.set_exception(std::make_exception_ptr(workerFailed("the worker exited")));
            return false;
        }
        if (status == kBinary) {
            job.binary.set_value(std::move(*first));
        } else if (status == kBuildFailed) {
            job.binary.set_exception(
                std::make_exception_ptr(BuildError(std::move(*first), std::move(*second))));
        } else {
            job.binary.set_exception(std::make_exception_ptr(workerFailed(*first)));
        }
        return true;
    }

    // A worker is gone: when it was the last, the jobs still queued fail (their callers build
    // from source themselves).
    void retire() {
        std::lock_guard lock(mutex);
        if (--alive > 0) {
            return;
        }
        for (auto& job : queue) {
            job->binary.set_exception(std::make_exception_ptr(workerFailed("no worker left")));
        }
        queue.clear();
    }
};

namespace {

// Spawns `executable compile-worker --device INDEX --fd 3` with `childFd` as its descriptor 3.
pid_t spawnWorker(const std::string& executable, const Device& device, int childFd) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, childFd, 3);
    std::string index = std::to_string(device.index);
    std::vector<std::string> args{executable, "compile-worker", "--device", index, "--fd", "3"};
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    errno = rc; // posix_spawn returns its error instead of setting errno
    return rc == 0 ? pid : -1;
}

} // namespace

CompilerPool::CompilerPool(const std::string& executable, const Device& device, size_t workers)
    : state_(std::make_unique<State>()) {
    for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i) {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
            break;
        }
        pid_t pid = spawnWorker(executable, device, fds[1]);
        int spawnError = errno;
        ::close(fds[1]);
        if (pid < 0) {
            ::close(fds[0]);
            errno = spawnError;
            break;
        }
        state_->pids.push_back(pid);
        state_->sockets.push_back(fds[0]);
    }
    if (state_->pids.empty()) {
        throw workerFailed("cannot start '" + executable + "': " + std::strerror(errno));
    }
    state_->alive = state_->pids.size();
    for (int fd : state_->sockets) {
        state_->threads.emplace_back([state = state_.get(), fd] { state->serve(fd); });
    }
}

CompilerPool::~CompilerPool() {
    {
        std::lock_guard lock(state_->mutex);
        state_->closing = true;
    }
    state_->ready.notify_all();
    for (auto& t : state_->threads) {
        t.join();
    }
    for (int fd : state_->sockets) {
        ::close(fd); // the worker reads the end of its requests and exits
    }
    for (pid_t pid : state_->pids) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

std::shared_future<std::string> CompilerPool::compile(const std::string& source,
                                                      const std::string& options) {
    auto job = std::make_shared<State::Job>();
    job->source = source;
    job->options = options;
    std::shared_future<std::string> binary = job->binary.get_future().share();
    {
        std::lock_guard lock(state_->mutex);
        if (state_->alive == 0) {
            job->binary.set_exception(std::make_exception_ptr(workerFailed("no worker left")));
            return binary;
        }
        state_->queue.push_back(std::move(job));
    }
    state_->ready.notify_one();
    return binary;
}

size_t CompilerPool::workers() const {
    return state_->pids.size();
}

int runCompileWorker(std::string_view deviceSpec, int fd) {
    std::optional<Session> session;
    std::string openError;
    try {
        session.emplace(selectDevice(deviceSpec));
    } catch (const std::exception& e) {
        openError = e.what(); // every request is answered with it
    }
    for (;;) {
        std::optional<std::string> options = readFrame(fd);
        std::optional<std::string> source = options ? readFrame(fd) : std::nullopt;
        if (!source) {
            return 0; // the pool closed the socket
        }
        unsigned char status = kFailed;
        std::string first = openError, second;
        if (session) {
            try {
                first = session->binaryOf(*source, *options);
                status = kBinary;
            } catch (const BuildError& e) {
                status = kBuildFailed;
                first = e.what();
                first = first.substr(0, first.find(kBuildLogSeparator)); // the log goes apart
                second = e.log();
            } catch (const std::exception& e) {
                first = e.what();
            }
        }
        if (!writeAll(fd, &status, 1) || !writeFrame(fd, first) || !writeFrame(fd, second)) {
            return 3;
        }
    }
}

} // namespace egopt::runtime
