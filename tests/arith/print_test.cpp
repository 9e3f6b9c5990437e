// toString (Lift syntax) and toC.
#include "egopt/arith/size.hpp"
#include "sizes.hpp"

#include <catch2/catch.hpp>

using namespace egopt::testenv::arith_sizes;

using egopt::arith::Size;

namespace {} // namespace

TEST_CASE("toString prints Lift syntax", "[arith]") {
    CHECK(N.toString() == "N");
    CHECK((N * 2).toString() == "2*N");
    CHECK(exactDiv(N, Size(128)).toString() == "N/^128");
    CHECK(floorDiv(i + 1, Size(4)).toString() == "(i+1)/4");
    CHECK(mod(i, Size(4)).toString() == "i%4");
    CHECK(pow(Size(2), N).toString() == "pow(2,N)");
    CHECK(Size(0).toString() == "0");
    CHECK(Size(-3).toString() == "-3");
    CHECK((N - 1).toString() == "N-1");
    CHECK((1 - N).toString() == "-N+1");
    CHECK((N * M + N).toString() == "M*N+N");
    CHECK((N * N).toString() == "N*N");
    CHECK(pow(N, Size(6)).toString() == "pow(N,6)");
}

TEST_CASE("toString groups exact divisions over one denominator", "[arith]") {
    CHECK((exactDiv(N, Size(2)) + exactDiv(M, Size(2))).toString() == "(M+N)/^2");
    CHECK(exactDiv(N, M).toString() == "N/^M");
    CHECK(exactDiv(N, 2 * M).toString() == "N/^(2*M)");
    CHECK((exactDiv(N, Size(128)) - 1).toString() == "N/^128-1");
    CHECK((M - exactDiv(N, Size(128))).toString() == "M-N/^128");
    CHECK(exactDiv(3 * N, Size(4)).toString() == "3*N/^4");
}

TEST_CASE("toString parenthesises divisions inside products and sums", "[arith]") {
    CHECK((2 * floorDiv(i, Size(4))).toString() == "2*(i/4)");
    CHECK((-mod(i, Size(4))).toString() == "-(i%4)");
    CHECK((N - mod(i, Size(4))).toString() == "N-i%4");
    CHECK(floorDiv(i, N + 1).toString() == "i/(N+1)");
    CHECK(mod(i - 1, N).toString() == "(i-1)%N");
    CHECK((floorDiv(i, Size(4)) * mod(i, Size(4))).toString().find("(i/4)") != std::string::npos);
}

TEST_CASE("toC prints C integer expressions", "[arith]") {
    CHECK(exactDiv(N, Size(128)).toC() == "N/128");
    CHECK((exactDiv(N, Size(2)) + exactDiv(M, Size(2))).toC() == "(M+N)/2");
    CHECK((i * exactDiv(N, Size(4)) + 1).toC() == "N*i/4+1");
    CHECK(mod(i + 1, Size(4)).toC() == "(i+1)%4");
    CHECK(pow(Size(2), N).toC() == "(1<<N)");
    CHECK((N * N * N).toC() == "N*N*N");
}
