// Evaluation under concrete bindings, and substitution.
#include "egopt/arith/size.hpp"
#include "sizes.hpp"

#include <catch2/catch.hpp>
#include <limits>

using namespace egopt::testenv::arith_sizes;

using egopt::arith::Bindings;
using egopt::arith::Size;

namespace {} // namespace

TEST_CASE("evaluate computes values with floor semantics", "[arith]") {
    Bindings b{{"N", 256}, {"M", 3}, {"i", 7}};
    CHECK((2 * N + M).evaluate(b) == 515);
    CHECK(exactDiv(N, Size(128)).evaluate(b) == 2);
    CHECK(floorDiv(i + 1, Size(4)).evaluate(b) == 2);
    CHECK(mod(i, Size(4)).evaluate(b) == 3);
    CHECK(pow(Size(2), M).evaluate(b) == 8);
    CHECK(floorDiv(i - 10, Size(4)).evaluate(b) == -1);
    CHECK(mod(i - 10, Size(4)).evaluate(b) == 1);
    CHECK((exactDiv(N, Size(2)) + exactDiv(M + 1, Size(2))).evaluate(b) == 130);
}

TEST_CASE("evaluate fails on unbound, division by zero, inexact, overflow", "[arith]") {
    Bindings b{{"N", 6}, {"Z", 0}, {"Big", std::numeric_limits<int64_t>::max()}};
    CHECK_FALSE(N.evaluate({}).has_value());
    CHECK_FALSE((N + M).evaluate(b).has_value());
    CHECK_FALSE(floorDiv(N, Size::var("Z")).evaluate(b).has_value());
    CHECK_FALSE(mod(N, Size::var("Z")).evaluate(b).has_value());
    CHECK_FALSE(exactDiv(N, Size(4)).evaluate(b).has_value());
    CHECK_FALSE(exactDiv(N, N + 1).evaluate(b).has_value());
    CHECK_FALSE((Size::var("Big") + 1).evaluate(b).has_value());
    CHECK_FALSE((Size::var("Big") * 2).evaluate(b).has_value());
    Size two = Size(2);
    CHECK_FALSE(pow(two, Size::var("K")).evaluate({{"K", 64}}).has_value());
    CHECK(pow(two, Size::var("K")).evaluate({{"K", 62}}) == int64_t(1) << 62);
    CHECK(exactDiv(N, Size(3)).evaluate(b) == 2);
}

TEST_CASE("substitute replaces variables and re-canonicalises", "[arith]") {
    std::map<std::string, Size, std::less<>> repl{{"N", 128 * M}};
    CHECK(exactDiv(N, Size(128)).substitute(repl) == M);
    CHECK(floorDiv(N, Size(128)).substitute(repl) == M);
    CHECK(mod(N + 4, Size(128)).substitute(repl) == Size(4));
    CHECK(mod(N + i, Size(128)).substitute(repl) != mod(N + i, Size(128)));
    CHECK((N + i).substitute({{"i", Size(3)}}) == N + 3);
    CHECK(N.substitute({{"X", Size(1)}}) == N);
}
