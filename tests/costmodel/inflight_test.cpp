// Bytes in flight (docs/cost-models.md, "Bytes in flight"): a compute unit reaches its share of
// DRAM bandwidth only with enough read bytes in flight, its work-items in flight times the bytes
// each keeps in flight. scal's forms on an H200 differ in nothing else the model sees.
#include "recorded.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;

namespace {

std::string scal(const std::string& body) {
    return "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), Float, (xs, alpha) => " + body + ")";
}

// Chunks of C floats, a work-group each, its work-items stepping through the chunk by the group
// size: a loop starting at the local id.
std::string scalChunks(int64_t c) {
    return scal("Join() $ (MapWrg(0)(MapLcl(0)(fun(x => mult(alpha, x)))) $ (Split(" +
                std::to_string(c) + ") $ xs))");
}

const std::string kScalar = scal("MapGlb(0)(fun(x => mult(alpha, x))) $ xs");
const std::string kFloat4 = scal("asScalar() $ (MapGlb(0)(fun(x => VectorizeUserFun(4, mult)("
                                 "alpha, x))) $ (asVector(4) $ xs))");
const arith::Bindings kScal{{"N", int64_t{1} << 27}};

} // namespace

TEST_CASE("a work-item keeps the reads of its body and of its unrolled loops in flight",
          "[features]") {
    auto model = loadModel(sourceDir() + "/costmodel/analytic.json");
    DeviceProfile gpu = recordedProfile(*model, "nvidia-gpu");
    auto inFlight = [&](const std::string& text) {
        Features f = computeFeatures(generateText(text, kScal), kScal, gpu);
        REQUIRE(f.kernels.size() == 1);
        return f.kernels[0].readBytesInFlight;
    };
    CHECK(inFlight(kScalar) == 4);
    CHECK(inFlight(kFloat4) == 16);
    CHECK(inFlight(scalChunks(2048)) == 32);   // 8 iterations, unrolled completely
    CHECK(inFlight(scalChunks(524288)) == 16); // 2048 from the local id: 4 in flight
    // A sequential reduction of constant trip count is not bounded.
    CHECK(inFlight(chunkSums(512)) == 0);
    // Nor is anything on a CPU.
    CHECK(computeFeatures(generateText(kScalar, kScal), kScal, testProfile())
              .kernels[0]
              .readBytesInFlight == 0);
}

// On an H200 (2026-11-28) scal over chunks of 524,288 floats (256 work-groups, 496 work-items
// per compute unit) took 0.415 ms, the same loop over chunks of 16384 0.279 and the float4 map
// 0.257; without the bound the first was predicted the fastest of the three.
TEST_CASE("scal's chunks with few work-items per compute unit wait for DRAM", "[models]") {
    auto model = loadModel(sourceDir() + "/costmodel/analytic.json");
    DeviceProfile gpu = recordedProfile(*model, "nvidia-gpu");
    auto predict = [&](const std::string& text, const DeviceProfile& p) {
        return model->predictSeconds(computeFeatures(generateText(text, kScal), kScal, p), p);
    };
    double few = predict(scalChunks(524288), gpu), many = predict(scalChunks(16384), gpu);
    double float4 = predict(kFloat4, gpu);
    INFO("chunks of 524288 " << few << " s, of 16384 " << many << " s, float4 map " << float4);
    CHECK(few > 1.5 * many);
    CHECK(few > 1.5 * float4);
    DeviceProfile unbounded = gpu;
    unbounded.dramBytesInFlight = 0;
    CHECK(predict(scalChunks(524288), unbounded) < predict(kFloat4, unbounded));
}
