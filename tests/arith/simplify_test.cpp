// Ranges, bounds, proofs and the simplification rules of CGO'17 §5.3.
#include "egopt/arith/size.hpp"
#include "sizes.hpp"

#include <catch2/catch.hpp>

using namespace egopt::testenv::arith_sizes;

using namespace egopt::arith;

namespace {

const Size j = Size::var("j");
const Size x = Size::var("x");

// N, M sizes; i in [0, N-1]; j in [0, 3]; x unconstrained.
RangeEnv loopEnv() {
    RangeEnv env;
    env.declareSize("N");
    env.declareSize("M");
    env.setRange("i", 0, N - 1);
    env.setRange("j", 0, 3);
    return env;
}

} // namespace

TEST_CASE("RangeEnv stores ranges and divisibility facts", "[arith]") {
    RangeEnv env = loopEnv();
    REQUIRE(env.range("N"));
    CHECK(env.range("N")->min == Size(1));
    CHECK(env.range("i")->max == N - 1);
    CHECK_FALSE(env.range("x"));
    env.addDivides(128, N);
    CHECK(env.knownDivides(128, N));
    CHECK(env.knownDivides(64, N));
    CHECK_FALSE(env.knownDivides(256, N));
    CHECK_FALSE(env.knownDivides(128, M));
    env.addDivides(4 * Size::var("T"), M);
    CHECK(env.knownDivides(Size::var("T"), M));
    CHECK_FALSE(env.knownDivides(8, M));
}

TEST_CASE("bounds follow symbolic ranges", "[arith]") {
    RangeEnv env = loopEnv();
    auto b = bounds(2 * i + j, env);
    REQUIRE(b);
    CHECK(b->min == Size(0));
    CHECK(b->max == 2 * N + 1);
    auto c = bounds(N - i, env);
    REQUIRE(c);
    CHECK(c->min == Size(1));
    CHECK(c->max == N);
    CHECK_FALSE(bounds(x * i, env));
}

TEST_CASE("provablyNonNegative and provablyLess", "[arith]") {
    RangeEnv env = loopEnv();
    CHECK(provablyNonNegative(N - 1, env));
    CHECK(provablyNonNegative(N * M - N, env));
    CHECK(provablyNonNegative(i * M + j, env));
    CHECK(provablyNonNegative(mod(x, Size(4)), env));
    CHECK_FALSE(provablyNonNegative(N - 2, env));
    CHECK_FALSE(provablyNonNegative(x, env));
    CHECK_FALSE(provablyNonNegative(i - 1, env));
    CHECK(provablyLess(i, N, env));
    CHECK(provablyLess(j, Size(4), env));
    CHECK(provablyLess(4 * i + j, 4 * N, env));
    CHECK_FALSE(provablyLess(i, N - 1, env));
    CHECK_FALSE(provablyLess(j, Size(3), env));
}

TEST_CASE("provablyDivides uses structure and facts", "[arith]") {
    RangeEnv env = loopEnv();
    env.addDivides(128, N);
    CHECK(provablyDivides(4, 8 * i + 4, env));
    CHECK(provablyDivides(M, M * i, env));
    CHECK(provablyDivides(128, N, env));
    CHECK(provablyDivides(256, 2 * N, env));
    CHECK(provablyDivides(128, N * M + 2 * N, env));
    CHECK_FALSE(provablyDivides(256, N, env));
    CHECK_FALSE(provablyDivides(4, 8 * i + 2, env));
    CHECK_FALSE(provablyDivides(M, N, env));
}

