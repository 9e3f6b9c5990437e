#include "c_builtins.hpp"

#include "small_vec.hpp"

#include <cmath>
#include <limits>

namespace egopt::interp::c {

namespace {

// Math: float element-wise (integer arguments become float). MinMax: element-wise on integers or
// floats. Abs: integers. Relational: a test of floats, giving an int (1 or 0, and -1 or 0 in
// each lane of a vector). The rest are OpenCL's geometric functions.
enum class Kind : uint8_t {
    Math,
    MinMax,
    Abs,
    Relational,
    Dot,
    Length,
    Distance,
    Normalize,
    Cross
};

using LaneFn = double (*)(const double*, bool single);

// One lane in float (single) or double precision, so that float results round like a device.
template <auto F>
double u1(const double* a, bool s) {
    return s ? static_cast<double>(F(static_cast<float>(a[0]))) : static_cast<double>(F(a[0]));
}
template <auto F>
double u2(const double* a, bool s) {
    return s ? static_cast<double>(F(static_cast<float>(a[0]), static_cast<float>(a[1])))
             : static_cast<double>(F(a[0], a[1]));
}
template <auto F>
double u3(const double* a, bool s) {
    return s ? static_cast<double>(
                   F(static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2])))
             : static_cast<double>(F(a[0], a[1], a[2]));
}

struct Builtin {
    std::string_view name;
    uint8_t arity;
    Kind kind;
    LaneFn fn;
};

template <class T>
T sign(T x) {
    return x > 0 ? T(1) : x < 0 ? T(-1) : T(0) * x;
}

// OpenCL's rootn: the n-th root, negative for a negative x and an odd n.
template <class T>
T rootn(T x, T n) {
    if (x < 0) {
        return std::fmod(n, T(2)) != 0 ? -std::pow(-x, T(1) / n)
                                       : std::numeric_limits<T>::quiet_NaN();
    }
    return std::pow(x, T(1) / n);
}

// maxmag and minmag: the argument of the larger (smaller) magnitude; fmax (fmin) on a tie.
template <class T>
T magnitude(T x, T y, bool larger) {
    T ax = std::fabs(x), ay = std::fabs(y);
    if (ax == ay) {
        return larger ? std::fmax(x, y) : std::fmin(x, y);
    }
    return (ax > ay) == larger ? x : y;
}

