// Canonical form: sizes equal by the ring laws compare equal, and the basic accessors.
#include "egopt/arith/size.hpp"
#include "sizes.hpp"

#include <catch2/catch.hpp>
#include <unordered_set>

using namespace egopt::testenv::arith_sizes;

using egopt::arith::Size;

namespace {} // namespace

TEST_CASE("commutative ring laws give equal sizes", "[arith]") {
    CHECK(2 * N == N * 2);
    CHECK(N + M == M + N);
    CHECK((N + 1) * (N - 1) == N * N - 1);
    CHECK(N * (M + 1) == N * M + N);
    CHECK(N - N == Size(0));
    CHECK(-(-N) == N);
    CHECK(N + N + N == 3 * N);
    CHECK(N != M);
    CHECK(N + 1 != N);
    CHECK(2 * N != N * N);
}

TEST_CASE("exact division cancels with multiplication", "[arith]") {
    CHECK(exactDiv(N, Size(128)) * 128 == N);
    CHECK(exactDiv(N * M, M) == N);
    CHECK(exactDiv(N, M) * M == N);
    CHECK(exactDiv(N * N - 1, N + 1) == N - 1); // long division by a sum
    CHECK(exactDiv(N, Size(2)) + exactDiv(N, Size(2)) == N);
    CHECK(exactDiv(N, Size(4)) != exactDiv(N, Size(2)));
}

TEST_CASE("floor division and modulo are canonical where the value is fixed", "[arith]") {
    CHECK(floorDiv(Size(7), Size(2)) == Size(3));
    CHECK(floorDiv(Size(-7), Size(2)) == Size(-4));
    CHECK(mod(Size(-7), Size(2)) == Size(1));
    CHECK(floorDiv(4 * N + 8, Size(4)) == N + 2);
    CHECK(mod(4 * N + 8, Size(4)) == Size(0));
    CHECK(floorDiv(N * M, M) == N);
    CHECK(mod(N * M, N) == Size(0));
    CHECK(floorDiv(floorDiv(i, Size(2)), Size(3)) == floorDiv(i, Size(6)));
    CHECK(floorDiv(i, Size(4)) != floorDiv(i, Size(2)));
    CHECK(floorDiv(i + 1, Size(4)) == floorDiv(1 + i, Size(4)));
}

TEST_CASE("powers expand for small constant exponents", "[arith]") {
    CHECK(pow(N + 1, Size(2)) == (N + 1) * (N + 1));
    CHECK(pow(Size(2), Size(10)) == Size(1024));
    CHECK(pow(N, Size(0)) == Size(1));
    CHECK(pow(N, Size(-1)) * N == Size(1));
    CHECK(pow(Size(2), N) == pow(Size(2), N));
    CHECK(pow(Size(2), N) != pow(Size(3), N));
    CHECK(pow(Size(2), N) * pow(Size(2), N) == pow(pow(Size(2), N), Size(2)));
}

TEST_CASE("accessors: constant, variable, variables", "[arith]") {
    CHECK(Size(42).constant() == 42);
    CHECK(Size(42).isConstant());
    CHECK_FALSE(N.isConstant());
    CHECK_FALSE(exactDiv(Size(1), Size(2)).constant().has_value());
    CHECK(N.variable() == "N");
    CHECK_FALSE((2 * N).variable().has_value());
    CHECK((floorDiv(i + M, N) * pow(Size(2), Size::var("K"))).variables() ==
          std::vector<std::string>{"K", "M", "N", "i"});
    CHECK(Size(5).variables().empty());
}

TEST_CASE("order and hash are consistent with equality", "[arith]") {
    Size a = N * 2 + 1;
    Size b = 1 + 2 * N;
    CHECK(a.hash() == b.hash());
    CHECK_FALSE(a < b);
    CHECK_FALSE(b < a);
    CHECK(((N < M) != (M < N)));
    std::unordered_set<Size> set{a, b, N, M};
    CHECK(set.size() == 3);
}
