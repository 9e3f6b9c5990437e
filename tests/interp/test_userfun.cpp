// C user functions: float32 semantics, control flow, vectors, tuples, builtins, and the errors
// for constructs outside the subset (named function, .lift line).
#include "userfun_util.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

using namespace egopt;
using namespace egopt::interp;
using namespace egopt::interp::test;

TEST_CASE("arithmetic and C conversions", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ return x + y * 2.0f - 1.0f / y; }", 3, 4) == 3.0f + 4.0f * 2.0f - 0.25f);
    CHECK(fn.f("{ return -x; }", 2.5f) == -2.5f);
    CHECK(fn.f("{ int i = x; return i; }", -2.7f) == -2.0f); // truncation toward zero
    CHECK(fn.f("{ return (float)(int)x / 2; }", 7.9f) == 3.5f);
    CHECK(fn.f("{ return 7 / 2; }", 0) == 3.0f);
    CHECK(fn.f("{ return x > y && y > 0.0f; }", 2, 1) == 1.0f);
    CHECK(fn.f("{ return !(x < y) + (x == y); }", 2, 2) == 2.0f);
    CHECK(fn.i("{ return a << 3 | b & 1 ^ 2; }", 1, 3) == (1 << 3 | (3 & 1) ^ 2));
    CHECK(fn.i("{ return a * b; }", 65536, 65536) == 0); // int wraps as on a device
    CHECK(fn.i("{ long l = a; return l * 3 / 3; }", 2000000000) == 2000000000);
}

TEST_CASE("float32 rounding", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ return x + 1.0f; }", 16777216.0f) == 16777216.0f);
    float s = 0.0f;
    for (int i = 0; i < 10; ++i) {
        s += 0.1f;
    }
    float got = fn.f("{ float s = 0.0f; for (int i = 0; i < 10; i++) s += 0.1f; return s; }", 0);
    CHECK(got == s);
    CHECK(got != 1.0f);
    // A double literal computes in double, then the result is stored as float (as in C).
    CHECK(fn.f("{ return x * 0.1; }", 1.1f) == static_cast<float>(static_cast<double>(1.1f) * 0.1));
    CHECK(fn.f("{ double d = x; return d + 1e-9; }", 1.0f) == 1.0f);
}

TEST_CASE("integer division and modulo truncate toward zero", "[interp]") {
    Fun fn;
    CHECK(fn.i("{ return a / b; }", -7, 2) == -3);
    CHECK(fn.i("{ return a % b; }", -7, 2) == -1);
    CHECK(fn.i("{ return a % b; }", 7, -2) == 1);
    CHECK(fn.i("{ a /= b; return a; }", 9, 4) == 2);
    CHECK_THAT(errorOf([&] { fn.i("{ return a / b; }", 1, 0); }),
               Catch::Contains("division by zero") && Catch::Contains("uf"));
}

TEST_CASE("control flow", "[interp]") {
    Fun fn;
    const char* ifElse = "{ if (a < 0) return -1; else if (a == 0) { return 0; } else return 1; }";
    CHECK(fn.i(ifElse, -5) == -1);
    CHECK(fn.i(ifElse, 0) == 0);
    CHECK(fn.i(ifElse, 9) == 1);
    CHECK(fn.i("{ int s = 0; for (int i = 0; i < a; ++i) { if (i % 2) continue; if (i > 6) "
               "break; s += i; } return s; }",
               100) == 0 + 2 + 4 + 6);
    CHECK(
        fn.i("{ int n = 0; while (a > 1) { a = a % 2 == 0 ? a / 2 : 3 * a + 1; n++; } return n; }",
             6) == 8);
    CHECK(fn.i("{ int n = 0; do { n += 10; } while (n < a); return n; }", 0) == 10);
    CHECK(fn.i("{ int s = 0; for (int i = 0, j = 10; i < j; i++, j--) s += j - i; return s; }",
               0) == 10 + 8 + 6 + 4 + 2);
    CHECK(fn.i("{ int s = 0; for (;;) { if (s >= a) break; s += 3; } return s; }", 10) == 12);
    CHECK(fn.i("{ int x = a; { int x = 5; a += x; } return a * 100 + x; }", 1) == 601);
    CHECK(fn.i("{ int i = a; int j = i++; int k = --i; return j * 100 + k * 10 + i; }", 4) == 444);
    CHECK(fn.i("{ int s = 0; for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) { if (j == i) "
               "continue; s++; } return s; }",
               0) == 6);
}

TEST_CASE("#define, comments and multi-line bodies", "[interp]") {
    Fun fn;
    CHECK(fn.f("{\n  #define SCALE 2.0f\n  #define TWICE (SCALE * x) // c\n  /* block\n */ return "
               "TWICE + SCALE;\n}",
               3) == 8.0f);
    CHECK(fn.f("{ const float k = 0.5f; return k * x; }", 4) == 2.0f);
}

