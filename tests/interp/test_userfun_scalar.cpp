// User functions on scalars run on their own evaluator: it must give the general evaluator's
// results and errors, and take every function made of scalars only.
#include "egopt/interp/userfun.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

using namespace egopt;
using namespace egopt::interp;
using lift::TypeId;

namespace {

struct Pair {
    CompiledUserFun fast;
    CompiledUserFun general;
};

lift::UserFunDecl declare(const std::string& body, std::vector<TypeId> params, TypeId ret) {
    lift::UserFunDecl d;
    d.name = "uf";
    d.paramNames = {"x", "y"};
    d.paramNames.resize(params.size());
    d.paramTypes = std::move(params);
    d.returnType = ret;
    d.body = body;
    d.loc = SourceLoc{10, 5};
    return d;
}

// The result as text (floats exactly, NaN as NaN), or the error message.
std::string outcome(const CompiledUserFun& f, const std::vector<Value>& args) {
    try {
        return f.call(args).toJson();
    } catch (const Error& e) {
        return std::string("error: ") + e.what();
    }
}

void agreeOn(const lift::TypeArena& types, const std::string& body, std::vector<TypeId> params,
             TypeId ret, const std::vector<std::vector<Value>>& argLists) {
    INFO(body);
    auto d = declare(body, std::move(params), ret);
    CompiledUserFun fast = CompiledUserFun::compile(d, types);
    CompiledUserFun general = CompiledUserFun::compile(d, types, false);
    REQUIRE(fast.runsOnScalars());
    REQUIRE_FALSE(general.runsOnScalars());
    for (const auto& args : argLists) {
        INFO("arguments " << Value::tuple(args).toJson());
        CHECK(outcome(fast, args) == outcome(general, args));
    }
}

std::vector<std::vector<Value>> floatPairs() {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> d(-3.0f, 3.0f);
    std::vector<std::vector<Value>> out;
    const float special[] = {0.0f,
                             -0.0f,
                             1.0f,
                             0.5f,
                             1e30f,
                             -1e-30f,
                             std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN()};
    for (float a : special) {
        for (float b : special) {
            out.push_back({Value::ofFloat(a), Value::ofFloat(b)});
        }
    }
    for (int i = 0; i < 64; ++i) {
        out.push_back({Value::ofFloat(d(rng)), Value::ofFloat(d(rng))});
    }
    return out;
}

std::vector<std::vector<Value>> intPairs() {
    std::mt19937_64 rng(12);
    std::uniform_int_distribution<int32_t> d(-40, 40);
    std::vector<std::vector<Value>> out;
    const int32_t special[] = {0,
                               1,
                               -1,
                               31,
                               32,
                               7,
                               std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min()};
    for (int32_t a : special) {
        for (int32_t b : special) {
            out.push_back({Value::ofInt(a), Value::ofInt(b)});
        }
    }
    for (int i = 0; i < 64; ++i) {
        out.push_back({Value::ofInt(d(rng)), Value::ofInt(d(rng))});
    }
    return out;
}

} // namespace

TEST_CASE("scalar user functions agree with the general evaluator on floats", "[interp]") {
    lift::TypeArena types;
    TypeId f = types.floatType(), i = types.intType();
    const char* floatBodies[] = {
        "{ return x + y; }",
        "{ return fabs(x) * y - x / y; }",
        "{ return (x > 0.5f && y < 0.0f) || !(x == y) ? fmin(x, y) : fmax(x, y); }",
        "{ float s = 0.0f; for (int k = 0; k < 5; ++k) { s += x * k - y; } return s; }",
        "{ double d = x; return (float)(d * d + 0.1) + sqrt(fabs(y)) + exp(-x * x); }",
        "{ float a; if (x > 0.0f) { a = 1.0f; } return a + y; }",
        "{ float a = x; a *= y; a -= 1.0f; a /= 3; return a; }",
        "{ int k = (int)x; return k + y; }",
        "{ float c = clamp(x, -1.0f, 1.0f); return pow(fabs(c), y) + (c, y); }",
        "{ float r = x; while (r > 0.0f && r < 9.0f) { r -= 0.75f; if (r < 0.2f) break; } return "
        "r; }",
    };
    for (const char* body : floatBodies) {
        agreeOn(types, body, {f, f}, f, floatPairs());
    }
    agreeOn(types, "{ return (int)(x * 1e9f) + (int)y; }", {f, f}, i, floatPairs());
}

TEST_CASE("scalar user functions agree with the general evaluator on integers", "[interp]") {
    lift::TypeArena types;
    TypeId f = types.floatType(), i = types.intType();
    const char* intBodies[] = {
        "{ return x * 1000000 + y; }",
        "{ return x / y + x % y; }",
        "{ return (x << y) | (x >> 1) ^ ~y; }",
        "{ int k = x; int j = k++ + ++k - k-- - --k; return j * 2 + k; }",
        "{ int s = 0; for (int k = 0; k < x && k < 50; ++k) { s += k * y; if (s > 99) break; } "
        "return s; }",
        "{ int s = 0; do { s += 3; } while (s < x && s < 60); return s > y ? s : -s; }",
        "{ return min(x, y) * 2 - max(x, y) + abs(x) + (x != 0 ? 1 : 0); }",
        "{ uint u = x; unsigned int v = y; return (u * 2654435761u) / (v | 1u) + (u >> 3) + (u "
        "< v); }",
        "{ switch (x & 3) { case 0: return y; case 1: y++; case 2: return y * 2; default: "
        "break; } return -1; }",
    };
    for (const char* body : intBodies) {
        agreeOn(types, body, {i, i}, i, intPairs());
    }
    agreeOn(types, "{ return x * 0.5f + y; }", {i, i}, f, intPairs());
}

TEST_CASE("functions with vectors or tuples stay on the general evaluator", "[interp]") {
    lift::TypeArena types;
    TypeId f = types.floatType();
    TypeId f4 = types.vector(lift::ScalarKind::Float, 4);
    TypeId ff = types.tuple(std::vector<TypeId>{f, f});
    auto onScalars = [&](const std::string& body, std::vector<TypeId> params, TypeId ret) {
        return CompiledUserFun::compile(declare(body, std::move(params), ret), types)
            .runsOnScalars();
    };
    CHECK(onScalars("{ return x * y; }", {f, f}, f));
    CHECK_FALSE(onScalars("{ return x * y; }", {f4, f4}, f4));
    CHECK_FALSE(onScalars("{ return x._0 + x._1; }", {ff}, f));
    CHECK_FALSE(onScalars("{ float4 v = (float4)(x); return v.x + y; }", {f, f}, f));
    CHECK_FALSE(onScalars("{ return length(x); }", {f}, f));
}
