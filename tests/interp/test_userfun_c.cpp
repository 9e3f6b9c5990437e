// The C subset's local arrays and switch statements, on both evaluators where they apply, and
// their errors (named function, .lift line).
#include "userfun_util.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace egopt;
using namespace egopt::interp;
using namespace egopt::interp::test;

TEST_CASE("local arrays: initialisers, element updates, loops", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}; for (int i = 0; i < 4; i++) "
               "acc[i] += x * i; return acc[0] + acc[1] + acc[2] + acc[3]; }",
               2) == 12.0f);
    // Missing initialisers are zero; [] takes the initialiser's length.
    CHECK(fn.f("{ float w[5] = {1.0f, 2.0f}; return w[0] + w[1] + w[4]; }", 0) == 3.0f);
    CHECK(fn.f("{ const float w[] = {0.25f, 0.5f, 0.25f}; float s = 0.0f; for (int k = 0; k < 3; "
               "++k) s += w[k] * (x + k); return s; }",
               4) == 5.0f);
    CHECK(fn.i("{ int idx[3]; idx[0] = a; idx[1] = idx[0] * 2; idx[2] = idx[1]++ + 1; return "
               "idx[0] * 100 + idx[1] * 10 + idx[2]; }",
               1) == 100 + 30 + 3);
    CHECK(fn.i("{ #define N 2 * 3\n int h[N + 1]; for (int i = 0; i <= N; i++) h[i] = i * i; "
               "return h[N]; }",
               0) == 36);
    // An element is converted to the element type; float4 elements and swizzles of them.
    CHECK(fn.i("{ int v[2] = {2.9f, a}; v[1] /= 2; return v[0] * 10 + v[1]; }", 7) == 23);
    CHECK(fn.f("{ float4 p[2] = {(float4)(1.0f), (float4)(x)}; p[1].y = 5.0f; return p[0].x + "
               "p[1].x + p[1].y; }",
               3) == 9.0f);
    CHECK(fn.f("{ float a[2] = {x, y}, b = 1.0f; a[a[0] > a[1] ? 1 : 0] = b; return a[0] * 10 + "
               "a[1]; }",
               3, 2) == 31.0f);
}

TEST_CASE("two-dimensional local arrays", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ const float w[3][3] = {{0.0f, 1.0f, 0.0f}, {1.0f, -4.0f, 1.0f}, {0.0f, 1.0f}}; "
               "float s = 0.0f; for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) s += "
               "w[i][j] * (x + i * 3 + j); return s; }",
               1) == 1.0f * 2 + 1.0f * 4 - 4.0f * 5 + 1.0f * 6 + 1.0f * 8);
    CHECK(fn.i("{ int m[][2] = {{a, 2}, {3, 4}, {5}}; m[2][1] += m[0][0] * 10; return m[2][1] * "
               "100 + m[1][0]; }",
               7) == 7003);
    CHECK(fn.i("{ int m[2][3]; for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) m[i][j] = "
               "i * j; return m[1][2]; }",
               0) == 2);
    CHECK_THAT(fError("{ float m[2][2] = {{x}}; return m[1][2]; }"),
               Catch::Contains("index 2 is out of the bounds of 'm' (float[2][2])"));
    CHECK_THAT(fError("{ float m[2][2] = {{x}}; return m[1]; }"),
               Catch::Contains("a row of 'm' can only be indexed"));
    CHECK_THAT(fError("{ const float m[1][1] = {{x}}; m[0][0] = 1.0f; return x; }"),
               Catch::Contains("const 'm'"));
    CHECK_THAT(fError("{ float m[2][]; return x; }"), Catch::Contains("inner length"));
    CHECK_THAT(fError("{ float m[2][2][2]; return x; }"),
               Catch::Contains("more than two dimensions"));
}

TEST_CASE("local arrays of tuples", "[interp]") {
    Fun fn;
    Value r = fn.run("{ Tuple t[2] = {{x, x}, {y, y}}; t[1]._0 += 1.0f; return t[1]; }", {"x", "y"},
                     {fn.f32, fn.f32}, fn.ff, {Value::ofFloat(1), Value::ofFloat(2)});
    CHECK(r.elems()[0].asFloat() == 3.0f);
    CHECK(r.elems()[1].asFloat() == 2.0f);
}

