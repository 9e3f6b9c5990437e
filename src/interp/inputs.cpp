// Literal values, random inputs and inputs from JSON.
#include "egopt/interp/interpreter.hpp"
#include "literals.hpp"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace egopt::interp {

namespace detail {

namespace {

using lift::ScalarKind;
using lift::TypeKind;

// Inputs larger than this are refused instead of exhausting memory.
constexpr int64_t kMaxElements = int64_t{1} << 28;

Value scalarFrom(ScalarKind k, double v) {
    switch (k) {
    case ScalarKind::Float:
        return Value::ofFloat(static_cast<float>(v));
    case ScalarKind::Double:
        return Value::ofDouble(v);
    case ScalarKind::Bool:
        return Value::ofBool(v != 0.0);
    default:
        return Value::ofInt(static_cast<int32_t>(v));
    }
}

int64_t lengthOf(const lift::TypeArena& types, lift::TypeId t, const arith::Bindings& sizes,
                 const std::string& what) {
    auto n = types.lengthOf(t).evaluate(sizes);
    if (!n || *n < 0 || *n > kMaxElements) {
        badInput(what + ": cannot allocate an array of length " + types.lengthOf(t).toString() +
                 (n ? " = " + std::to_string(*n) : std::string(" (unbound size)")));
    }
    return *n;
}

// Builds a value of `type` from a generator of scalars, in row-major order.
template <typename Next>
Value build(const lift::TypeArena& types, lift::TypeId type, const arith::Bindings& sizes,
            Next& next, const std::string& what) {
    const lift::TypeNode& t = types.at(type);
    switch (t.kind) {
    case TypeKind::Scalar:
        return next(t.scalar);
    case TypeKind::Vector: {
        std::vector<Value> lanes;
        for (uint32_t i = 0; i < t.width; ++i) {
            lanes.push_back(next(t.scalar));
        }
        return Value::vector(std::move(lanes));
    }
    case TypeKind::Tuple: {
        std::vector<Value> fields;
        for (lift::TypeId f : t.elems) {
            fields.push_back(build(types, f, sizes, next, what));
        }
        return Value::tuple(std::move(fields));
    }
    case TypeKind::Array: {
        int64_t n = lengthOf(types, type, sizes, what);
        std::vector<Value> elems;
        elems.reserve(static_cast<size_t>(n));
        const lift::TypeNode& elem = types.at(t.elems[0]);
        for (int64_t i = 0; i < n; ++i) {
            // Arrays of scalars, the large inputs, without a call per element.
            elems.push_back(elem.kind == TypeKind::Scalar
                                ? next(elem.scalar)
                                : build(types, t.elems[0], sizes, next, what));
        }
        return Value::array(std::move(elems));
    }
    }
    return {};
}

// OpenCL C's named constants a literal's text may use (Value("-INFINITY", Float)), and their
// values.
struct NamedConstant {
    const char* name;
    double value;
};

const NamedConstant kNamedConstants[] = {
    {"INFINITY", HUGE_VAL}, {"HUGE_VALF", HUGE_VAL}, {"NAN", std::nan("")}, {"MAXFLOAT", FLT_MAX},
    {"FLT_MAX", FLT_MAX},   {"FLT_MIN", FLT_MIN},    {"DBL_MAX", DBL_MAX},  {"DBL_MIN", DBL_MIN},
    {"INT_MAX", INT_MAX},   {"INT_MIN", INT_MIN},
};

bool isWordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The named constant at p (after an optional sign), as a whole word: its value and length.
std::optional<std::pair<double, size_t>> namedConstantAt(const char* begin, const char* p) {
    double sign = *p == '-' ? -1.0 : 1.0;
    const char* q = (*p == '-' || *p == '+') ? p + 1 : p;
    if (p != begin && isWordChar(p[-1])) {
        return std::nullopt;
    }
    for (const NamedConstant& c : kNamedConstants) {
        size_t n = std::strlen(c.name);
        if (std::strncmp(q, c.name, n) == 0 && !isWordChar(q[n])) {
            return std::pair{sign * c.value, size_t(q - p) + n};
        }
    }
    return std::nullopt;
}

std::vector<double> numbersIn(const std::string& text) {
    std::vector<double> out;
    const char* p = text.c_str();
    while (*p != '\0') {
        if (auto named = namedConstantAt(text.c_str(), p)) {
            out.push_back(named->first);
            p += named->second;
            continue;
        }
        bool startsNumber = std::isdigit(static_cast<unsigned char>(*p)) ||
                            ((*p == '-' || *p == '+' || *p == '.') &&
                             std::isdigit(static_cast<unsigned char>(p[1])));
        // Skip type names such as float4 in "(float4)(...)": digits glued to letters.
        if (startsNumber &&
            (p == text.c_str() || !std::isalpha(static_cast<unsigned char>(p[-1])))) {
            char* end = nullptr;
            out.push_back(std::strtod(p, &end));
            p = end;
            while (*p == 'f' || *p == 'F') {
                ++p;
            }
        } else if (std::strncmp(p, "true", 4) == 0 || std::strncmp(p, "false", 5) == 0) {
            out.push_back(*p == 't' ? 1.0 : 0.0);
            p += *p == 't' ? 4 : 5;
        } else {
            ++p;
        }
    }
    return out;
}

} // namespace

Value literalValue(const lift::TypeArena& types, lift::TypeId type, const std::string& text,
                   const arith::Bindings& sizes) {
    std::vector<double> nums = numbersIn(text);
    if (nums.empty()) {
        badInput("literal \"" + text + "\" of type " + types.show(type) + ": expected a number");
    }
    size_t i = 0;
    auto next = [&](ScalarKind k) {
        double v = nums.size() == 1 ? nums[0] : (i < nums.size() ? nums[i] : 0.0);
        ++i;
        return scalarFrom(k, v);
    };
    Value v = build(types, type, sizes, next, "literal \"" + text + "\"");
    if (nums.size() != 1 && nums.size() != i) {
        badInput("literal \"" + text + "\" has " + std::to_string(nums.size()) +
                 " numbers: expected 1 or " + std::to_string(i) + " for " + types.show(type));
    }
    return v;
}

Value randomValue(const lift::TypeArena& types, lift::TypeId type, const arith::Bindings& sizes,
                  std::mt19937_64& rng, const std::string& what) {
    auto next = [&](ScalarKind k) { return scalarFrom(k, randomScalar(k, rng)); };
    return build(types, type, sizes, next, what);
}

Value jsonValue(const lift::TypeArena& types, lift::TypeId type, const nlohmann::json& json,
                const arith::Bindings& sizes, const std::string& what) {
    const lift::TypeNode& t = types.at(type);
    auto mismatch = [&]() {
        badInput(what + ": expected a value of type " + types.show(type) + ", found " +
                 json.dump().substr(0, 80));
    };
    if (t.kind == TypeKind::Scalar) {
        if (!json.is_number() && !json.is_boolean()) {
            mismatch();
        }
        return scalarFrom(t.scalar,
                          json.is_boolean() ? (json.get<bool>() ? 1.0 : 0.0) : json.get<double>());
    }
    size_t expected = t.kind == TypeKind::Vector ? t.width
                      : t.kind == TypeKind::Tuple
                          ? t.elems.size()
                          : static_cast<size_t>(lengthOf(types, type, sizes, what));
    if (!json.is_array() || json.size() != expected) {
        mismatch();
    }
    std::vector<Value> parts;
    for (size_t i = 0; i < expected; ++i) {
        std::string part = what + "[" + std::to_string(i) + "]";
        if (t.kind == TypeKind::Vector) {
            if (!json[i].is_number()) {
                mismatch();
            }
            parts.push_back(scalarFrom(t.scalar, json[i].get<double>()));
            continue;
        }
        lift::TypeId elem = t.kind == TypeKind::Tuple ? t.elems[i] : t.elems[0];
        parts.push_back(jsonValue(types, elem, json[i], sizes, part));
    }
    switch (t.kind) {
    case TypeKind::Vector:
        return Value::vector(std::move(parts));
    case TypeKind::Tuple:
        return Value::tuple(std::move(parts));
    default:
        return Value::array(std::move(parts));
    }
}

} // namespace detail

