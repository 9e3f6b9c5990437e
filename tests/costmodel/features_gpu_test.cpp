// GPU rules of the features that follow what a warp and the compiler do with a kernel
// (docs/cost-models.md, "Features"): private moves are register renames, a warp-uniform local
// read is one broadcast, and a strided global access moves its warp's sectors.
#include "support.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

TEST_CASE("on a GPU, moves between private values are no work", "[features]") {
    // The v x 1 register block: per step and row a tuple of the two loads, a product, a sum and
    // a copy of the accumulator back; the copy is renamed away where private data is registers.
    arith::Bindings sizes{{"M", 64}, {"N", 64}, {"K", 64}};
    std::string file = sourceDir() + "/tests/costmodel/data/mm_block_v16x1.lift";
    Features gpu = featuresOfFile(file, sizes, testGpuProfile());
    Features cpu = featuresOfFile(file, sizes, testProfile());
    INFO("statements: GPU " << gpu.total.privateAccesses << ", CPU " << cpu.total.privateAccesses);
    CHECK(gpu.total.privateAccesses < 0.8 * cpu.total.privateAccesses);
    CHECK(gpu.total.arithOps == cpu.total.arithOps);
}

TEST_CASE("on a GPU, a warp reading one local address is served by one broadcast", "[features]") {
    // Every work-item of a group reads the same float4 of A's row staged in local memory.
    arith::Bindings sizes{{"M", 64}, {"N", 32}, {"K", 16}};
    std::string file = sourceDir() + "/tests/costmodel/data/mm_dot_local_row.lift";
    Features gpu = featuresOfFile(file, sizes, testGpuProfile());
    Features cpu = featuresOfFile(file, sizes, testProfile());
    // The copy of A into local memory (a store per element) and the reads of it: M x N
    // work-items reading K floats, once per warp of 32 on the GPU.
    double copy = 64.0 * 16 * 4, reads = 64.0 * 32 * 16 * 4;
    CHECK(cpu.total.localBytes == Approx(copy + reads));
    CHECK(gpu.total.localBytes == Approx(copy + reads / 32));
}

TEST_CASE("on a GPU, a strided access counts the bytes of the sectors its warp moves",
          "[features]") {
    // Work-items summing S consecutive floats: a warp's lanes read words 4S bytes apart. With
    // neither a span nor sectors such reads are strided; with 32-byte sectors S = 2 moves twice
    // the bytes it uses (lanes share sectors), S = 8 or more eight times (a sector per lane).
    arith::Bindings sizes{{"N", 4096}};
    DeviceProfile gpu = testGpuProfile();
    gpu.driverLocalSize = 256;
    gpu.sectorBytes = 32;
    for (auto [s, factor] : {std::pair{2, 2.0}, {8, 8.0}, {16, 8.0}}) {
        INFO("chunks of " << s);
        Features f = computeFeatures(generateText(chunkSums(s), sizes), sizes, gpu);
        CHECK(f.total.globalReadStrided == 0);
        CHECK(f.total.globalReadCoalesced == Approx(4096 * 4 * factor));
        Features words =
            computeFeatures(generateText(chunkSums(s), sizes), sizes, testGpuProfile());
        CHECK(words.total.globalReadStrided == 4096 * 4);
    }
}

TEST_CASE("on a GPU, a work-item reading on through its line coalesces at any distance",
          "[features]") {
    // Chunks of 64 floats (neighbours 256 bytes apart): each work-item reads on through its
    // line, which the L1 keeps; the load/store path still takes a line per lane.
    std::string text = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Join() o "
                       "MapGlb(0)(fun(c => toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) $ c)) o "
                       "Split(64) $ xs)";
    arith::Bindings sizes{{"N", 65536}};
    DeviceProfile gpu = testGpuProfile();
    gpu.driverLocalSize = 256;
    gpu.transactionBytes = 128;
    gpu.coalescedSpanBytes = 1 << 30;
    Features f = computeFeatures(generateText(text, sizes), sizes, gpu);
    CHECK(f.total.globalReadStrided == 0);
    CHECK(f.total.globalReadCoalesced == 65536 * 4);
    // A line per lane and read; the 1024 sums are stored coalesced.
    CHECK(f.total.globalTransactions == Approx(65536.0 + 1024.0 / 32));
    gpu.coalescedSpanBytes = 32;
    CHECK(computeFeatures(generateText(text, sizes), sizes, gpu).total.globalReadStrided ==
          65536 * 4);
}
