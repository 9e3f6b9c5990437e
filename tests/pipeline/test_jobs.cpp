// Device jobs for other processes (docs/distributed.md), without MPI: the byte format of sizes
// and programs, a worker's JobServer running jobs on PoCL, and the pool that hands jobs to
// workers and hands out again the jobs of a worker that is lost.
#include "../../src/pipeline/jobs.hpp"
#include "../../src/pipeline/stages.hpp"
#include "../../src/pipeline/wire.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/pipeline/remote.hpp"
#include "test_common.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <thread>

using namespace egopt;
using namespace egopt::pipeline;

TEST_CASE("sizes read back equal from their Lift text", "[pipeline]") {
    using arith::Size;
    Size n = Size::var("N"), m = Size::var("M"), i = Size::var("i");
    std::vector<Size> sizes = {0,
                               -7,
                               n,
                               n * m * 2 - 3,
                               exactDiv(n, 128),
                               exactDiv(n + m, 2),
                               exactDiv(n, m),
                               floorDiv(i + 1, 4),
                               mod(i, 4),
                               -mod(i, 4),
                               pow(2, n),
                               n * n * n * n * n * n,
                               mod(floorDiv(i, n) + 3, m) * exactDiv(n, 64)};
    for (const Size& s : sizes) {
        INFO(s.toString());
        CHECK(wire::parseSize(s.toString()) == s);
    }
    CHECK_THROWS_AS(wire::parseSize("N+"), Error);
    CHECK_THROWS_AS(wire::parseSize("(N"), Error);
}

TEST_CASE("every lowered test program travels as bytes and generates the same kernel",
          "[pipeline]") {
    size_t checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(EGOPT_SOURCE_DIR) +
                                                                 "/tests/codegen/programs")) {
        if (entry.path().extension() != ".lift") {
            continue;
        }
        INFO(entry.path().string());
        lift::Program p = lift::parseFile(entry.path().string());
        wire::Writer w;
        w.program(p);
        wire::Reader r(w.data());
        lift::Program q = r.program();
        CHECK(r.done());
        REQUIRE(q.numNodes() == p.numNodes());
        CHECK(q.types.size() == p.types.size());
        CHECK(q.show(q.root) == p.show(p.root));
        try {
            lift::TypeInfo pi = lift::typecheck(p);
            codegen::GeneratedCode pc = codegen::generate(p, pi, {});
            lift::TypeInfo qi = lift::typecheck(q);
            codegen::GeneratedCode qc = codegen::generate(q, qi, {});
            CHECK(qc.source == pc.source);
            CHECK(qc.launchJson() == pc.launchJson());
            ++checked;
        } catch (const Error&) {
            // Programs that need sizes to generate: the structure was compared above.
        }
    }
    CHECK(checked >= 20);
}

TEST_CASE("a truncated job message is an error and not a crash", "[pipeline]") {
    JobSpec spec;
    spec.candidate = lift::parseFile(egopt::testenv::loweredProgramPath("glb_1d"));
    spec.values = {{"v", 4}};
    std::string bytes = encodeJob(spec);
    JobSpec back = decodeJob(bytes);
    CHECK(back.values == spec.values);
    CHECK(back.candidate.show(back.candidate.root) == spec.candidate.show(spec.candidate.root));
    CHECK_THROWS_AS(decodeJob(bytes.substr(0, bytes.size() / 2)), Error);
}

TEST_CASE("a JobServer times and validates a configuration as the coordinator's devices do",
          "[pipeline]") {
    lift::Program p = lift::parseFile(egopt::testenv::loweredProgramPath("glb_1d"));
    arith::Bindings sizes{{"N", 4096}};
    Options o; // the default device: PoCL
    JobServer server(o);
    REQUIRE(server.devices().size() == 1);
    server.setup(encodeSetup({p, sizes, 1, {}, {}}));

    JobSpec time;
    time.candidate = p;
    time.kernel = kernelKey(*buildAt(p, {}, sizes, {}, {}));
    time.runs = 2;
    JobReply timed = decodeReply(server.run(encodeJob(time), 0));
    INFO(timed.run.error);
    REQUIRE(timed.run.timing);
    CHECK(timed.run.timing->seconds > 0);
    CHECK(timed.device == server.devices()[0].index);

    // Another kernel than the one named: the worker refuses to time it.
    time.kernel = "something else";
    CHECK_FALSE(decodeReply(server.run(encodeJob(time), 0)).run.timing);

    JobSpec validate;
    validate.kind = JobSpec::Kind::Validate;
    validate.candidate = p;
    validate.small = {{"N", 64}};
    JobReply checked = decodeReply(server.run(encodeJob(validate), 0));
    CHECK(checked.validation.why == "");
    CHECK(checked.validation.sizes == validate.small);
}

