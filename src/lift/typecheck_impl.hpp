// Internal to the type checker: the checking state of typecheck.cpp (expressions, lambdas, user
// functions). Patterns are typed by the shared rule of pattern_typing.hpp.
#pragma once

#include "egopt/lift/typecheck.hpp"

#include <span>
#include <string>
#include <vector>

namespace egopt::lift::detail {

// Where a function is being applied: the function node and the Apply node (for locations).
struct CallSite {
    NodeId fun = kNoNode;
    NodeId apply = kNoNode;
};

class TypeChecker {
public:
    explicit TypeChecker(Program& program);

    TypeInfo run();

    TypeId typeGenerate(NodeId expr);
    // The type of an expression node (Param, Literal, Apply).
    TypeId typeOfExpr(NodeId expr);
    // The result type of applying function node `site.fun` to arguments of the given types.
    TypeId applyFunction(CallSite site, std::span<const TypeId> args);

private:
    TypeId applyLambda(CallSite site, std::span<const TypeId> args);
    TypeId applyUserFun(CallSite site, std::span<const TypeId> args);
    // Patterns: the shared rule (pattern_typing.hpp) with this checker as its TypingSite.
    TypeId applyPattern(CallSite site, std::span<const TypeId> args);
    // Checks the ill-formed-IR cases that would otherwise index out of range.
    void checkLambdaShape(NodeId lambda) const;
    const ParamInfo& paramOf(NodeId param) const;

    // --- helpers for messages
    [[noreturn]] void fail(CallSite site, const std::string& message) const;
    [[noreturn]] void failAt(NodeId node, const std::string& message) const;
    // "Zip", "Split(3)", "user function axpy", "fun(p => ...)".
    std::string describe(NodeId fun) const;
    std::string show(TypeId t) const { return types_.show(t); }
    void expectArgCount(CallSite site, std::span<const TypeId> args, size_t expected) const;
    void expectEqual(CallSite site, size_t index, TypeId expected, TypeId found) const;

    struct DepthGuard;
    class Site;

    Program& program_;
    TypeArena& types_;
    TypeInfo info_;
    // The current binding of each parameter, scoped to its lambda's body; info_.paramTypes
    // keeps the last binding for later stages.
    std::vector<TypeId> bound_;
    int depth_ = 0;
    int64_t steps_ = 0; // nodes visited: bounds the work on heavily shared (DAG) programs
};

} // namespace egopt::lift::detail
