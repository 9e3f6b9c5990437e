// Features of small kernels whose traffic and work are known by hand.
#include "support.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

const char* kTranspose = R"(val M = SizeVar("M")
val N = SizeVar("N")
fun(ArrayType(ArrayType(Float, M), N), a => MapGlb(0)(MapSeq(id)) o Transpose() $ a))";

const char* kRows = R"(val M = SizeVar("M")
val N = SizeVar("N")
fun(ArrayType(ArrayType(Float, M), N), a => MapGlb(0)(MapSeq(id)) $ a))";

} // namespace

TEST_CASE("a copy kernel reads and writes N floats coalesced", "[features]") {
    Features f = featuresOf(kCopy, {{"N", 1024}});
    REQUIRE(f.kernels.size() == 1);
    const KernelFeatures& k = f.total;
    CHECK(k.globalReadCoalesced == 4096);
    CHECK(k.globalWriteCoalesced == 4096);
    CHECK(k.globalReadStrided == 0);
    CHECK(k.globalWriteStrided == 0);
    CHECK(k.workItems == 1024);
    CHECK(k.workGroups == 16); // driver-chosen groups of 64 (testProfile)
    CHECK(k.userFunCalls == 1024);
    CHECK(k.arithOps == 0); // id does no arithmetic
    CHECK(k.launches == 1);
}

TEST_CASE("row-per-work-item reads are strided on a GPU, through a transpose they coalesce",
          "[features]") {
    // Work-item i reads a[i][j]: consecutive work-items (a GPU's lanes) are a row (M floats)
    // apart.
    arith::Bindings sizes{{"M", 64}, {"N", 32}};
    Features rows = computeFeatures(generateText(kRows, sizes), sizes, testGpuProfile());
    CHECK(rows.total.globalReadStrided == 64 * 32 * 4);
    CHECK(rows.total.globalReadCoalesced == 0);
    CHECK(rows.total.globalWriteStrided == 64 * 32 * 4);
    CHECK(rows.total.loopTrips == 64);
    // Work-item i reads a[j][i] (a transposed view): consecutive addresses; its writes out[i][j]
    // are N floats apart.
    Features f = computeFeatures(generateText(kTranspose, sizes), sizes, testGpuProfile());
    const KernelFeatures& k = f.total;
    CHECK(k.globalReadCoalesced == 64 * 32 * 4);
    CHECK(k.globalReadStrided == 0);
    CHECK(k.globalWriteStrided == 64 * 32 * 4);
    CHECK(k.loopTrips == 32);
}

TEST_CASE("naive matrix product on a GPU: 2MNK operations, coalescing follows the dimensions",
          "[features]") {
    Features good = featuresOfFile(mmFile("naive_glb10"), kMm, testGpuProfile());
    CHECK(good.total.arithOps == 2.0 * 64 * 32 * 16);
    CHECK(good.total.workItems == 64 * 32);
    CHECK(good.total.globalReadStrided == 0); // A: uniform in dimension 0, B: consecutive
    // A's element is one address for a warp's 32 lanes: one access per warp.
    CHECK(good.total.globalReadCoalesced == 64 * 32 * 16 * 4 * (1 + 1.0 / 32));
    CHECK(good.total.globalWriteCoalesced == 64 * 32 * 4);

    Features bad = featuresOfFile(mmFile("naive_glb01"), kMm, testGpuProfile());
    CHECK(bad.total.arithOps == good.total.arithOps);
    CHECK(bad.total.globalReadStrided == 64.0 * 32 * 16 * 4); // A rows K apart
    CHECK(bad.total.globalWriteStrided == 64 * 32 * 4);
}

TEST_CASE("naive matrix product on a CPU: accesses follow each work-item's own loop",
          "[features]") {
    // A work-item runs its reduction loop alone: A's row is read consecutively, B's column N
    // floats apart, whichever dimension the work-items take. The write after the loop is
    // classified across work-items (the compiler's loop over them).
    for (const char* name : {"naive_glb10", "naive_glb01"}) {
        INFO(name);
        Features f = featuresOfFile(mmFile(name), kMm);
        CHECK(f.total.globalReadCoalesced == 64.0 * 32 * 16 * 4);
        CHECK(f.total.globalReadStrided == 64.0 * 32 * 16 * 4);
    }
    CHECK(featuresOfFile(mmFile("naive_glb10"), kMm).total.globalWriteCoalesced == 64 * 32 * 4);
    CHECK(featuresOfFile(mmFile("naive_glb01"), kMm).total.globalWriteStrided == 64 * 32 * 4);
}

TEST_CASE("work-groups, local memory and barriers of a staged kernel", "[features]") {
    Features f = featuresOfFile(mmFile("local_row_t16"), kMm);
    const KernelFeatures& k = f.total;
    CHECK(k.workGroupSize == 16); // the K = 16 copy and the 16-column tile
    CHECK(k.workGroups == 64 * 2);
    CHECK(k.barriers == 1);
    // Each group writes its row (K floats) to local memory and every work-item reads it.
    CHECK(k.localBytes == 64 * 2 * (16 * 4 + 16 * 16 * 4));
}

TEST_CASE("iterate loops are followed iteration by iteration", "[features]") {
    Features f =
        featuresOfFile(sourceDir() + "/tests/codegen/programs/iterate_local.lift", {{"N", 1024}});
    const KernelFeatures& k = f.total;
    CHECK(k.globalReadCoalesced + k.globalReadStrided == 1024 * 4);
    CHECK(k.barriers >= 4);
    CHECK(k.localBytes > 0);
}