namespace {

// Workers in this process: `slots` jobs at a time; the first `lose` jobs sent are lost (as if
// their worker died), the others answered with their id.
class FakeRemote : public Remote {
public:
    FakeRemote(size_t slots, size_t lose) : slots_(slots), lose_(lose) {}
    std::vector<Worker> start(const std::string&, std::chrono::milliseconds) override { return {}; }
    size_t room() const override { return slots_ - inFlight_.size(); }
    void send(uint64_t id, const std::string& job, double) override {
        CHECK(job == "job " + std::to_string(id));
        inFlight_.push_back(id);
        ++sent_[id];
        ++sends_;
    }
    // Jobs sent so far (read by the local workers' threads).
    size_t sends() const { return sends_.load(); }
    std::vector<Event> poll(std::chrono::milliseconds) override {
        std::vector<Event> out;
        for (uint64_t id : inFlight_) {
            bool lost = lost_ < lose_;
            lost_ += lost;
            out.push_back({id, 1, lost, lost ? "" : "reply " + std::to_string(id), "gone"});
        }
        inFlight_.clear();
        return out;
    }
    std::vector<std::pair<int, std::string>> lost() const override { return {}; }
    std::string host() const override { return "here"; }
    std::map<uint64_t, int> sent_;

private:
    size_t slots_, lose_, lost_ = 0;
    std::atomic<size_t> sends_{0};
    std::deque<uint64_t> inFlight_;
};

} // namespace

TEST_CASE("lost jobs are handed out again and a job lost twice is abandoned", "[pipeline]") {
    for (size_t lose : {0, 1, 3}) {
        INFO("lose " << lose);
        FakeRemote remote(2, lose);
        constexpr size_t kJobs = 12;
        std::vector<int> ranLocally(kJobs, 0), replied(kJobs, 0), abandoned(kJobs, 0);
        RemoteJobs r{remote,
                     [](size_t k) {
                         return std::optional<RemoteJobs::Message>({"job " + std::to_string(k), 1});
                     },
                     [&](size_t k, const std::string& reply, int rank) {
                         CHECK(reply == "reply " + std::to_string(k));
                         CHECK(rank == 1);
                         ++replied[k];
                     },
                     [&](size_t k, const std::string&) { ++abandoned[k]; }};
        // The local thread starts before the dispatcher sends anything: it waits until the
        // workers have been sent the jobs they lose (else it could take every job first and
        // none would be lost; a second at most, so a broken dispatcher fails the checks below).
        auto waitForSends = [&] {
            auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
            while (remote.sends() < lose && std::chrono::steady_clock::now() < until) {
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            }
        };
        forEachJob(
            kJobs, 1,
            [&](size_t k, size_t) {
                waitForSends();
                ++ranLocally[k];
            },
            &r);
        size_t lostTwice = 0;
        for (size_t k = 0; k < kJobs; ++k) {
            // Every job ends exactly once: here, with a reply, or abandoned.
            CHECK(ranLocally[k] + replied[k] + abandoned[k] == 1);
            lostTwice += abandoned[k];
            CHECK((abandoned[k] == 0 || remote.sent_[k] == 2));
        }
        CHECK(r.reassigned + lostTwice == lose);
    }
}

TEST_CASE("the pool ends with the first exception of a job", "[pipeline]") {
    FakeRemote remote(0, 0); // no worker has room: the local threads run every job
    RemoteJobs r{remote,
                 [](size_t k) {
                     return std::optional<RemoteJobs::Message>({"job " + std::to_string(k), 1});
                 },
                 [](size_t, const std::string&, int) {}, [](size_t, const std::string&) {}};
    CHECK_THROWS_AS(forEachJob(
                        6, 2, [](size_t, size_t) { throw Error(ErrorKind::Internal, "boom"); }, &r),
                    Error);
}
