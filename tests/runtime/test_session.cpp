#include "egopt/runtime/session.hpp"

#include <catch2/catch.hpp>
#include <numeric>

using namespace egopt;
using namespace egopt::runtime;

namespace {

// PoCL compiles kernels slowly, so every test case shares one session and one build per kernel.
Session& session() {
    static Session shared(selectDevice(""));
    return shared;
}

const char* const kVectorAdd = R"CL(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
)CL";

const char* const kGroupSum = R"CL(
__kernel void groupSum(__global const int* in, __global int* out, __local int* scratch) {
    size_t lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    for (size_t stride = size / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride) scratch[lid] += scratch[lid + stride];
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}
)CL";

Kernel& vectorAdd() {
    static Kernel kernel = session().build(kVectorAdd, "vadd", "-cl-std=CL1.2");
    return kernel;
}

} // namespace

TEST_CASE("vector addition runs and gives exact results", "[runtime]") {
    const int n = 1000;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f * static_cast<float>(i);
        b[i] = 1.0f / static_cast<float>(i + 1);
    }
    Session& s = session();
    Buffer da = s.uploadValues<float>(a), db = s.uploadValues<float>(b);
    Buffer dc = s.allocate(n * sizeof(float));
    Kernel& k = vectorAdd();
    k.setArg(0, da);
    k.setArg(1, db);
    k.setArg(2, dc);
    k.setArg(3, int32_t{n});
    LaunchResult result = s.launch(k, NDRange(1024), NDRange(64));
    std::vector<float> c = s.downloadValues<float>(dc);
    REQUIRE(c.size() == static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        REQUIRE(c[i] == a[i] + b[i]);
    }
    CHECK(result.kernelNs > 0);

    SECTION("timing gives every run and a positive median") {
        TimingResult timing = timeKernel(s, k, 1024, 64, 2, 5);
        CHECK(timing.timesNs.size() == 5);
        CHECK(timing.medianNs > 0);
        CHECK(timing.medianNs == medianOf(timing.timesNs));
    }
    SECTION("the driver may choose the work-group size") {
        s.launch(k, NDRange(1000));
        CHECK(s.downloadValues<float>(dc)[999] == a[999] + b[999]);
    }
}

TEST_CASE("a kernel sequence runs in order and is timed as one span", "[runtime]") {
    // c = a + b, then d = c + c: the second kernel reads what the first wrote.
    const int n = 512;
    std::vector<float> a(n, 1.5f), b(n, 2.0f);
    Session& s = session();
    Buffer da = s.uploadValues<float>(a), db = s.uploadValues<float>(b);
    Buffer dc = s.allocate(n * sizeof(float)), dd = s.allocate(n * sizeof(float));
    Kernel first = s.build(kVectorAdd, "vadd", "-cl-std=CL1.2");
    Kernel second = s.build(kVectorAdd, "vadd", "-cl-std=CL1.2");
    first.setArg(0, da);
    first.setArg(1, db);
    first.setArg(2, dc);
    first.setArg(3, int32_t{n});
    second.setArg(0, dc);
    second.setArg(1, dc);
    second.setArg(2, dd);
    second.setArg(3, int32_t{n});
    std::vector<SequenceLaunch> seq{{&first, NDRange(n), NDRange(64)},
                                    {&second, NDRange(n), NDRange(64)}};
    SequenceResult r = s.launchSequence(seq);
    std::vector<float> d = s.downloadValues<float>(dd);
    CHECK(d[0] == 7.0f);
    CHECK(d[n - 1] == 7.0f);
    REQUIRE(r.kernelNs.size() == 2);
    CHECK(r.kernelNs[0] > 0);
    CHECK(r.spanNs >= r.kernelNs[0] + r.kernelNs[1]); // the gap between them counts too
    CHECK(s.launchSequence({}).spanNs == 0);

    // Checked before anything is enqueued: the queue is not left waiting on the gate.
    std::vector<SequenceLaunch> bad{{&first, NDRange(n), NDRange(64)},
                                    {&second, NDRange(n), NDRange(7)}};
    CHECK_THROWS_WITH(s.launchSequence(bad), Catch::Contains("does not divide"));
    CHECK(s.launchSequence(seq).kernelNs.size() == 2);
}

TEST_CASE("a local memory argument serves a work-group reduction", "[runtime]") {
    const size_t groups = 16, groupSize = 64;
    std::vector<int32_t> in(groups * groupSize);
    std::iota(in.begin(), in.end(), -100);
    Session& s = session();
    Kernel k = s.build(kGroupSum, "groupSum");
    Buffer out = s.allocate(groups * sizeof(int32_t));
    k.setArg(0, s.uploadValues<int32_t>(in));
    k.setArg(1, out);
    k.setArg(2, LocalMemory{groupSize * sizeof(int32_t)});
    s.launch(k, NDRange(groups * groupSize), NDRange(groupSize));
    std::vector<int32_t> sums = s.downloadValues<int32_t>(out);
    for (size_t g = 0; g < groups; ++g) {
        auto first = in.begin() + static_cast<ptrdiff_t>(g * groupSize);
        CHECK(sums[g] == std::accumulate(first, first + groupSize, 0));
    }
}