TEST_CASE("switch: labels, fall-through, default, break and continue", "[interp]") {
    Fun fn;
    const char* sw =
        "{ int r = 0; switch (a) { case 0: r = 10; break; case 1: case 2: r = 20; "
        "break; case -3: r += 1; case 4: r += 2; break; default: r = 99; } return r; }";
    CHECK(fn.i(sw, 0) == 10);
    CHECK(fn.i(sw, 1) == 20);
    CHECK(fn.i(sw, 2) == 20);
    CHECK(fn.i(sw, -3) == 3); // falls through into case 4
    CHECK(fn.i(sw, 4) == 2);
    CHECK(fn.i(sw, 7) == 99);
    // No matching label and no default: nothing runs. default need not come last.
    CHECK(fn.i("{ switch (a) { case 1: return 5; } return 6; }", 2) == 6);
    CHECK(fn.i("{ switch (a % 3) { default: return -1; case 0: return 0; } }", 4) == -1);
    CHECK(fn.i("{ switch (a % 3) { default: return -1; case 0: return 0; } }", 3) == 0);
    // break leaves the switch, continue the enclosing loop's iteration.
    CHECK(fn.i("{ int s = 0; for (int i = 0; i < 6; i++) { switch (i & 1) { case 0: continue; "
               "case 1: s += i; break; } s += 100; } return s; }",
               0) == 1 + 3 + 5 + 300);
    CHECK(fn.i("{ #define TWO 2\n switch (a) { case TWO * 2: { int k = a; return k + 1; } "
               "case ~0: return 7; } return 0; }",
               4) == 5);
    CHECK(fn.i("{ #define TWO 2\n switch (a) { case TWO * 2: { int k = a; return k + 1; } "
               "case ~0: return 7; } return 0; }",
               -1) == 7);
    // A switch on a float's conversion, in a function of scalars (the scalar evaluator).
    CHECK(fn.f("{ switch ((int)x) { case 1: return 1.5f; default: return 0.0f; } }", 1.7f) == 1.5f);
}

TEST_CASE("switch and arrays run on the evaluator their types choose", "[interp]") {
    Fun fn;
    auto scalarSwitch = CompiledUserFun::compile(
        fn.decl("{ switch (a) { case 1: return 2; } return 3; }", {"a"}, {fn.i32}, fn.i32),
        fn.types);
    CHECK(scalarSwitch.runsOnScalars());
    auto array = CompiledUserFun::compile(
        fn.decl("{ int b[1] = {a}; return b[0]; }", {"a"}, {fn.i32}, fn.i32), fn.types);
    CHECK_FALSE(array.runsOnScalars());
    std::vector<Value> four = {Value::ofInt(4)};
    CHECK(array.call(four).asInt() == 4);
}

TEST_CASE("errors of arrays and switches", "[interp]") {
    auto third = thirdLineError;
    auto expect = expectOnLine12;
    expect(third("float b[2]; a = b[2];"), "index 2 is out of the bounds of 'b' (float[2])");
    expect(third("float b[2] = {a, a}; a = b[-1];"), "index -1");
    expect(third("float b[2]; a = b;"), "can only be indexed");
    expect(third("float b[2], c[2]; b = c;"), "can only be indexed");
    expect(third("float b[2] = {1.0f, 2.0f, 3.0f};"), "has 2 elements but the initialiser has 3");
    expect(third("float b[(int)a];"), "integer constant");
    expect(third("float b[0];"), "between 1 and 255");
    expect(third("float b[];"), "needs a length or an initialiser");
    expect(third("a = a[0];"), "not an array");
    expect(third("float b[2] = {a, a}; a = b[0.5f];"), "index must be an integer");
    expect(third("const float b[1] = {a}; b[0] = 2.0f;"), "const 'b'");
    expect(third("float b[1]; a = b[0];"), "before it is assigned");
    expect(third("switch ((int)a) { case 1: break; case 1: break; }"), "second 'case 1'");
    expect(third("switch ((int)a) { default: break; default: break; }"), "second 'default'");
    expect(third("switch ((int)a) { case (int)a: break; }"), "integer constant");
    expect(third("case 1: a = 2.0f;"), "directly inside a switch");
    expect(third("switch ((int)a) { case 1: { case 2: break; } }"), "directly inside a switch");
    expect(third("switch ((int)a) a = 1.0f;"), "block in braces");
    expect(third("switch ((int)a) { case 1: continue; }"), "'continue' outside a loop");
}