TEST_CASE("every hand-lowered test program has features", "[features]") {
    for (const char* name : {"partial_dot", "copy_vec4", "asum_gpu", "transpose"}) {
        INFO(name);
        Features f = featuresOfFile(sourceDir() + "/examples/lowlevel/" + name + ".lift",
                                    {{"N", 4096}, {"M", 64}});
        CHECK(f.total.workItems >= 1);
        CHECK(f.total.globalReadCoalesced + f.total.globalReadStrided > 0);
    }
    Features v = featuresOfFile(sourceDir() + "/examples/lowlevel/copy_vec4.lift", {{"N", 4096}});
    CHECK(v.total.globalReadCoalesced == 4096 * 4); // vload4: 16 bytes per work-item, contiguous
}

TEST_CASE("reading a thread id is not work: a nest over two dimensions counts what one does",
          "[features]") {
    // The same copy as one MapWrg over rows and as a MapWrg(0) of MapWrg(1) over split rows:
    // the second reads get_group_id(1) too, which the compiler hoists out of the work-item loop.
    const char* flat = R"(val M = SizeVar("M")
val N = SizeVar("N")
fun(ArrayType(ArrayType(Float, M), N), a => MapWrg(0)(MapLcl(0)(id)) $ a))";
    const char* nested = R"(val M = SizeVar("M")
val N = SizeVar("N")
fun(ArrayType(ArrayType(Float, M), N), a => Join() o MapWrg(0)(MapWrg(1)(MapLcl(0)(id))) o Split(4) $ a))";
    arith::Bindings sizes{{"M", 64}, {"N", 32}};
    Features f = featuresOf(flat, sizes), g = featuresOf(nested, sizes);
    CHECK(g.total.workGroups == f.total.workGroups);
    CHECK(g.total.privateAccesses == f.total.privateAccesses);
    CHECK(g.total.workPerItem == f.total.workPerItem);
}

TEST_CASE("a GPU coalesces a work-item's access up to its limit: float4, not float16",
          "[features]") {
    auto copy = [](int width) {
        std::string w = std::to_string(width);
        return "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => asScalar() o "
               "MapGlb(0)(VectorizeUserFun(" +
               w + ", id)) o asVector(" + w + ") $ xs)";
    };
    arith::Bindings sizes{{"N", 4096}};
    DeviceProfile gpu = testGpuProfile();
    gpu.maxCoalescedBytes = 16;
    for (int width : {4, 8, 16}) {
        INFO("float" << width);
        Features f = computeFeatures(generateText(copy(width), sizes), sizes, gpu);
        bool wide = width * 4 > 16;
        CHECK(f.total.globalReadCoalesced == (wide ? 0 : 4096 * 4));
        CHECK(f.total.globalReadStrided == (wide ? 4096 * 4 : 0));
        CHECK(f.total.globalWriteStrided == (wide ? 4096 * 4 : 0));
        // No limit (a CPU, or a GPU class without max_coalesced_bytes): every width coalesces.
        Features unlimited =
            computeFeatures(generateText(copy(width), sizes), sizes, testGpuProfile());
        CHECK(unlimited.total.globalReadStrided == 0);
    }
}

// Work-items summing S consecutive floats with scalar loads: neighbours 4S bytes apart. On a GPU
// with a coalesced span of 32 bytes (its sectors) S = 2, 4, 8 coalesce and S = 16 does not; with
// no span only neighbours one element apart do. Along a CPU work-item's own loop the span plays
// no part.
TEST_CASE("a GPU coalesces scalar loads of neighbours within its span", "[features]") {
    arith::Bindings sizes{{"N", 4096}};
    DeviceProfile gpu = testGpuProfile();
    gpu.coalescedSpanBytes = 32;
    for (int s : {2, 4, 8, 16}) {
        INFO("chunks of " << s);
        codegen::GeneratedCode code = generateText(chunkSums(s), sizes);
        Features f = computeFeatures(code, sizes, gpu);
        bool within = s * 4 <= 32;
        CHECK(f.total.globalReadCoalesced == (within ? 4096 * 4 : 0));
        CHECK(f.total.globalReadStrided == (within ? 0 : 4096 * 4));
        Features noSpan = computeFeatures(code, sizes, testGpuProfile());
        CHECK(noSpan.total.globalReadStrided == 4096 * 4);
    }
}

// Transactions (GPU, 128-byte lines): a warp's scalar copy touches one line per access, a float4
// copy runs as four scalar loads 16 bytes apart (four lines each), a warp-uniform read one line.
TEST_CASE("global transactions: lines per warp access, vloadN as N scalar pieces", "[features]") {
    arith::Bindings sizes{{"N", 4096}};
    DeviceProfile gpu = testGpuProfile();
    gpu.driverLocalSize = 256;
    gpu.transactionBytes = 128;
    Features scalar = computeFeatures(generateText(kCopy, sizes), sizes, gpu);
    CHECK(scalar.total.globalTransactions == Approx(2.0 * 4096 / 32));
    Features vec = featuresOfFile(sourceDir() + "/examples/lowlevel/copy_vec4.lift", sizes, gpu);
    CHECK(vec.total.globalTransactions == Approx(2.0 * 1024 * 4 * 4 / 32));
    // No line size (a CPU class, or a GPU class without it): not counted.
    CHECK(computeFeatures(generateText(kCopy, sizes), sizes, testGpuProfile())
              .total.globalTransactions == 0);
}