TEST_CASE("simplify: (x*N + y) / N -> x + y / N when y >= 0", "[arith]") {
    RangeEnv env = loopEnv();
    env.setRange("y", 0, 1000);
    Size y = Size::var("y");
    CHECK(simplify(floorDiv(i * N + y, N), env) == i + floorDiv(y, N));
    CHECK(simplify(mod(i * N + y, N), env) == mod(y, N));
    // z possibly negative while N*N + z >= 0: kept, as C's truncating / would differ.
    env.setRange("z", -1, 0);
    Size z = Size::var("z");
    CHECK(simplify(floorDiv(N * N + z, N), env) == floorDiv(N * N + z, N));
    CHECK(simplify(mod(N * N + z, N), env) == mod(N * N + z, N));
    // An operand that is not known to be non-negative anyway is split (floor semantics).
    CHECK(simplify(floorDiv(M * N + x, N), env) == M + floorDiv(x, N));
}

TEST_CASE("simplify: y / N -> 0 and y % N -> y when 0 <= y < N", "[arith]") {
    RangeEnv env = loopEnv();
    CHECK(simplify(floorDiv(i, N), env) == Size(0));
    CHECK(simplify(mod(i, N), env) == i);
    CHECK(simplify(floorDiv(4 * i + j, Size(4)), env) == i);
    CHECK(simplify(mod(4 * i + j, Size(4)), env) == j);
    CHECK(simplify(floorDiv(i * N + i, N), env) == i);
    CHECK(simplify(floorDiv(i + 1, N), env) != Size(0)); // i + 1 can reach N
    CHECK(simplify(mod(j, Size(3)), env) == mod(j, Size(3)));
}

TEST_CASE("simplify: known divisors make floor division exact", "[arith]") {
    RangeEnv env = loopEnv();
    CHECK(simplify(floorDiv(N, Size(128)) * 128, env) != N);
    env.addDivides(128, N);
    CHECK(simplify(floorDiv(N, Size(128)) * 128, env) == N);
    CHECK(simplify(mod(N, Size(128)), env) == Size(0));
    CHECK(simplify(mod(N + j, Size(128)), env) == j);
    CHECK(simplify(floorDiv(N + j, Size(128)), env) == exactDiv(N, Size(128)));
}

TEST_CASE("simplify works inside atoms and fixed ranges", "[arith]") {
    RangeEnv env = loopEnv();
    env.setRange("k", 5, 5);
    CHECK(simplify(Size::var("k") * N, env) == 5 * N);
    CHECK(simplify(pow(Size(2), floorDiv(j, Size(4))), env) == Size(1));
    CHECK(simplify(floorDiv(mod(i, N) * 4 + j, Size(4)), env) == i);
    CHECK(simplify(x + floorDiv(i, N), env) == x);
    CHECK(simplify(x, env) == x);
}

TEST_CASE("simplify: the CGO'17 index pattern (i*N + j) / N and % N", "[arith]") {
    RangeEnv env;
    env.declareSize("N");
    env.declareSize("M");
    env.setRange("i", 0, M - 1);
    env.setRange("j", 0, N - 1);
    CHECK(simplify(floorDiv(i * N + j, N), env) == i);
    CHECK(simplify(mod(i * N + j, N), env) == j);
    CHECK(simplify(floorDiv(i * N + j, N) * N + mod(i * N + j, N), env) == i * N + j);
}

TEST_CASE("cyclic ranges terminate and prove nothing false", "[arith]") {
    RangeEnv env;
    env.setRange("i", 0, j);
    env.setRange("j", 0, i);
    CHECK(provablyNonNegative(i, env));
    CHECK_FALSE(provablyLess(i, j, env));
    CHECK(simplify(floorDiv(i, Size(4)), env) == floorDiv(i, Size(4)));
}