const Builtin kBuiltins[] = {
    {"sqrt", 1, Kind::Math, u1<[](auto x) { return std::sqrt(x); }>},
    {"rsqrt", 1, Kind::Math, u1<[](auto x) { return decltype(x)(1) / std::sqrt(x); }>},
    {"cbrt", 1, Kind::Math, u1<[](auto x) { return std::cbrt(x); }>},
    {"exp", 1, Kind::Math, u1<[](auto x) { return std::exp(x); }>},
    {"exp2", 1, Kind::Math, u1<[](auto x) { return std::exp2(x); }>},
    {"exp10", 1, Kind::Math, u1<[](auto x) { return std::pow(decltype(x)(10), x); }>},
    {"expm1", 1, Kind::Math, u1<[](auto x) { return std::expm1(x); }>},
    {"log", 1, Kind::Math, u1<[](auto x) { return std::log(x); }>},
    {"log2", 1, Kind::Math, u1<[](auto x) { return std::log2(x); }>},
    {"log10", 1, Kind::Math, u1<[](auto x) { return std::log10(x); }>},
    {"log1p", 1, Kind::Math, u1<[](auto x) { return std::log1p(x); }>},
    {"fabs", 1, Kind::Math, u1<[](auto x) { return std::fabs(x); }>},
    {"sin", 1, Kind::Math, u1<[](auto x) { return std::sin(x); }>},
    {"cos", 1, Kind::Math, u1<[](auto x) { return std::cos(x); }>},
    {"tan", 1, Kind::Math, u1<[](auto x) { return std::tan(x); }>},
    {"asin", 1, Kind::Math, u1<[](auto x) { return std::asin(x); }>},
    {"acos", 1, Kind::Math, u1<[](auto x) { return std::acos(x); }>},
    {"atan", 1, Kind::Math, u1<[](auto x) { return std::atan(x); }>},
    {"sinh", 1, Kind::Math, u1<[](auto x) { return std::sinh(x); }>},
    {"cosh", 1, Kind::Math, u1<[](auto x) { return std::cosh(x); }>},
    {"tanh", 1, Kind::Math, u1<[](auto x) { return std::tanh(x); }>},
    {"floor", 1, Kind::Math, u1<[](auto x) { return std::floor(x); }>},
    {"ceil", 1, Kind::Math, u1<[](auto x) { return std::ceil(x); }>},
    {"round", 1, Kind::Math, u1<[](auto x) { return std::round(x); }>},
    {"trunc", 1, Kind::Math, u1<[](auto x) { return std::trunc(x); }>},
    {"rint", 1, Kind::Math, u1<[](auto x) { return std::rint(x); }>},
    {"erf", 1, Kind::Math, u1<[](auto x) { return std::erf(x); }>},
    {"erfc", 1, Kind::Math, u1<[](auto x) { return std::erfc(x); }>},
    {"sign", 1, Kind::Math, u1<[](auto x) { return sign(x); }>},
    {"pow", 2, Kind::Math, u2<[](auto x, auto y) { return std::pow(x, y); }>},
    {"powr", 2, Kind::Math, u2<[](auto x, auto y) { return std::pow(x, y); }>},
    {"fmin", 2, Kind::Math, u2<[](auto x, auto y) { return std::fmin(x, y); }>},
    {"fmax", 2, Kind::Math, u2<[](auto x, auto y) { return std::fmax(x, y); }>},
    {"fmod", 2, Kind::Math, u2<[](auto x, auto y) { return std::fmod(x, y); }>},
    {"fdim", 2, Kind::Math, u2<[](auto x, auto y) { return std::fdim(x, y); }>},
    {"atan2", 2, Kind::Math, u2<[](auto x, auto y) { return std::atan2(x, y); }>},
    {"hypot", 2, Kind::Math, u2<[](auto x, auto y) { return std::hypot(x, y); }>},
    {"copysign", 2, Kind::Math, u2<[](auto x, auto y) { return std::copysign(x, y); }>},
    {"step", 2, Kind::Math,
     u2<[](auto e, auto x) { return x < e ? decltype(x)(0) : decltype(x)(1); }>},
    {"mad", 3, Kind::Math, u3<[](auto a, auto b, auto c) { return a * b + c; }>},
    {"fma", 3, Kind::Math, u3<[](auto a, auto b, auto c) { return std::fma(a, b, c); }>},
    {"mix", 3, Kind::Math, u3<[](auto x, auto y, auto a) { return x + (y - x) * a; }>},
    {"smoothstep", 3, Kind::Math, u3<[](auto e0, auto e1, auto x) {
         auto t = std::fmin(std::fmax((x - e0) / (e1 - e0), decltype(x)(0)), decltype(x)(1));
         return t * t * (decltype(x)(3) - decltype(x)(2) * t);
     }>},
    {"asinh", 1, Kind::Math, u1<[](auto x) { return std::asinh(x); }>},
    {"acosh", 1, Kind::Math, u1<[](auto x) { return std::acosh(x); }>},
    {"atanh", 1, Kind::Math, u1<[](auto x) { return std::atanh(x); }>},
    {"sinpi", 1, Kind::Math, u1<[](auto x) { return std::sin(x * decltype(x)(M_PI)); }>},
    {"cospi", 1, Kind::Math, u1<[](auto x) { return std::cos(x * decltype(x)(M_PI)); }>},
    {"tanpi", 1, Kind::Math, u1<[](auto x) { return std::tan(x * decltype(x)(M_PI)); }>},
    {"tgamma", 1, Kind::Math, u1<[](auto x) { return std::tgamma(x); }>},
    {"lgamma", 1, Kind::Math, u1<[](auto x) { return std::lgamma(x); }>},
    // pown, rootn and ldexp take an int second argument; it arrives converted to float, exactly
    // for the integers these functions are given.
    {"pown", 2, Kind::Math, u2<[](auto x, auto n) { return std::pow(x, n); }>},
    {"rootn", 2, Kind::Math, u2<[](auto x, auto n) { return rootn(x, n); }>},
    {"ldexp", 2, Kind::Math, u2<[](auto x, auto n) { return std::ldexp(x, static_cast<int>(n)); }>},
    {"maxmag", 2, Kind::Math, u2<[](auto x, auto y) { return magnitude(x, y, true); }>},
    {"minmag", 2, Kind::Math, u2<[](auto x, auto y) { return magnitude(x, y, false); }>},
    {"radians", 1, Kind::Math, u1<[](auto x) { return x * decltype(x)(M_PI / 180.0); }>},
    {"degrees", 1, Kind::Math, u1<[](auto x) { return x * decltype(x)(180.0 / M_PI); }>},
    {"min", 2, Kind::MinMax, u2<[](auto x, auto y) { return std::fmin(x, y); }>},
    {"max", 2, Kind::MinMax, u2<[](auto x, auto y) { return std::fmax(x, y); }>},
    {"clamp", 3, Kind::MinMax,
     u3<[](auto x, auto lo, auto hi) { return std::fmin(std::fmax(x, lo), hi); }>},
    // select(a, b, c): c ? b : a per lane (a comparison's true lanes are non-zero: 1 for
    // scalars, -1 for vectors).
    {"select", 3, Kind::MinMax, u3<[](auto a, auto b, auto c) { return c != 0 ? b : a; }>},
    {"abs", 1, Kind::Abs, nullptr},
    {"isnan", 1, Kind::Relational, u1<[](auto x) { return decltype(x)(std::isnan(x)); }>},
    {"isinf", 1, Kind::Relational, u1<[](auto x) { return decltype(x)(std::isinf(x)); }>},
    {"isfinite", 1, Kind::Relational, u1<[](auto x) { return decltype(x)(std::isfinite(x)); }>},
    {"isnormal", 1, Kind::Relational, u1<[](auto x) { return decltype(x)(std::isnormal(x)); }>},
    {"signbit", 1, Kind::Relational, u1<[](auto x) { return decltype(x)(std::signbit(x)); }>},
    {"dot", 2, Kind::Dot, nullptr},
    {"length", 1, Kind::Length, nullptr},
    {"distance", 2, Kind::Distance, nullptr},
    {"normalize", 1, Kind::Normalize, nullptr},
    {"cross", 2, Kind::Cross, nullptr},
};

