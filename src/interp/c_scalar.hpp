// Internal to the C interpreter: user functions whose parameters, variables, result and
// expressions are all scalars (add, mult, fabs, Black-Scholes' pricing) run on bare lanes with
// every type resolved once, at compile time, instead of on CVal values whose types are looked
// at on every operation. The lane operations and the statement runner are the general
// evaluator's (c_value.hpp, c_builtins.hpp, c_exec.hpp), so both give the same numbers, the same
// step counts and the same errors.
#pragma once

#include "c_value.hpp"

#include <optional>
#include <span>
#include <vector>

namespace egopt::interp::c {

class ScalarPlan {
public:
    // nullopt when anything in the checked body is not a scalar (a vector, a tuple, a member
    // access, a geometric builtin) or its types would make the general evaluator report an error.
    static std::optional<ScalarPlan> of(const Ast& ast, std::span<const CType> params,
                                        CType result);

    // The body on arguments of the parameter types; the result has the result type.
    Lane run(const Ast& ast, std::span<const Lane> args, const Reporter& rep,
             uint64_t stepLimit) const;

    // The type every expression (by id) has when evaluated.
    const std::vector<CType>& types() const { return types_; }
    // The type an expression's operands are converted to (binary operators, compound
    // assignments, ++ and --, builtin calls).
    const std::vector<CType>& operands() const { return operands_; }
    CType result() const { return result_; }

private:
    std::vector<CType> types_;
    std::vector<CType> operands_;
    CType result_;
    // The returned expression of a body `{ return e; }`, else kNone.
    uint32_t returnOnly_ = kNone;
};

} // namespace egopt::interp::c