TEST_CASE("vector swizzles and broadcast", "[interp]") {
    Fun fn;
    Value p = vec4(1, 2, 3, 4);
    auto v = [&](const std::string& body, TypeId ret = lift::kNoType) {
        return fn.run(body, {"p", "s"}, {fn.f4, fn.f32}, ret == lift::kNoType ? fn.f4 : ret,
                      {p, Value::ofFloat(2)});
    };
    CHECK(lanes(v("{ return p.wzyx; }")) == std::vector<float>{4, 3, 2, 1});
    CHECK(lanes(v("{ return p * s + 1.0f; }")) == std::vector<float>{3, 5, 7, 9});
    CHECK(lanes(v("{ float4 d = p; d.xyz = p.yzw - p.xyz; d.w = 0.0f; return d; }")) ==
          std::vector<float>{1, 1, 1, 0});
    CHECK(lanes(v("{ float4 d = (float4)(p.lo, s, 7); return d; }")) ==
          std::vector<float>{1, 2, 2, 7});
    CHECK(lanes(v("{ float4 d = {s, s, p.s3, p.x}; d.s01 = d.s10 * 3; return d; }")) ==
          std::vector<float>{6, 6, 4, 1});
    CHECK(lanes(v("{ float4 d = (float4)(s); d.hi += 1; return -d; }")) ==
          std::vector<float>{-2, -2, -3, -3});
    CHECK(v("{ return p.x + p.y * p.z - p.w; }", fn.f32).asFloat() == 3.0f);
    CHECK(v("{ return dot(p, p); }", fn.f32).asFloat() == 30.0f);
    CHECK(v("{ return length(p.xy * 3.0f); }", fn.f32).asFloat() == std::sqrt(45.0f));
    CHECK(lanes(v("{ return clamp(p, 1.5f, s + 1.0f); }")) == std::vector<float>{1.5f, 2, 3, 3});
    Value q = fn.run("{ return p.hi; }", {"p"}, {fn.f8}, fn.f4,
                     {Value::vector(std::vector<Value>(8, Value::ofFloat(5)))});
    CHECK(lanes(q) == std::vector<float>{5, 5, 5, 5});
}

TEST_CASE("Tuple parameters and results", "[interp]") {
    Fun fn;
    Value pair = Value::tuple({Value::ofFloat(3), Value::ofFloat(4)});
    CHECK(fn.run("{ return acc + p._0 * p._1; }", {"acc", "p"}, {fn.f32, fn.ff}, fn.f32,
                 {Value::ofFloat(1), pair})
              .asFloat() == 13.0f);
    std::vector<std::string> bodies = {
        "{ Tuple t = {a, b}; return t; }",
        "{ Tuple2_float_float t; t._0 = a; t._1 = b; return t; }",
        "{ return (Tuple){a, b}; }",
        "{ struct Pair t = {0.0f, b}; t._0 += a; return t; }",
    };
    for (const std::string& body : bodies) {
        Value r = fn.run(body, {"a", "b"}, {fn.f32, fn.f32}, fn.ff,
                         {Value::ofFloat(1.5f), Value::ofFloat(2.5f)});
        REQUIRE(r.kind() == Value::Kind::Tuple);
        CHECK(r[0].asFloat() == 1.5f);
        CHECK(r[1].asFloat() == 2.5f);
    }
    CHECK_THAT(errorOf([&] { fn.run("{ return p._2; }", {"p"}, {fn.ff}, fn.f32, {pair}); }),
               Catch::Contains("_2"));
}

TEST_CASE("nbody acceleration matches a C++ reference", "[interp]") {
    Fun fn;
    const char* body = R"({
  float4 d;
  d.xyz = pj.xyz - pi.xyz;
  float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
  float inv = 1.0f / sqrt(r2);
  float s = pj.w * inv * inv * inv;
  float4 a;
  a.xyz = s * d.xyz;
  a.w = 0.0f;
  return a;
})";
    auto f = CompiledUserFun::compile(
        fn.decl(body, {"pi", "pj", "eps2"}, {fn.f4, fn.f4, fn.f32}, fn.f4), fn.types);
    float pi[4] = {0.1f, -0.7f, 2.3f, 1.0f}, pj[4] = {1.3f, 0.4f, -0.9f, 2.5f}, eps2 = 0.01f;
    float dx = pj[0] - pi[0], dy = pj[1] - pi[1], dz = pj[2] - pi[2];
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv = 1.0f / std::sqrt(r2);
    float s = pj[3] * inv * inv * inv;
    std::vector<Value> args = {vec4(pi[0], pi[1], pi[2], pi[3]), vec4(pj[0], pj[1], pj[2], pj[3]),
                               Value::ofFloat(eps2)};
    CHECK(lanes(f.call(args)) == std::vector<float>{s * dx, s * dy, s * dz, 0.0f});
    CHECK(f.name() == "uf");
}