TEST_CASE("unsigned int: wrapping, unsigned comparison, division and shifts", "[interp]") {
    Fun fn;
    CHECK(fn.i("{ unsigned int u = 0u; u -= 1; return u == 4294967295u; }", 0) == 1);
    CHECK(fn.i("{ uint u = a; return u >> 28; }", -1) == 15); // logical shift
    CHECK(fn.i("{ uint u = a; return u / 2u > 1000000000u; }", -2) == 1);
    CHECK(fn.i("{ return a < 0u; }", -1) == 0); // -1 converts to 4294967295
    CHECK(fn.i("{ unsigned h = 2166136261u; h ^= (uint)a; h *= 16777619u; return (int)(h >> 1); "
               "}",
               7) == static_cast<int32_t>(((2166136261u ^ 7u) * 16777619u) >> 1));
    CHECK(fn.i("{ return 0xFFFFFFFF == 4294967295u; }", 0) == 1); // a hex literal is a uint
    CHECK(fn.i("{ uint u = 0x80000000; return (int)(u >> 31); }", 0) == 1);
    CHECK(fn.f("{ uint u = 3000000000u; return (float)u; }", 0) == 3.0e9f);
    CHECK(fn.i("{ uint4 v = (uint4)(1u, 2u, 3u, 4u); v = v * 2u; return (int)(v.x + v.w); }", 0) ==
          10);
    CHECK_THAT(fError("{ unsigned float u = 1; return x; }"),
               Catch::Contains("'unsigned float' is not supported"));
    CHECK_THAT(fError("{ uint u = -1.0f * x; return x; }"), Catch::Contains("out of range"));
}

TEST_CASE("ulong: 64-bit wrapping, unsigned comparison, division, shifts and conversions",
          "[interp]") {
    Fun fn;
    CHECK(fn.i("{ ulong u = 0; u -= 1; return u == 18446744073709551615UL; }", 0) == 1);
    // FNV-1a's 64-bit step: the offset basis does not fit a long; the product wraps.
    uint64_t h = (14695981039346656037ULL ^ 7ULL) * 1099511628211ULL;
    CHECK(fn.i("{ ulong h = 14695981039346656037UL; h ^= (ulong)a; h *= 1099511628211UL; "
               "return (int)(h >> 40); }",
               7) == static_cast<int32_t>(h >> 40));
    CHECK(fn.i("{ unsigned long u = (unsigned long)a; return u > 1000UL; }", -1) == 1);
    CHECK(fn.i("{ ulong u = (ulong)a; return (int)(u >> 60); }", -1) == 15); // logical shift
    CHECK(fn.i("{ ulong u = 18446744073709551615UL; return u / 4294967296UL == 4294967295UL && "
               "u % 10UL == 5UL; }",
               0) == 1);
    CHECK(fn.i("{ long l = -1; ulong u = 1; return l < u; }", 0) == 0); // l converts to 2^64 - 1
    CHECK(fn.i("{ return max(18446744073709551615UL, 1UL) == 18446744073709551615UL; }", 0) == 1);
    CHECK(fn.f("{ ulong u = 18446744073709551615UL; return (float)u; }", 0) == 1.8446744e19f);
    CHECK(fn.f("{ ulong u = (ulong)x; return (float)(u + 1UL); }", 3.0e9f) == 3.0e9f);
    CHECK_THAT(fError("{ ulong u = (ulong)(-x - 2.0f); return x; }"),
               Catch::Contains("out of range"));
}

TEST_CASE("uchar, short and ushort: their widths' wrapping, promotion to int", "[interp]") {
    Fun fn;
    CHECK(fn.i("{ uchar c = 250; c += 10; return c; }", 0) == 4);
    CHECK(fn.i("{ uchar c = 200; return c + c; }", 0) == 400); // promoted: no wrap
    CHECK(fn.i("{ unsigned char c = (unsigned char)a; return c; }", -1) == 255);
    CHECK(fn.i("{ short s = 32767; s += 1; return s; }", 0) == -32768);
    CHECK(fn.i("{ short s = (short)a; return s; }", 70000) == 70000 - 65536);
    CHECK(fn.i("{ ushort s = 0; s -= 1; return s; }", 0) == 65535);
    CHECK(fn.i("{ unsigned short s = (unsigned short)a; return s >> 15; }", -1) == 1);
    CHECK(fn.i("{ uchar4 v = (uchar4)(250, 251, 252, 253); v = v + (uchar4)(10); "
               "return v.x + v.w; }",
               0) == 4 + 7);
    CHECK(fn.i("{ ushort u = 65535; return as_short(u); }", 0) == -1);
    CHECK(fn.f("{ return (float)convert_short(x) + (float)convert_uchar(y); }", -3.7f, 200.5f) ==
          197.0f);
}

