// Programs that are not fully lowered or break the thread hierarchy get a BadInput error naming
// the node; no kernel is produced.
#include "codegen_support.hpp"

#include <catch2/catch.hpp>

using namespace egopt::codegen::test;

namespace {

std::string errorOf(const std::string& source) {
    try {
        generateText(source, {{"N", 64}});
    } catch (const egopt::Error& e) {
        CHECK(e.kind() == egopt::ErrorKind::BadInput);
        CHECK(e.loc().known());
        return e.message();
    }
    FAIL("no error for: " << source);
    return {};
}

} // namespace

TEST_CASE("non-lowered programs are rejected with the node named", "[codegen]") {
    const std::string pre = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ";
    CHECK_THAT(errorOf(pre + "Map(plusOne) $ xs)"),
               Catch::Contains("Map") && Catch::Contains("not fully lowered"));
    CHECK_THAT(errorOf(pre + "MapGlb(0)(id) o Reduce(add, 0.0f) $ xs)"), Catch::Contains("Reduce"));
    CHECK_THAT(errorOf(pre + "MapLcl(0)(plusOne) $ xs)"),
               Catch::Contains("MapLcl(0)") && Catch::Contains("outside MapWrg"));
    CHECK_THAT(
        errorOf(pre + "Join() o MapWrg(0)(MapLcl(0)(MapLcl(0)(id))) o Split(8) o Split(4) $ xs)"),
        Catch::Contains("same dimension"));
    CHECK_THAT(errorOf(pre + "Join() o MapGlb(0)(MapGlb(0)(id)) o Split(8) $ xs)"),
               Catch::Contains("MapGlb(0)"));
    CHECK_THAT(errorOf(pre + "Join() o MapWrg(0)(MapGlb(0)(id)) o Split(8) $ xs)"),
               Catch::Contains("MapGlb inside MapWrg"));
}

TEST_CASE("private memory of a MapLcl read by another work-item is rejected", "[codegen]") {
    // Each work-item holds only its own element of the MapLcl's private result: reading it
    // reversed would read other work-items' registers.
    CHECK_THAT(errorOf("val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Join() o "
                       "MapWrg(0)(fun(c => toGlobal(MapLcl(0)(id)) o Gather(reverse) o "
                       "toPrivate(MapLcl(0)(id)) $ c)) o Split(16) $ xs)"),
               Catch::Contains("read by another work-item"));
}

TEST_CASE("PartRed is rejected with the node named", "[codegen]") {
    const std::string pre = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ";
    CHECK_THAT(errorOf(pre + "MapGlb(0)(id) o PartRed(add, 0.0f, 4) $ xs)"),
               Catch::Contains("PartRed") && Catch::Contains("partial reduction"));
}

TEST_CASE("a top-level Iterate of a parallel function is rejected", "[codegen]") {
    const std::string pre = "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => ";
    CHECK_THAT(errorOf(pre + "Iterate(3)(MapGlb(0)(plusOne)) $ xs)"),
               Catch::Contains("Iterate") && Catch::Contains("one kernel per iteration"));
}

TEST_CASE("symbolic sizes that must be constant are bad input", "[codegen]") {
    // A private array of N elements per thread cannot be declared in OpenCL C.
    auto p = egopt::lift::parseProgram(
        "val N = SizeVar(\"N\")\nval M = SizeVar(\"M\")\nfun(ArrayType(ArrayType(Float, N), M), "
        "a => MapGlb(0)(MapSeq(id) o toPrivate(MapSeq(id))) $ a)",
        "t.lift");
    auto info = egopt::lift::typecheck(p);
    CHECK_THROWS_WITH(egopt::codegen::generate(p, info, {}),
                      Catch::Contains("must be a constant") && Catch::Contains("--size"));
}

TEST_CASE("launch configuration JSON", "[codegen]") {
    Generated g = generateFile(example("partial_dot"), {{"N", 1024}});
    std::string j = g.code.launchJson();
    CHECK_THAT(j, Catch::Contains("\"global\"") && Catch::Contains("512") &&
                      Catch::Contains("\"local\"") && Catch::Contains("64"));
}
