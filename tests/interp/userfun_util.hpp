// Helpers of the user-function tests: a function "uf" whose body starts at line 10, column 5 of
// an imagined .lift file, called on float or int arguments, and the message of a failure.
#pragma once

#include "egopt/interp/userfun.hpp"

#include <catch2/catch.hpp>
#include <functional>

namespace egopt::interp::test {

using lift::TypeId;

struct Fun {
    lift::TypeArena types;
    TypeId f32 = types.floatType();
    TypeId i32 = types.intType();
    TypeId f4 = types.vector(lift::ScalarKind::Float, 4);
    TypeId f8 = types.vector(lift::ScalarKind::Float, 8);
    TypeId ff = types.tuple(std::vector<TypeId>{f32, f32});

    // The body starts at line 10, column 5 of the imagined .lift file.
    lift::UserFunDecl decl(std::string body, std::vector<std::string> names,
                           std::vector<TypeId> params, TypeId ret) {
        lift::UserFunDecl d;
        d.name = "uf";
        d.paramNames = std::move(names);
        d.paramTypes = std::move(params);
        d.returnType = ret;
        d.body = std::move(body);
        d.loc = SourceLoc{10, 5};
        return d;
    }
    Value run(const std::string& body, std::vector<std::string> names, std::vector<TypeId> params,
              TypeId ret, std::vector<Value> args) {
        auto f =
            CompiledUserFun::compile(decl(body, std::move(names), std::move(params), ret), types);
        return f.call(args);
    }
    // A float function of x (and y).
    float f(const std::string& body, float x, float y = 0) {
        return run(body, {"x", "y"}, {f32, f32}, f32, {Value::ofFloat(x), Value::ofFloat(y)})
            .asFloat();
    }
    int32_t i(const std::string& body, int32_t a, int32_t b = 0) {
        return run(body, {"a", "b"}, {i32, i32}, i32, {Value::ofInt(a), Value::ofInt(b)}).asInt();
    }
};

inline Value vec4(float a, float b, float c, float d) {
    return Value::vector(
        {Value::ofFloat(a), Value::ofFloat(b), Value::ofFloat(c), Value::ofFloat(d)});
}

inline std::vector<float> lanes(const Value& v) {
    std::vector<float> out;
    for (const Value& l : v.elems()) {
        out.push_back(l.asFloat());
    }
    return out;
}

// The BadInput message of a failing action ("" when it does not fail).
inline std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        return e.message();
    }
    return "";
}

// Compiles and calls a float function of x; returns the error message.
inline std::string fError(const std::string& body, float x = 1.0f) {
    Fun fn;
    return errorOf([&] { fn.f(body, x); });
}

// The error of statement `stmt` on the third line of a float function of x (line 12 of the
// .lift file), and the check that a message names the function, that line and `what`.
inline std::string thirdLineError(const std::string& stmt) {
    return fError("{\n  float a = x;\n  " + stmt + "\n  return a;\n}");
}
inline void expectOnLine12(const std::string& msg, const std::string& what) {
    CHECK_THAT(msg, Catch::Contains("'uf'") && Catch::Contains("line 12") && Catch::Contains(what));
}

} // namespace egopt::interp::test