TEST_CASE("a build failure reports the build log", "[runtime]") {
    const char* source = "__kernel void broken(__global int* x) { x[0] = undeclared_thing_xyz; }";
    try {
        session().build(source, "broken");
        FAIL("the build succeeded");
    } catch (const BuildError& e) {
        CHECK(e.log().find("undeclared_thing_xyz") != std::string::npos);
        CHECK(std::string(e.what()).find("undeclared_thing_xyz") != std::string::npos);
        CHECK(std::string(e.what()).find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos);
    }
    CHECK_THROWS_WITH(session().build(kVectorAdd, "vsub"),
                      Catch::Contains("no kernel 'vsub'") && Catch::Contains("vadd"));
}

TEST_CASE("a program built ahead on another thread serves build(), failures included",
          "[runtime]") {
    Session s(selectDevice(""));
    const std::string twice = std::string(kVectorAdd) + "\n// built ahead\n";
    s.prebuild(twice);
    s.prebuild(twice); // once is enough: the second is the same program
    Kernel a = s.build(twice, "vadd");
    Kernel b = s.build(twice, "vadd"); // the kept program, another kernel object
    CHECK(a.name() == "vadd");
    CHECK(b.name() == "vadd");
    const char* broken = "__kernel void broken2(__global int* x) { x[0] = not_declared_abc; }";
    s.prebuild(broken);
    for (int attempt = 0; attempt < 2; ++attempt) { // the kept failure, with its log
        try {
            s.build(broken, "broken2");
            FAIL("the build succeeded");
        } catch (const BuildError& e) {
            CHECK(e.log().find("not_declared_abc") != std::string::npos);
        }
    }
}

TEST_CASE("kernel argument and launch errors are reported clearly", "[runtime]") {
    Session& s = session();
    Kernel k = s.build(kVectorAdd, "vadd", "-cl-std=CL1.2");
    Buffer buffer = s.allocate(64);
    CHECK(k.argCount() == 4);
    CHECK_THROWS_WITH(k.setArg(4, 1.0f), Catch::Contains("argument 4 of kernel 'vadd'") &&
                                             Catch::Contains("has 4 arguments"));
    CHECK_THROWS_WITH(k.setArg(3, buffer), Catch::Contains("argument 3 of kernel 'vadd'") &&
                                               Catch::Contains("CL_INVALID"));
    k.setArg(0, buffer);
    k.setArg(1, buffer);
    CHECK_THROWS_WITH(s.launch(k, 16, 4),
                      Catch::Contains("argument 2 of kernel 'vadd' was never set"));
    k.setArg(2, buffer);
    k.setArg(3, int32_t{16});
    CHECK_THROWS_WITH(s.launch(k, 16, 5), Catch::Contains("does not divide"));
    CHECK_THROWS_WITH(s.launch(k, NDRange(16), NDRange(4, 4)), Catch::Contains("dimensions"));
    CHECK_THROWS_WITH(s.launch(k, 1 << 20, 1 << 20), Catch::Contains("exceeds"));
    // A local size over the device's per-dimension limit is named as such, dimension included.
    size_t most = s.device().maxWorkItemSizes[2];
    REQUIRE(most > 0);
    CHECK_THROWS_WITH(s.launch(k, NDRange(1, 1, 2 * most), NDRange(1, 1, 2 * most)),
                      Catch::Contains("in dimension 2") &&
                          Catch::Contains("CL_DEVICE_MAX_WORK_ITEM_SIZES"));
    CHECK_THROWS_AS(s.upload({}), Error);
}

namespace {

// A one-item kernel that runs for about `iterations` dependent multiply-adds.
Kernel spinKernel(Session& s, int32_t iterations) {
    const char* source = R"CL(
__kernel void spin(__global float* out, int iterations) {
    float x = (float)get_global_id(0);
    for (int i = 0; i < iterations; ++i) x = x * 0.999999f + 1.0f;
    out[get_global_id(0)] = x;
})CL";
    Kernel k = s.build(source, "spin");
    k.setArg(0, s.allocate(sizeof(float)));
    k.setArg(1, iterations);
    return k;
}

} // namespace

TEST_CASE("a kernel that overruns its deadline times out", "[runtime]") {
    // A session of its own, since a timed-out session is abandoned.
    Session s(selectDevice(""));
    Kernel k = spinKernel(s, 50'000'000);
    CHECK(!s.abandoned());
    CHECK(s.drain(std::chrono::milliseconds(0))); // nothing timed out
    CHECK_THROWS_AS(s.launch(k, 1, 1, std::chrono::milliseconds(1)), KernelTimeout);
    CHECK(s.abandoned());
    CHECK_THROWS_WITH(s.launch(k, 1, 1), Catch::Contains("timed out"));
    // PoCL crashes if the process exits while the abandoned kernel still runs.
    CHECK(clFinish(s.queue()) == CL_SUCCESS);
}

TEST_CASE("draining waits for a timed-out kernel up to a bound", "[runtime]") {
    Session s(selectDevice(""));
    // Long enough that 1 ms cannot see it end, short enough for the generous bound below.
    Kernel k = spinKernel(s, 200'000'000);
    REQUIRE_THROWS_AS(s.launch(k, 1, 1, std::chrono::milliseconds(1)), KernelTimeout);
    CHECK(!s.drain(std::chrono::milliseconds(1)));
    CHECK(s.drain(std::chrono::minutes(5)));
    CHECK(s.drain(std::chrono::milliseconds(0))); // still finished
    CHECK(s.abandoned());
    // The destructor releases the queue and context normally now that the kernel has ended.
}

TEST_CASE("the median of run times", "[runtime]") {
    CHECK(medianOf({}) == 0);
    CHECK(medianOf({7}) == 7);
    CHECK(medianOf({9, 1, 5}) == 5);
    CHECK(medianOf({10, 2, 4, 8}) == 6);
}