namespace {

float cnd(float d) {
    float k = 1.0f / (1.0f + 0.2316419f * std::fabs(d));
    float w =
        1.0f -
        0.3989422804f * std::exp(-0.5f * d * d) * k *
            (0.319381530f +
             k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    return d < 0 ? 1.0f - w : w;
}

} // namespace

TEST_CASE("a Black-Scholes body matches a C++ reference", "[interp]") {
    Fun fn;
    const char* body = R"({
  #define S_LO 10.0f
  #define S_HI 100.0f
  float S = S_LO * r + S_HI * (1.0f - r);
  float K = 10.0f * r + 100.0f * (1.0f - r);
  float T = 1.0f * r + 10.0f * (1.0f - r);
  float R = 0.01f * r + 0.05f * (1.0f - r);
  float V = 0.01f * r + 0.10f * (1.0f - r);
  float sqrtT = sqrt(T);
  float d1 = (log(S / K) + (R + 0.5f * V * V) * T) / (V * sqrtT);
  float d2 = d1 - V * sqrtT;
  float c1, c2;
  {
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d1));
    float w = 1.0f - 0.3989422804f * exp(-0.5f * d1 * d1) *
              k * (0.319381530f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    if (d1 < 0) { c1 = 1.0f - w; } else { c1 = w; }
  }
  {
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d2));
    float w = 1.0f - 0.3989422804f * exp(-0.5f * d2 * d2) *
              k * (0.319381530f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    if (d2 < 0) { c2 = 1.0f - w; } else { c2 = w; }
  }
  float disc = exp(-R * T);
  Tuple res;
  res._0 = S * c1 - K * disc * c2;
  res._1 = K * disc * (1.0f - c2) - S * (1.0f - c1);
  return res;
})";
    auto f = CompiledUserFun::compile(fn.decl(body, {"r"}, {fn.f32}, fn.ff), fn.types);
    for (float r : {0.0f, 0.25f, 0.6f, 1.0f}) {
        float S = 10.0f * r + 100.0f * (1.0f - r), K = 10.0f * r + 100.0f * (1.0f - r);
        float T = 1.0f * r + 10.0f * (1.0f - r), R = 0.01f * r + 0.05f * (1.0f - r);
        float V = 0.01f * r + 0.10f * (1.0f - r), sqrtT = std::sqrt(T);
        float d1 = (std::log(S / K) + (R + 0.5f * V * V) * T) / (V * sqrtT), d2 = d1 - V * sqrtT;
        float c1 = cnd(d1), c2 = cnd(d2), disc = std::exp(-R * T);
        Value got = f.call(std::vector<Value>{Value::ofFloat(r)});
        CHECK(got[0].asFloat() == S * c1 - K * disc * c2);
        CHECK(got[1].asFloat() == K * disc * (1.0f - c2) - S * (1.0f - c1));
    }
}

TEST_CASE("math builtins", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ return sqrt(x); }", 2) == std::sqrt(2.0f));
    CHECK(fn.f("{ return exp(x) + log(y); }", 0.5f, 3) == std::exp(0.5f) + std::log(3.0f));
    CHECK(fn.f("{ return fabs(x) + pow(y, 2.0f); }", -1.5f, 3) == 1.5f + 9.0f);
    CHECK(fn.f("{ return fmin(x, y) * fmax(x, y); }", 2, 5) == 10.0f);
    CHECK(fn.f("{ return floor(x) + ceil(y); }", 1.5f, 1.2f) == 3.0f);
    CHECK(fn.f("{ return mad(x, y, 1.0f) + fma(x, y, 1.0f); }", 2, 3) == 14.0f);
    CHECK(fn.f("{ return rsqrt(x) - native_sqrt(y); }", 4, 9) == 0.5f - 3.0f);
    CHECK(fn.f("{ return sin(x) + cos(x) + tan(y); }", 0.3f, 0.2f) ==
          std::sin(0.3f) + std::cos(0.3f) + std::tan(0.2f));
    CHECK(fn.f("{ return clamp(x, 0.0f, 1.0f) + min(3, 4) + max(y, 2.0f); }", 7, 1) == 6.0f);
    CHECK(fn.i("{ return abs(a) + min(a, b) + clamp(b, 0, 5); }", -3, 9) == 3 - 3 + 5);
    CHECK(fn.f("{ return select(x, -x, x < 0.0f) + select(1.0f, 2.0f, y > x); }", -2, 5) ==
          2.0f + 2.0f);
    CHECK(fn.i("{ return select(a, b, a > b); }", 3, 9) == 3);
    CHECK(fn.f("{ return smoothstep(0.0f, 2.0f, x) + smoothstep(0.0f, 1.0f, y); }", 1, 7) ==
          0.5f + 1.0f);
    CHECK(fn.f("{ return degrees(radians(x)); }", 90) == Approx(90.0f));
}

