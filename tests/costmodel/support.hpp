// Shared helpers of the cost-model tests: generate a .lift program and compute its features.
#pragma once

#include "egopt/costmodel/costmodel.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

namespace egopt::costmodel::test {

// An environment variable's value, or `fallback` when it is unset or empty (the hidden
// calibration and re-timing cases take their settings from the environment).
inline std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

// A copy kernel: one coalesced read and write per element.
inline const char* const kCopy = R"(val N = SizeVar("N")
fun(ArrayType(Float, N), xs => MapGlb(0)(id) $ xs))";

inline std::string sourceDir() {
    return EGOPT_SOURCE_DIR;
}

// A profile with fixed constants (no device needed): 2 compute units, 64-wide driver groups.
inline DeviceProfile testProfile() {
    DeviceProfile p;
    p.name = "test";
    p.computeUnits = 2;
    p.driverLocalSize = 64;
    return p;
}

inline codegen::GeneratedCode generateText(const std::string& text, const arith::Bindings& sizes) {
    lift::Program p = lift::parseProgram(text, "test.lift");
    lift::TypeInfo info = lift::typecheck(p);
    return codegen::generate(p, info, sizes);
}

inline Features featuresOf(const std::string& text, const arith::Bindings& sizes) {
    return computeFeatures(generateText(text, sizes), sizes, testProfile());
}

inline Features featuresOfFile(const std::string& path, const arith::Bindings& sizes,
                               const DeviceProfile& profile = testProfile()) {
    lift::Program p = lift::parseFile(path);
    lift::TypeInfo info = lift::typecheck(p);
    return computeFeatures(codegen::generate(p, info, sizes), sizes, profile);
}

// asum at 128M after the first level's 65,536 partial sums: the tail as one work-group
// (tests/costmodel/data/asum_tail_one_group.lift, 2 kernels with the first level) and as three
// more kernels (asum_tail_kernels.lift, 4 kernels), featured for `profile`.
struct AsumTails {
    Features oneGroup, kernels;
};

inline AsumTails asumTails(const DeviceProfile& profile) {
    arith::Bindings sizes{{"N", int64_t(1) << 27}};
    std::string dir = sourceDir() + "/tests/costmodel/data/";
    AsumTails t{featuresOfFile(dir + "asum_tail_one_group.lift", sizes, profile),
                featuresOfFile(dir + "asum_tail_kernels.lift", sizes, profile)};
    REQUIRE(t.oneGroup.kernels.size() == 2);
    REQUIRE(t.kernels.kernels.size() == 4);
    return t;
}

// Work-items summing S consecutive floats with scalar loads: a warp's neighbouring lanes read
// words 4S bytes apart (the coalescing span's and the sectors' tests).
inline std::string chunkSums(int s) {
    return "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Join() o MapGlb(0)(fun(c "
           "=> toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) $ c)) o Split(" +
           std::to_string(s) + ") $ xs)";
}

// testProfile() as a GPU: accesses are classified across neighbouring work-items.
inline DeviceProfile testGpuProfile() {
    DeviceProfile p = testProfile();
    p.gpu = true;
    p.lanes = 32;
    return p;
}

// The sizes of the mm kernels in tests/costmodel/data/mm/, and one of them by name.
inline const arith::Bindings kMm{{"M", 64}, {"N", 32}, {"K", 16}};
inline std::string mmFile(const std::string& name) {
    return sourceDir() + "/tests/costmodel/data/mm/" + name + ".lift";
}

} // namespace egopt::costmodel::test