// Operand type of an element-wise builtin: all arguments converted to one (vector) type.
CType operandType(const Builtin& b, std::span<const CType> args, const Where& w) {
    std::optional<CType> t = args[0];
    for (CType a : args.subspan(1)) {
        t = t ? commonType(*t, a) : t;
    }
    if (!t || !t->isNumeric() || (b.kind >= Kind::Dot && args.size() == 2 && args[0] != args[1])) {
        w.fail("arguments of '" + std::string(b.name) + "' have mismatched types");
    }
    CType r = promote(*t);
    if (b.kind == Kind::Abs && !r.isInteger()) {
        w.fail("'abs' takes integers; use 'fabs' for floating-point values");
    }
    if (r.isInteger() && (b.kind == Kind::Math || b.kind >= Kind::Relational)) {
        r.base = Base::Float; // OpenCL has float overloads only
    }
    return r;
}

// T: int64_t, or uint64_t for a ulong's bits.
template <class T>
T intLane(const Builtin& b, const T* a) {
    if (b.name == "min") {
        return std::min(a[0], a[1]);
    }
    if (b.name == "max") {
        return std::max(a[0], a[1]);
    }
    if (b.name == "clamp") {
        return std::min(std::max(a[0], a[1]), a[2]);
    }
    if (b.name == "select") {
        return a[2] != 0 ? a[1] : a[0];
    }
    return a[0] < T(0) ? T(0) - a[0] : a[0]; // abs
}

Lane elementwiseLane(const Builtin& b, std::span<const Lane> args, CType t) {
    Lane r;
    if (t.isFloating()) {
        double a[3] = {};
        for (size_t j = 0; j < args.size(); ++j) {
            a[j] = args[j].f;
        }
        r.f = b.fn(a, t.base == Base::Float);
    } else if (t.base == Base::ULong) {
        uint64_t a[3] = {};
        for (size_t j = 0; j < args.size(); ++j) {
            a[j] = static_cast<uint64_t>(args[j].i);
        }
        r.i = static_cast<int64_t>(intLane(b, a));
    } else {
        int64_t a[3] = {};
        for (size_t j = 0; j < args.size(); ++j) {
            a[j] = args[j].i;
        }
        r.i = intLane(b, a);
    }
    return r;
}

CVal elementwise(const Builtin& b, std::span<const CVal> args, CType t) {
    CVal r;
    r.type = t;
    for (int k = 0; k < t.width; ++k) {
        Lane lanes[3] = {};
        for (size_t j = 0; j < args.size(); ++j) {
            lanes[j] = args[j].lanes[k];
        }
        r.lanes[k] = elementwiseLane(b, std::span<const Lane>(lanes, args.size()), t);
    }
    return r;
}

