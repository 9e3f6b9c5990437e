// Builtin user functions and named types of the .lift format.
#include "elaborate.hpp"

#include <array>

namespace egopt::lift::detail {

namespace {

struct Builtin {
    const char* name;
    const char* params; // space-separated
    const char* type;   // "f" float, "i" int, "4" float4: parameter types then the result
    const char* body;
};

// The user functions that Lift programs use without declaring them.
constexpr std::array kBuiltins = {
    Builtin{"add", "x y", "fff", "{ return x + y; }"},
    Builtin{"plus", "x y", "fff", "{ return x + y; }"},
    Builtin{"mult", "x y", "fff", "{ return x * y; }"},
    Builtin{"sub", "x y", "fff", "{ return x - y; }"},
    Builtin{"subtract", "x y", "fff", "{ return x - y; }"},
    Builtin{"maxf", "x y", "fff", "{ return fmax(x, y); }"},
    Builtin{"minf", "x y", "fff", "{ return fmin(x, y); }"},
    Builtin{"abs", "x", "ff", "{ return fabs(x); }"},
    Builtin{"neg", "x", "ff", "{ return -x; }"},
    Builtin{"id", "x", "ff", "{ return x; }"},
    Builtin{"square", "x", "ff", "{ return x * x; }"},
    Builtin{"sqrtIt", "x", "ff", "{ return sqrt(x); }"},
    Builtin{"plusOne", "x", "ff", "{ return x + 1.0f; }"},
    Builtin{"doubleIt", "x", "ff", "{ return 2.0f * x; }"},
    Builtin{"absAndSumUp", "acc x", "fff", "{ return acc + fabs(x); }"},
    Builtin{"idI", "x", "ii", "{ return x; }"},
    Builtin{"addI", "x y", "iii", "{ return x + y; }"},
    Builtin{"idF4", "x", "44", "{ return x; }"},
    Builtin{"addF4", "x y", "444", "{ return x + y; }"},
};

TypeId letterType(char c, TypeArena& types) {
    switch (c) {
    case 'i':
        return types.intType();
    case '4':
        return types.vector(ScalarKind::Float, 4);
    default:
        return types.floatType();
    }
}

} // namespace

std::optional<UserFunDecl> builtinUserFun(const std::string& name, TypeArena& types) {
    for (const Builtin& b : kBuiltins) {
        if (name != b.name) {
            continue;
        }
        UserFunDecl d;
        d.name = b.name;
        d.body = b.body;
        d.builtin = true;
        std::string params = b.params;
        for (size_t pos = 0; pos < params.size();) {
            size_t end = params.find(' ', pos);
            end = end == std::string::npos ? params.size() : end;
            d.paramNames.push_back(params.substr(pos, end - pos));
            pos = end + 1;
        }
        std::string_view t = b.type;
        for (size_t i = 0; i + 1 < t.size(); ++i) {
            d.paramTypes.push_back(letterType(t[i], types));
        }
        d.returnType = letterType(t.back(), types);
        return d;
    }
    return std::nullopt;
}

TypeId namedType(const std::string& name, TypeArena& types) {
    static constexpr std::pair<const char*, ScalarKind> kScalars[] = {
        {"Float", ScalarKind::Float}, {"Int", ScalarKind::Int},   {"Double", ScalarKind::Double},
        {"Bool", ScalarKind::Bool},   {"Char", ScalarKind::Char}, {"Long", ScalarKind::Long},
    };
    for (auto [prefix, kind] : kScalars) {
        std::string_view p(prefix);
        if (!name.starts_with(p)) {
            continue;
        }
        std::string_view rest = std::string_view(name).substr(p.size());
        if (rest.empty()) {
            return types.scalar(kind);
        }
        for (uint32_t w : {2u, 3u, 4u, 8u, 16u}) {
            if (rest == std::to_string(w)) {
                return types.vector(kind, w);
            }
        }
    }
    return kNoType;
}

} // namespace egopt::lift::detail
