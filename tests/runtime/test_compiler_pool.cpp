#include "egopt/runtime/compiler_pool.hpp"
#include "egopt/runtime/session.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sys/wait.h>

using namespace egopt;
using namespace egopt::runtime;

namespace {

const char* const kScale = R"CL(
__kernel void scale(__global const float* a, __global float* out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = 3.0f * a[i];
}
)CL";

// Runs `scale` from `session`'s program of `source` over 0..15 and returns the outputs.
std::vector<float> runScale(Session& session, const std::string& source) {
    std::vector<float> a(16);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = float(i);
    }
    Buffer in = session.uploadValues<float>(a), out = session.allocate(a.size() * sizeof(float));
    Kernel k = session.build(source, "scale");
    k.setArg(0, in);
    k.setArg(1, out);
    k.setArg(2, int32_t(a.size()));
    session.launch(k, a.size());
    return session.downloadValues<float>(out);
}

} // namespace

TEST_CASE("a compile worker builds programs the session loads and runs", "[runtime]") {
    Device device = selectDevice("");
    auto pool = std::make_shared<CompilerPool>(EGOPT_CLI, device, 2);
    CHECK(pool->workers() == 2);
    Session s(device);
    s.useCompilerPool(pool);
    // Two programs at once, one per worker; the binary the worker returns is the device's.
    std::string first = std::string(kScale) + "// first\n", second = std::string(kScale) + "// 2\n";
    std::shared_future<std::string> binary = pool->compile(first);
    CHECK(!binary.get().empty());
    s.prebuild(first);
    s.prebuild(second);
    for (const std::string& source : {first, second}) {
        std::vector<float> out = runScale(s, source);
        for (size_t i = 0; i < out.size(); ++i) {
            CHECK(out[i] == 3.0f * float(i));
        }
    }
    CHECK(s.loadedFromWorkers() == 2);
    // A source that does not compile fails with the worker's build log, as a local build would.
    const char* broken = "__kernel void broken3(__global int* x) { x[0] = undeclared_xyz; }";
    CHECK_THROWS_AS(pool->compile(broken).get(), BuildError);
    s.prebuild(broken);
    try {
        s.build(broken, "broken3");
        FAIL("the build succeeded");
    } catch (const BuildError& e) {
        CHECK(e.log().find("undeclared_xyz") != std::string::npos);
        CHECK(std::string(e.what()).find("undeclared_xyz") != std::string::npos);
    }
}

TEST_CASE("without a working compile worker the session builds from source", "[runtime]") {
    Device device = selectDevice("");
    // /bin/false exits at once: the worker is gone before its first request.
    auto pool = std::make_shared<CompilerPool>("/bin/false", device, 1);
    CHECK_THROWS_WITH(pool->compile(kScale).get(), Catch::Contains("compile worker"));
    Session s(device);
    s.useCompilerPool(pool);
    std::string source = std::string(kScale) + "// built here\n";
    s.prebuild(source);
    CHECK(runScale(s, source)[5] == 15.0f);
    CHECK(s.loadedFromWorkers() == 0);
    CHECK_THROWS_WITH(CompilerPool("/no/such/egopt", device, 2),
                      Catch::Contains("cannot start '/no/such/egopt'"));
}

TEST_CASE("egopt compile-worker rejects a malformed command line", "[runtime]") {
    std::string command = std::string(EGOPT_CLI) + " compile-worker --device 0 2>/dev/null";
    int status = std::system(command.c_str());
    CHECK(WEXITSTATUS(status) == 2);
}