TEST_CASE("simplify: c*(x/c) + x%c -> x (reading through Join)", "[arith]") {
    RangeEnv env = loopEnv();
    Size c4(4);
    CHECK(simplify(4 * floorDiv(i, c4) + mod(i, c4), env) == i);
    CHECK(simplify(floorDiv(i, c4) * 4 + mod(i, c4), env).toC() == "i");
    // Symbolic divisors, a common factor and other terms around the pair.
    CHECK(simplify(N * floorDiv(i, N) + mod(i, N), env) == i); // i < N: already 0 + i
    CHECK(simplify(M * floorDiv(i, M) + mod(i, M), env) == i);
    CHECK(simplify(3 * M * floorDiv(i, M) + 3 * mod(i, M) + j, env) == 3 * i + j);
    CHECK(simplify(j * 4 * floorDiv(i, c4) + j * mod(i, c4), env) == j * i);
    CHECK(simplify(2 * N * (4 * floorDiv(i + j, c4) + mod(i + j, c4)) + 7, env) ==
          2 * N * (i + j) + 7);
    // Nested: the folded operand of another division.
    CHECK(simplify(floorDiv(4 * floorDiv(i, c4) + mod(i, c4), Size(8)), env) ==
          floorDiv(i, Size(8)));
    // Floor semantics: the identity holds for negative x too.
    CHECK(simplify(4 * floorDiv(x, c4) + mod(x, c4), env) == x);
}

TEST_CASE("simplify: c*(x/c) + x%c is kept without its exact partner", "[arith]") {
    RangeEnv env = loopEnv();
    Size c4(4);
    Size twice = 8 * floorDiv(i, c4) + mod(i, c4);
    CHECK(simplify(twice, env) == twice);
    Size other = 4 * floorDiv(i, Size(8)) + mod(i, c4);
    CHECK(simplify(other, env) == other);
    Size otherOperand = 4 * floorDiv(i + 1, c4) + mod(i, c4);
    CHECK(simplify(otherOperand, env) == otherOperand);
    // A divisor not provably >= 1 (x may be 0): the division by zero is kept.
    Size byX = x * floorDiv(i, x) + mod(i, x);
    CHECK(simplify(byX, env) == byX);
}

TEST_CASE("simplify: c*(x/c) + r -> x where r is what x%c simplifies to", "[arith]") {
    // B's tile read through Split(16) of a Join of 64-float4 rows: with f = 32*k + 16*b + l and
    // l < 16, f%64%16 simplifies to l, which hides the pair 16*(f%64/16) + f%64%16.
    RangeEnv env;
    env.setRange("k", 0, 15);
    env.setRange("b", 0, 1);
    env.setRange("l", 0, 15);
    Size k = Size::var("k"), b = Size::var("b"), l = Size::var("l");
    Size f = 32 * k + 16 * b + l;
    Size read = l + 64 * floorDiv(f, Size(64)) + 16 * floorDiv(mod(f, Size(64)), Size(16));
    CHECK(simplify(read, env) == f);
    // Without the remainder's simplified form in the sum nothing folds.
    Size partial = 64 * floorDiv(f, Size(64)) + 16 * floorDiv(mod(f, Size(64)), Size(16));
    CHECK(simplify(partial, env) != f);
}

// The memo is keyed by the facts too: one expression under different ranges keeps each
// environment's own result, and environments with equal facts share entries.
TEST_CASE("simplify with a shared memo gives each environment's own result", "[arith]") {
    auto memo = std::make_shared<SimplifyMemo>();
    RangeEnv small;
    small.setRange("i", 0, 3);
    RangeEnv large;
    large.setRange("i", 0, 7);
    RangeEnv plain = large;
    small.useMemo(memo);
    large.useMemo(memo);
    Size e = floorDiv(i, 4) + mod(i, 4);
    for (int round = 0; round < 2; ++round) {
        CHECK(simplify(e, small) == i);
        CHECK(simplify(e, large) == simplify(e, plain));
        CHECK(simplify(e, large) != i);
    }
    size_t entries = memo->size();
    CHECK(entries == 2);
    RangeEnv again; // the same facts as `small`, built separately
    again.setRange("i", 0, 3);
    again.useMemo(memo);
    CHECK(simplify(e, again) == i);
    CHECK(memo->size() == entries);
    SimplifyMemo none(0); // capacity 0: nothing is recorded, results are still right
    RangeEnv capped = small;
    capped.useMemo(std::shared_ptr<SimplifyMemo>(&none, [](SimplifyMemo*) {}));
    CHECK(simplify(e, capped) == i);
    CHECK(none.size() == 0);
}
