// Kernels that do not fit the device are rejected before anything is built or allocated
// (codegen::resourceProblem): too much private memory per work-item (PoCL segfaults on those),
// local memory per work-group, a buffer above the largest allocation, all buffers above the
// global memory. Also iterate loops: one-element private arrays and huge iteration counts.
#include "codegen_support.hpp"
#include "egopt/interp/interpreter.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>

using egopt::testenv::contains;

using namespace egopt;
using namespace egopt::codegen;
using namespace egopt::codegen::test;

namespace {

// Each global thread copies a chunk of C floats through a private array of C floats.
std::string privateChunk(int c) {
    return "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs =>\n"
           "  Join() o MapGlb(0)(toGlobal(MapSeq(id)) o toPrivate(MapSeq(id))) o Split(" +
           std::to_string(c) + ") $ xs)";
}

} // namespace

TEST_CASE("private memory per work-item is estimated and capped before the launch", "[codegen]") {
    Generated small = generateText(privateChunk(16), {{"N", 64}});
    CHECK(small.code.kernel.privateBytes == 16 * sizeof(float));
    CHECK(contains(small.code.launchJson(), "\"private_memory_bytes\": 64"));
    CHECK(resourceProblem(small.code, small.sizes, session().device()).empty());
    CHECK(validate(small).ok);

    // 16384 floats per work-item: PoCL crashed the process on this kernel; now it never runs.
    Generated big = generateText(privateChunk(16384), {{"N", 16384 * 4}});
    CHECK(big.code.kernel.privateBytes == 16384 * sizeof(float));
    std::string why = resourceProblem(big.code, big.sizes, session().device());
    CHECK(contains(why, "private memory per work-item"));
    RunOptions o;
    o.runs = 1;
    CHECK_THROWS_AS(runTimed(session(), big.program, big.sizes, big.code, o), ResourceError);
    CHECK_THROWS_WITH(runAndValidate(session(), big.program, big.info, big.sizes, big.code, o),
                      Catch::Contains("rejected before launch"));
    // A larger cap lets it through the check (it is not run here).
    CHECK(resourceProblem(big.code, big.sizes, session().device(), 1 << 20).empty());
}

TEST_CASE("a driver-chosen work-group is bounded by its private memory", "[codegen]") {
    LaunchConfig c;
    c.global = {1024, 1, 1};
    CHECK(boundedLocal(c, 64, 4096).driverLocal); // 256 KiB a work-group at most: unchanged
    LaunchConfig b = boundedLocal(c, 16 * 1024, 4096);
    CHECK(!b.driverLocal);
    CHECK(b.local[0] == 128); // 2 MiB / 16 KiB
    c.global = {1000, 1, 1};
    CHECK(boundedLocal(c, 16 * 1024, 4096).local[0] == 125); // a divisor of the global size
    c.driverLocal = false;
    c.local = {512, 1, 1};
    CHECK(boundedLocal(c, 16 * 1024, 4096).local[0] == 512); // explicit: resourceProblem's job

    // 16 KiB per work-item, 1024 work-items: PoCL's own work-group choice crashed the process
    // (a work-group's private arrays overflowed its thread's stack); bounded, it runs.
    Generated g = generateText(privateChunk(4096), {{"N", 4096 * 1024}});
    REQUIRE(g.code.kernel.launch.driverLocal);
    CHECK(resourceProblem(g.code, g.sizes, session().device()).empty());
    RunOptions o;
    o.runs = 1;
    o.keepOutput = true;
    o.seed = 5;
    TimedResult r = runTimed(session(), g.program, g.sizes, g.code, o);
    std::vector<interp::Value> in = interp::randomInputs(g.program, g.sizes, 5);
    REQUIRE(r.output.size() == size_t(4096 * 1024));
    CHECK(r.output[12345] == in.at(0).elems().at(12345).toDouble());
}

TEST_CASE("local memory and global buffers are checked against the device's limits", "[codegen]") {
    Generated local = generateFile(testProgram("local_mem"), {{"N", 128}});
    REQUIRE(local.code.kernel.localBytes > 0);
    runtime::Device d = session().device();
    CHECK(resourceProblem(local.code, local.sizes, d).empty());
    d.localMemBytes = local.code.kernel.localBytes - 1;
    CHECK(contains(resourceProblem(local.code, local.sizes, d), "CL_DEVICE_LOCAL_MEM_SIZE"));

    Generated g = generateText(privateChunk(4), {{"N", 1024}}); // 4 KiB in, 4 KiB out
    runtime::Device small = session().device();
    small.maxAllocBytes = 4096;
    CHECK(resourceProblem(g.code, g.sizes, small).empty());
    small.maxAllocBytes = 4095;
    CHECK(contains(resourceProblem(g.code, g.sizes, small), "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
    small.maxAllocBytes = 4096;
    small.globalMemBytes = 8191;
    CHECK(contains(resourceProblem(g.code, g.sizes, small), "CL_DEVICE_GLOBAL_MEM_SIZE"));
}

TEST_CASE("a materialised M x N x K temporary is rejected before allocation", "[codegen]") {
    // The shape that failed on an H100 with CL_MEM_OBJECT_ALLOCATION_FAILURE at 4096^3: the
    // products of each dot product stored in global memory, one slice per output element.
    const char* const text = R"(val M = SizeVar("M")
val N = SizeVar("N")
val K = SizeVar("K")
fun(ArrayType(ArrayType(Float, K), M), ArrayType(ArrayType(Float, N), K), (a, b) =>
  MapGlb(1)(fun(row => MapGlb(0)(fun(col =>
    toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult) $ Zip(row, col))) o
    Transpose() $ b)) $ a))";
    Generated g = generateText(text, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
    std::string why = resourceProblem(g.code, g.sizes, session().device());
    INFO(why);
    CHECK(contains(why, "274877906944 bytes"));
    // Rejected before the interpreter and before any allocation.
    CHECK_THROWS_AS(runAndValidate(session(), g.program, g.info, g.sizes, g.code), ResourceError);
    Generated small = generateText(text, {{"M", 8}, {"N", 8}, {"K", 8}});
    CHECK(validate(small).ok);
}

TEST_CASE("iterate over a one-element private array points at the scalar variable", "[codegen]") {
    Generated g = generateFile(testProgram("iterate_private1"), {{"N", 32}});
    INFO(g.code.source);
    CHECK(contains(g.code.source, "= &p_"));
    RunResult r = validate(g);
    INFO(r.summary());
    CHECK(r.ok);
}

TEST_CASE("iterate types its function up to a fixed point, not once per iteration", "[codegen]") {
    // 10^8 iterations: generation must not walk them (it did, for over a minute).
    const char* const text = R"(val N = SizeVar("N")
fun(ArrayType(Float, N), xs =>
  Join() o MapGlb(0)(toGlobal(MapSeq(id)) o Iterate(100000000)(toPrivate(MapSeq(plusOne))) o
    toPrivate(MapSeq(id))) o Split(4) $ xs))";
    Generated g = generateText(text, {{"N", 64}});
    CHECK(contains(g.code.source, "< 100000000;"));
    CHECK(g.code.kernel.privateBytes == 3 * 4 * sizeof(float)); // input copy + two buffers
}