TEST_CASE("more math builtins", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ return pown(x, 3); }", 2) == 8.0f);
    CHECK(fn.f("{ return rootn(x, 3); }", -8) == Approx(-2.0f));
    CHECK(std::isnan(fn.f("{ return rootn(x, 2); }", -4)));
    CHECK(fn.f("{ return ldexp(x, 4); }", 1.5f) == 24.0f);
    CHECK(fn.f("{ return maxmag(x, y); }", -3, 2) == -3.0f);
    CHECK(fn.f("{ return minmag(x, y); }", -3, 2) == 2.0f);
    CHECK(fn.f("{ return sinpi(x) + cospi(x); }", 0.5f) == Approx(1.0f).margin(1e-6));
    CHECK(fn.f("{ return asinh(sinh(x)) + atanh(tanh(x)) + acosh(cosh(x)); }", 0.5f) ==
          Approx(1.5f));
    CHECK(fn.f("{ return tgamma(x) + lgamma(x); }", 4) == Approx(6.0f + std::log(6.0f)));
    CHECK(fn.f("{ return isnan(x) ? 0.0f : x; }", std::nanf("")) == 0.0f);
    CHECK(fn.i("{ float z = 0.0f; return isinf(1.0f / z) * 100 + isfinite(1.0f) * 10 + "
               "signbit(-2.0f); }",
               0) == 111);
    CHECK(fn.i("{ int4 t = isnan((float4)(0.0f, NAN, 1.0f, NAN)); return t.x * 1000 + t.y * 100 "
               "+ t.z * 10 + t.w; }",
               0) == -101);
}

TEST_CASE("convert_T, as_T and character constants", "[interp]") {
    Fun fn;
    CHECK(fn.f("{ return convert_float(convert_int(x)) + 0.5f; }", -2.7f) == -1.5f);
    CHECK(fn.i("{ int4 v = convert_int4((float4)(1.5f, -2.5f, 3.9f, 0.0f)); return v.x * 100 + "
               "v.y * 10 + v.z; }",
               0) == 100 - 20 + 3);
    CHECK(fn.f("{ float2 f = convert_float2((int2)((int)x, 4)); return f.x / f.y; }", 3.5f) ==
          0.75f);
    CHECK(fn.i("{ return 'a' + '\\n' + '\\0' + '\\''; }", 0) == 97 + 10 + 0 + 39);
    CHECK_THAT(fError("{ int4 v = convert_int4(x); return x; }"),
               Catch::Contains("convert_T needs as many lanes"));
    CHECK_THAT(fError("{ int k = convert_int_sat(x); return x; }"),
               Catch::Contains("'convert_int_sat' is not supported"));
    CHECK_THAT(fError("{ int k = 'ab'; return x; }"), Catch::Contains("character constant"));
    CHECK(fn.f("{ return as_int(x) == 0x3F800000; }", 1.0f) == 1.0f);
    CHECK(fn.f("{ return as_float(0x40490FDB); }", 0) == 3.14159274f);
    CHECK(fn.f("{ uint u = as_uint(-x); return u >> 31; }", 2.0f) == 1.0f);
    CHECK(fn.f("{ int4 b = as_int4((float4)(x, 0.0f, -0.0f, 2.0f)); return b.x == 0x3F800000 && "
               "b.y == 0 && b.z == (int)0x80000000 && b.w == 0x40000000; }",
               1.0f) == 1.0f);
    CHECK(fn.i("{ return as_int(as_float(a)); }", -123456789) == -123456789);
    CHECK_THAT(fError("{ long l = as_long(x); return x; }"),
               Catch::Contains("as_T needs as many lanes of as many bytes"));
    // A cast converts scalars only; convert_T is the vector conversion.
    CHECK_THAT(fError("{ float4 f = (float4)((int4)(1)); return x; }"),
               Catch::Contains("cannot build float4 from int4"));
}