Value randomValue(const lift::TypeArena& types, lift::TypeId type, const arith::Bindings& sizes,
                  std::mt19937_64& rng) {
    return detail::randomValue(types, type, sizes, rng, "a random value");
}

double uniformMinusOneToOne(std::mt19937_64& rng) {
    // What std::uniform_real_distribution<double>(-1, 1) computes from one 64-bit draw
    // (generate_canonical: the draw over 2^64, exact in long double, rounded to double; then
    // u * 2 - 1), without its long double arithmetic, which took most of the time of 128M draws.
    double u = static_cast<double>(rng()) * 0x1p-64;
    if (u >= 1.0) {
        u = std::nextafter(1.0, 0.0);
    }
    return u * 2.0 + -1.0;
}

double randomScalar(lift::ScalarKind k, std::mt19937_64& rng) {
    switch (k) {
    case lift::ScalarKind::Float:
    case lift::ScalarKind::Double:
        return uniformMinusOneToOne(rng);
    case lift::ScalarKind::Bool:
        return static_cast<double>(rng() & 1U);
    default:
        return static_cast<double>(rng() % 16U);
    }
}

namespace {

lift::TypeId declaredType(const lift::Program& program, lift::NodeId param) {
    return program.params.at(static_cast<size_t>(program.node(param).ival)).declaredType;
}

} // namespace

std::vector<Value> randomInputs(lift::Program& program, const arith::Bindings& sizes,
                                uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Value> out;
    for (lift::NodeId p : program.lambdaParams(program.root)) {
        std::string name = program.params.at(static_cast<size_t>(program.node(p).ival)).name;
        out.push_back(detail::randomValue(program.types, declaredType(program, p), sizes, rng,
                                          "input " + name));
    }
    return out;
}

std::vector<Value> inputsFromJson(lift::Program& program, const arith::Bindings& sizes,
                                  const std::string& jsonText, uint64_t seed) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(jsonText);
    } catch (const nlohmann::json::exception& e) {
        badInput(std::string("malformed inputs JSON: ") + e.what());
    }
    if (!doc.is_object()) {
        badInput("expected the inputs JSON to be an object keyed by parameter name");
    }
    std::vector<std::string> names;
    for (lift::NodeId p : program.lambdaParams(program.root)) {
        names.push_back(program.params.at(static_cast<size_t>(program.node(p).ival)).name);
    }
    for (const auto& [key, value] : doc.items()) {
        if (std::find(names.begin(), names.end(), key) == names.end()) {
            badInput("inputs JSON names '" + key + "', which is not a parameter of the program");
        }
    }
    std::vector<Value> out = randomInputs(program, sizes, seed);
    auto params = program.lambdaParams(program.root);
    for (size_t i = 0; i < params.size(); ++i) {
        if (doc.contains(names[i])) {
            out[i] = detail::jsonValue(program.types, declaredType(program, params[i]),
                                       doc[names[i]], sizes, "input " + names[i]);
        }
    }
    return out;
}

} // namespace egopt::interp