TEST_CASE("a runaway loop stops at the step limit", "[interp]") {
    std::string msg = fError("{ while (1) { x += 1.0f; } return x; }");
    CHECK_THAT(msg,
               Catch::Contains("uf") && Catch::Contains("steps") && Catch::Contains("line 10"));
    CHECK_THAT(fError("{ for (;;) ; return x; }"), Catch::Contains("steps"));
}

TEST_CASE("unsupported constructs name the function and the .lift line", "[interp]") {
    // The body starts at line 10; errors on its third line are on line 12.
    auto third = thirdLineError;
    auto expect = expectOnLine12;
    expect(third("a = b;"), "unknown identifier 'b'");
    expect(third("switch (a) { case 1: break; }"), "integer value");
    expect(third("float* p = &a;"), "pointers");
    expect(third("a = *a;"), "pointers");
    expect(third("a = sqrt(a, a);"), "takes 1 argument");
    expect(third("a = a +;"), "unexpected ';'");
    expect(third("a = a + 1"), "expected ';'");
    expect(third("a = foo(a);"), "unknown function 'foo'");
    expect(third("float b[4][4][4];"), "more than two dimensions");
    expect(third("goto end;"), "'goto' is not supported");
    expect(third("break;"), "outside a loop or switch");
    expect(third("a = a % 2.0f;"), "'%' needs integer operands");
    expect(third("a = a.x;"), "'.x' is not a component of float");
    expect(third("#include <math.h>"), "#include");
    expect(third("#define SQ(v) v*v"), "function-like macro");
    expect(third("float4 v = (float4)(a, a);"), "needs 4 values");
    expect(third("a = abs(a);"), "fabs");
    expect(third("int a = 1;"), "already declared");
    expect(third("float4 v; v.xx = a;"), "repeated lanes");
    CHECK_THAT(fError("{\n  float a;\n  return a;\n}"),
               Catch::Contains("line 12") && Catch::Contains("before it is assigned"));
    CHECK_THAT(fError("{\n  if (x > 0.0f) return x;\n}", -1.0f),
               Catch::Contains("without a 'return'"));
    CHECK_THAT(fError("{ return x;"), Catch::Contains("line 10") && Catch::Contains("'}'"));
    CHECK_THAT(fError("{ return " + std::string(1000, '(') + "x" + std::string(1000, ')') + "; }"),
               Catch::Contains("nested too deeply"));
    std::string chain = "{ return x";
    for (int k = 0; k < 1000; ++k) {
        chain += " + x";
    }
    CHECK_THAT(fError(chain + "; }"), Catch::Contains("nested too deeply"));
    std::string bomb = "{\n";
    for (int k = 0; k < 30; ++k) {
        bomb += "#define M" + std::to_string(k + 1) + " M" + std::to_string(k) + " + M" +
                std::to_string(k) + "\n";
    }
    CHECK_THAT(fError(bomb + "return M30; }"), Catch::Contains("too long"));
}

TEST_CASE("calls check arguments against the declared types", "[interp]") {
    Fun fn;
    auto f = CompiledUserFun::compile(
        fn.decl("{ return x + y; }", {"x", "y"}, {fn.f32, fn.f32}, fn.f32), fn.types);
    std::vector<Value> one = {Value::ofFloat(1)};
    std::vector<Value> wrong = {Value::ofFloat(1), Value::ofInt(2)};
    CHECK_THAT(errorOf([&] { f.call(one); }),
               Catch::Contains("'uf'") && Catch::Contains("takes 2"));
    CHECK_THAT(errorOf([&] { f.call(wrong); }), Catch::Contains("parameter 'y'"));
    // A builtin declaration has no .lift line: only the function is named.
    lift::UserFunDecl d = fn.decl("{ return q; }", {"x"}, {fn.f32}, fn.f32);
    d.builtin = true;
    std::string msg = errorOf([&] { CompiledUserFun::compile(d, fn.types); });
    CHECK_THAT(msg, Catch::Contains("'uf'") && Catch::Contains("unknown identifier 'q'"));
    CHECK_THAT(msg, !Catch::Contains("line"));
    lift::UserFunDecl arr =
        fn.decl("{ return 0.0f; }", {"xs"}, {fn.types.array(fn.f32, arith::Size(4))}, fn.f32);
    CHECK_THAT(errorOf([&] { CompiledUserFun::compile(arr, fn.types); }), Catch::Contains("array"));
}