// Sums lane products in order, rounding each step in the operand precision.
double dot(const CVal& x, const CVal& y) {
    bool single = x.type.base == Base::Float;
    double sum = 0;
    for (int k = 0; k < x.type.width; ++k) {
        double p = x.lanes[k].f * y.lanes[k].f;
        sum = single ? static_cast<double>(
                           static_cast<float>(static_cast<float>(p) + static_cast<float>(sum)))
                     : sum + p;
    }
    return sum;
}

double root(double v, bool single) {
    return single ? static_cast<double>(std::sqrt(static_cast<float>(v))) : std::sqrt(v);
}

CVal geometric(const Builtin& b, std::span<const CVal> args, const Where& w) {
    const CVal& x = args[0];
    bool single = x.type.base == Base::Float;
    CVal r = x;
    switch (b.kind) {
    case Kind::Dot:
        return scalarFloat(dot(x, args[1]), x.type.base);
    case Kind::Length:
        return scalarFloat(root(dot(x, x), single), x.type.base);
    case Kind::Distance: {
        CVal d = binary(Op::Sub, x, args[1], w);
        return scalarFloat(root(dot(d, d), single), x.type.base);
    }
    case Kind::Normalize:
        return binary(Op::Div, x, scalarFloat(root(dot(x, x), single), x.type.base), w);
    default:
        break;
    }
    const CVal& y = args[1];
    auto m = [&](int i, int j) {
        return binary(Op::Mul, scalarFloat(x.lanes[i].f, x.type.base),
                      scalarFloat(y.lanes[j].f, x.type.base), w);
    };
    for (int k = 0; k < 3; ++k) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        r.lanes[k] = binary(Op::Sub, m(i, j), m(j, i), w).lanes[0];
    }
    if (x.type.width == 4) {
        r.lanes[3].f = 0;
    }
    return r;
}

std::string_view stripPrefix(std::string_view name) {
    for (std::string_view p : {"native_", "half_"}) {
        if (name.substr(0, p.size()) == p) {
            return name.substr(p.size());
        }
    }
    return name;
}

} // namespace

uint32_t findBuiltin(std::string_view name) {
    name = stripPrefix(name);
    for (size_t i = 0; i < std::size(kBuiltins); ++i) {
        if (kBuiltins[i].name == name) {
            return static_cast<uint32_t>(i);
        }
    }
    return kNone;
}

CType builtinResult(uint32_t id, std::span<const CType> args, const Where& w) {
    const Builtin& b = kBuiltins[id];
    if (args.size() != b.arity) {
        w.fail("'" + std::string(b.name) + "' takes " + std::to_string(b.arity) +
               " argument(s), not " + std::to_string(args.size()));
    }
    CType t = operandType(b, args, w);
    if (b.kind == Kind::Cross && (t.width < 3 || t.width > 4)) {
        w.fail("'cross' takes float3 or float4 arguments");
    }
    bool scalarResult = b.kind == Kind::Dot || b.kind == Kind::Length || b.kind == Kind::Distance;
    if (b.kind == Kind::Relational) {
        return CType{.base = Base::Int, .width = t.width, .tuple = lift::kNoType};
    }
    return scalarResult ? t.elem() : t;
}

bool builtinIsLanewise(uint32_t id) {
    return kBuiltins[id].kind < Kind::Dot;
}

CType builtinOperandType(uint32_t id, std::span<const CType> args, const Where& w) {
    return operandType(kBuiltins[id], args, w);
}

Lane builtinLane(uint32_t id, std::span<const Lane> args, CType t) {
    return elementwiseLane(kBuiltins[id], args, t);
}

CVal callBuiltin(uint32_t id, std::span<const CVal> args, CType result, const Where& w) {
    const Builtin& b = kBuiltins[id];
    detail::SmallVec<CType, 3> types;
    for (const CVal& a : args) {
        types.push_back(a.type);
    }
    CType t = operandType(b, types.span(), w);
    detail::SmallVec<CVal, 3> conv;
    for (const CVal& a : args) {
        conv.push_back(convert(a, t, w));
    }
    if (b.kind >= Kind::Dot) {
        return geometric(b, conv.span(), w);
    }
    CVal r = convert(elementwise(b, conv.span(), t), result, w);
    if (b.kind == Kind::Relational && t.width > 1) { // true is -1 in a vector's lane
        for (int k = 0; k < t.width; ++k) {
            r.lanes[k].i = -r.lanes[k].i;
        }
    }
    return r;
}

} // namespace egopt::interp::c
