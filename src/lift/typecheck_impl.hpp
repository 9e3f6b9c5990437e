// Internal to the type checker: the checking state shared by typecheck.cpp (expressions,
// lambdas, user functions) and typecheck_patterns.cpp (the typing rule of every pattern).
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
    TypeId applyPattern(CallSite site, std::span<const TypeId> args);
    // Patterns without nested functions (Split, Zip, ...).
    TypeId applyDataPattern(CallSite site, std::span<const TypeId> args);
    // Checks the ill-formed-IR cases that would otherwise index out of range.
    void checkLambdaShape(NodeId lambda) const;
    const ParamInfo& paramOf(NodeId param) const;

    // Pattern rules (typecheck_patterns.cpp).
    TypeId typeMap(CallSite site, std::span<const TypeId> args);
    TypeId typeMapVec(CallSite site, std::span<const TypeId> args);
    TypeId typeReduce(CallSite site, std::span<const TypeId> args);
    TypeId typePartRed(CallSite site, std::span<const TypeId> args);
    TypeId typeIterate(CallSite site, std::span<const TypeId> args);
    TypeId typeReorder(CallSite site, std::span<const TypeId> args);
    TypeId typeVectorize(CallSite site, std::span<const TypeId> args);
    TypeId typeSplit(CallSite site, std::span<const TypeId> args);
    TypeId typeJoin(CallSite site, std::span<const TypeId> args);
    TypeId typeTranspose(CallSite site, std::span<const TypeId> args);
    TypeId typeZip(CallSite site, std::span<const TypeId> args);
    TypeId typeUnzip(CallSite site, std::span<const TypeId> args);
    TypeId typeTuple(CallSite site, std::span<const TypeId> args);
    TypeId typeGet(CallSite site, std::span<const TypeId> args);
    TypeId typeAsVector(CallSite site, std::span<const TypeId> args);
    TypeId typeAsScalar(CallSite site, std::span<const TypeId> args);
    TypeId typeSlide(CallSite site, std::span<const TypeId> args);
    TypeId typePad(CallSite site, std::span<const TypeId> args);
    TypeId typeAt(CallSite site, std::span<const TypeId> args);
    TypeId typeFilter(CallSite site, std::span<const TypeId> args);

    // --- helpers for rules and messages
    [[noreturn]] void fail(CallSite site, const std::string& message) const;
    [[noreturn]] void failAt(NodeId node, const std::string& message) const;
    // "Zip", "Split(3)", "user function axpy", "fun(p => ...)".
    std::string describe(NodeId fun) const;
    std::string show(TypeId t) const { return types_.show(t); }
    void expectArgCount(CallSite site, std::span<const TypeId> args, size_t expected) const;
    // The argument must be an array; `index` is 0-based (messages count from 1).
    TypeId expectArray(CallSite site, std::span<const TypeId> args, size_t index) const;
    void expectEqual(CallSite site, size_t index, TypeId expected, TypeId found) const;
    // A size argument that must be a positive constant (vector widths, Iterate counts, ...).
    int64_t constantSize(CallSite site, size_t sizeIndex, const char* what) const;
    // Fails unless `divisor` divides `length` whenever both are constants.
    void checkDivides(CallSite site, const arith::Size& divisor, const arith::Size& length,
                      const std::string& what) const;
    NodeId onlyChild(CallSite site) const;
    const arith::Size& sizeArg(CallSite site, size_t sizeIndex, const char* what) const;
    // Fails when `size` is a constant <= 0.
    void expectPositive(CallSite site, const arith::Size& size, const char* what) const;
    // An array whose elements are arrays (Join, Transpose).
    TypeId expectNestedArray(CallSite site, std::span<const TypeId> args, size_t index) const;
    // The nested function `f` (of Reduce, PartRed) must return `expected`.
    void expectFunctionResult(CallSite site, NodeId f, TypeId expected, TypeId found) const;
    // One step of Iterate: [T]n -> [T]m with m a constant multiple or fraction of n.
    void checkIterateStep(CallSite site, TypeId in, TypeId out) const;
    // A vector width size argument: a constant 2, 3, 4, 8 or 16.
    uint32_t vectorWidth(CallSite site, size_t sizeIndex) const;
    // The lane type of a w-wide vector (tuples fieldwise); kNoType if `t` is not one.
    TypeId devectorize(TypeId t, uint32_t width);
    // The w-wide vector of a lane-wise result (tuples fieldwise); fails for other types.
    TypeId vectorizeResult(CallSite site, TypeId lane, uint32_t width);

    struct DepthGuard;

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
