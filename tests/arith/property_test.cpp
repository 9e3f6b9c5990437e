// Property tests over random expressions: canonical construction preserves values, equal sizes
// evaluate equally, and simplify() preserves values under bindings that satisfy the ranges.
#include "egopt/arith/size.hpp"
#include "egopt/support/diagnostic.hpp"
#include "sanitizer_run.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>

using namespace egopt::arith;

namespace {

using i128 = __int128;

enum class Op { Const, Var, Add, Sub, Mul, FloorDiv, Mod, ExactDiv, Pow };

// An expression tree, evaluated directly (the reference) and built as a canonical Size.
struct Tree {
    Op op = Op::Const;
    int64_t value = 0;
    std::string name;
    std::vector<Tree> kids;
};

i128 floorDivRef(i128 a, i128 b) {
    i128 q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

constexpr i128 kLimit = i128(1) << 62; // intermediate values beyond this: no reference value

std::optional<i128> reference(const Tree& t, const Bindings& b) {
    if (t.op == Op::Const) {
        return t.value;
    }
    if (t.op == Op::Var) {
        return b.at(t.name);
    }
    auto x = reference(t.kids[0], b);
    auto y = reference(t.kids[1], b);
    if (!x || !y) {
        return std::nullopt;
    }
    std::optional<i128> r;
    switch (t.op) {
    case Op::Add:
        r = *x + *y;
        break;
    case Op::Sub:
        r = *x - *y;
        break;
    case Op::Mul:
        r = *x * *y;
        break;
    case Op::FloorDiv:
        r = *y == 0 ? r : floorDivRef(*x, *y);
        break;
    case Op::Mod:
        r = *y == 0 ? r : *x - *y * floorDivRef(*x, *y);
        break;
    case Op::ExactDiv:
        r = (*y == 0 || *x % *y != 0) ? r : *x / *y;
        break;
    case Op::Pow:
        r = 1;
        for (i128 k = 0; k < *y && *r<kLimit&& * r> - kLimit; ++k) {
            *r *= *x;
        }
        break;
    default:
        break;
    }
    if (r && (*r >= kLimit || *r <= -kLimit)) {
        return std::nullopt;
    }
    return r;
}

Size build(const Tree& t) {
    switch (t.op) {
    case Op::Const:
        return Size(t.value);
    case Op::Var:
        return Size::var(t.name);
    default:
        break;
    }
    Size x = build(t.kids[0]);
    Size y = build(t.kids[1]);
    switch (t.op) {
    case Op::Add:
        return x + y;
    case Op::Sub:
        return x - y;
    case Op::Mul:
        return x * y;
    case Op::FloorDiv:
        return floorDiv(x, y);
    case Op::Mod:
        return mod(x, y);
    case Op::ExactDiv:
        return exactDiv(x, y);
    case Op::Pow:
        return pow(x, y);
    default:
        return Size();
    }
}

// The tree in prefix form, for failure messages.
std::string show(const Tree& t) {
    static const char* const names[] = {"", "", "+", "-", "*", "/", "%", "/^", "pow"};
    if (t.op == Op::Const) {
        return std::to_string(t.value);
    }
    if (t.op == Op::Var) {
        return t.name;
    }
    return std::string("(") + names[int(t.op)] + " " + show(t.kids[0]) + " " + show(t.kids[1]) +
           ")";
}

std::string show(const Bindings& b) {
    std::string out;
    for (const auto& [name, value] : b) {
        out += name + "=" + std::to_string(value) + " ";
    }
    return out;
}

Tree leaf(Op op, int64_t v, std::string name = {}) {
    return Tree{op, v, std::move(name), {}};
}
Tree node(Op op, Tree a, Tree b) {
    return Tree{op, 0, {}, {std::move(a), std::move(b)}};
}

// The variables of the environment below and how to draw bindings that satisfy it.
// N (size, 128 | N), M (size, T | M), T in [1, 8], i in [0, N-1], j in [0, M-1], k in [0, 3],
// x in [-20, 20] (may be negative or zero).
RangeEnv makeEnv() {
    RangeEnv env;
    env.declareSize("N");
    env.declareSize("M");
    env.addDivides(128, Size::var("N"));
    env.addDivides(Size::var("T"), Size::var("M"));
    env.setRange("T", 1, 8);
    env.setRange("i", 0, Size::var("N") - 1);
    env.setRange("j", 0, Size::var("M") - 1);
    env.setRange("k", 0, 3);
    env.setRange("x", -20, 20);
    return env;
}

int64_t uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Bindings randomBindings(std::mt19937& rng) {
    Bindings b;
    b["N"] = 128 * uniform(rng, 1, 4);
    b["T"] = uniform(rng, 1, 8);
    b["M"] = b["T"] * uniform(rng, 1, 5);
    b["i"] = uniform(rng, 0, b["N"] - 1);
    b["j"] = uniform(rng, 0, b["M"] - 1);
    b["k"] = uniform(rng, 0, 3);
    b["x"] = uniform(rng, -20, 20);
    return b;
}

const std::vector<std::string> kVars{"N", "M", "T", "i", "j", "k", "x"};

Tree randomTree(std::mt19937& rng, int depth);

// Divisors are mostly provably positive (the interesting case for simplify), sometimes not.
Tree randomDivisor(std::mt19937& rng) {
    switch (uniform(rng, 0, 7)) {
    case 0:
        return leaf(Op::Var, 0, "N");
    case 1:
        return leaf(Op::Var, 0, "M");
    case 2:
        return leaf(Op::Var, 0, "T");
    case 3:
        return node(Op::Add, leaf(Op::Var, 0, "k"), leaf(Op::Const, 1));
    case 4:
        return leaf(Op::Const, 128);
    case 5:
        return randomTree(rng, 1);
    default:
        return leaf(Op::Const, uniform(rng, 1, 8));
    }
}

Tree randomTree(std::mt19937& rng, int depth) {
    if (depth == 0 || uniform(rng, 0, 4) == 0) {
        if (uniform(rng, 0, 2) == 0) {
            return leaf(Op::Const, uniform(rng, -3, 8));
        }
        return leaf(Op::Var, 0, kVars[static_cast<size_t>(uniform(rng, 0, 6))]);
    }
    auto op = static_cast<Op>(uniform(rng, int(Op::Add), int(Op::Pow)));
    Tree a = randomTree(rng, depth - 1);
    switch (op) {
    case Op::FloorDiv:
    case Op::Mod:
    case Op::ExactDiv:
        return node(op, std::move(a), randomDivisor(rng));
    case Op::Pow:
        return node(op, std::move(a), leaf(Op::Const, uniform(rng, 0, 3)));
    default:
        return node(op, std::move(a), randomTree(rng, depth - 1));
    }
}

// k*c*(x/c) + k'*(x%c) + r: the pair that reading through Join gives (k' == k, folded to k*x by
// simplify), sometimes with a different coefficient k' (kept).
Tree randomDivModSum(std::mt19937& rng) {
    Tree x = randomTree(rng, 2);
    Tree c = randomDivisor(rng);
    Tree k = uniform(rng, 0, 1) ? randomTree(rng, 1) : leaf(Op::Const, uniform(rng, -3, 5));
    Tree k2 = uniform(rng, 0, 4) ? k : node(Op::Add, k, leaf(Op::Const, 1));
    Tree quotient = node(Op::Mul, node(Op::Mul, k, c), node(Op::FloorDiv, x, c));
    Tree remainder = node(Op::Mul, k2, node(Op::Mod, x, c));
    Tree sum = uniform(rng, 0, 1) ? node(Op::Add, quotient, remainder)
                                  : node(Op::Add, remainder, quotient);
    return node(Op::Add, std::move(sum), randomTree(rng, 2));
}

// Builds the tree; nullopt when construction itself overflows (constant folding).
std::optional<Size> tryBuild(const Tree& t) {
    try {
        return build(t);
    } catch (const egopt::Error&) {
        return std::nullopt;
    }
}

// Random programs per property. The sanitizer run (scripts/test --sanitize) looks for memory and
// undefined-behaviour errors along the same paths with a third of them; the statistics are the
// normal run's (the thresholds below scale with the count).
int cases(int normal) {
    return egopt::testenv::unlessSanitized(normal, normal / 3);
}

} // namespace

TEST_CASE("property: canonical construction preserves the value", "[arith]") {
    std::mt19937 rng(12345);
    int compared = 0;
    const int n3000 = cases(3000);
    for (int n = 0; n < n3000; ++n) {
        Tree t = randomTree(rng, 4);
        auto s = tryBuild(t);
        if (!s) {
            continue;
        }
        for (int k = 0; k < 4; ++k) {
            Bindings b = randomBindings(rng);
            auto want = reference(t, b);
            if (!want) {
                continue;
            }
            auto got = s->evaluate(b);
            INFO(show(t) << "  as  " << s->toString() << "  at  " << show(b));
            REQUIRE(got.has_value());
            REQUIRE(i128(*got) == *want);
            ++compared;
        }
    }
    CHECK(compared > 5000 * n3000 / 3000);
}

TEST_CASE("property: equal sizes evaluate equally", "[arith]") {
    std::mt19937 rng(777);
    std::unordered_map<Size, std::vector<Tree>> classes;
    for (int n = 0; n < 4000; ++n) {
        Tree t = randomTree(rng, 2);
        if (auto s = tryBuild(t)) {
            classes[*s].push_back(std::move(t));
        }
    }
    int pairs = 0;
    for (const auto& [size, trees] : classes) {
        for (size_t a = 1; a < trees.size(); ++a) {
            Bindings b = randomBindings(rng);
            auto x = reference(trees[0], b);
            auto y = reference(trees[a], b);
            INFO(size.toString());
            if (x && y) {
                REQUIRE(*x == *y);
                ++pairs;
            }
        }
    }
    CHECK(pairs > 1000);
    CHECK(classes.size() > 500); // the generator is not degenerate
}

TEST_CASE("property: simplify preserves the value under the ranges", "[arith]") {
    std::mt19937 rng(2024);
    RangeEnv env = makeEnv();
    int compared = 0;
    int changed = 0;
    const int n3000 = cases(3000);
    for (int n = 0; n < n3000; ++n) {
        auto e = tryBuild(randomTree(rng, 4));
        if (!e) {
            continue;
        }
        Size s = simplify(*e, env);
        changed += s != *e;
        for (int k = 0; k < 4; ++k) {
            Bindings b = randomBindings(rng);
            auto want = e->evaluate(b);
            if (!want) {
                continue;
            }
            INFO(e->toString() << "  ->  " << s.toString());
            REQUIRE(s.evaluate(b) == want);
            ++compared;
        }
    }
    CHECK(compared > 5000 * n3000 / 3000);
    CHECK(changed > 250 * n3000 / 3000);
}

TEST_CASE("property: folding c*(x/c) + x%c preserves the value", "[arith]") {
    std::mt19937 rng(4242);
    RangeEnv env = makeEnv();
    int compared = 0;
    int folded = 0;
    const int n3000 = cases(3000);
    for (int n = 0; n < n3000; ++n) {
        Tree t = randomDivModSum(rng);
        auto e = tryBuild(t);
        if (!e) {
            continue;
        }
        Size s = simplify(*e, env);
        auto mods = [](const Size& z) {
            std::string text = z.toString();
            return std::count(text.begin(), text.end(), '%');
        };
        folded += mods(s) < mods(*e);
        for (int k = 0; k < 4; ++k) {
            Bindings b = randomBindings(rng);
            auto want = e->evaluate(b);
            if (!want) {
                continue;
            }
            INFO(show(t) << "  as  " << e->toString() << "  ->  " << s.toString() << "  at  "
                         << show(b));
            REQUIRE(s.evaluate(b) == want);
            ++compared;
        }
    }
    CHECK(compared > 5000 * n3000 / 3000);
    CHECK(folded > 1000 * n3000 / 3000);
}
