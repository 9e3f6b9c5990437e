// Internal to the C interpreter's checker (c_check.hpp): the Checker walks a body once,
// statements in c_check.cpp and expressions in c_check_expr.cpp.
#pragma once

#include "c_check.hpp"

#include <string>
#include <utility>
#include <vector>

namespace egopt::interp::c {

class Checker {
public:
    Checker(Ast& ast, CType result, const Reporter& rep) : ast_(ast), result_(result), rep_(rep) {}
    void run(const std::vector<Param>& params);

private:
    [[noreturn]] void fail(uint32_t line, const std::string& msg) const { rep_.fail(line, msg); }

    uint32_t declare(const std::string& name, CType t, bool isConst, uint32_t line);
    uint32_t lookup(const std::string& name, uint32_t line) const;
    // A struct type name means the Tuple result type.
    CType resolve(CType t, uint32_t line) const;
    void stmt(uint32_t id);
    void list(const Stmt& s, bool scoped);
    void decl(Stmt& s);
    // The labels are the statements of the switch's own block; the block is one scope.
    void switchStmt(const Stmt& s);
    void ifStmt(const Stmt& s);
    void forStmt(const Stmt& s);
    void loop(uint32_t cond, uint32_t body);
    // A sub-statement has its own scope even without braces (if (c) float x = 1;).
    void scoped(uint32_t id);
    void condition(uint32_t id);
    // Checks that expression id (possibly a brace list) can initialise a value of type t.
    void initTo(uint32_t id, CType t, const std::string& what);
    void initList(uint32_t id);
    CType expr(uint32_t id);
    CType exprType(uint32_t id);
    // a[i] as a value: not a row of a two-dimensional array.
    CType elementType(uint32_t id);
    // a[i] (or m[i][j]): a is a local array, i an integer; the type may be a row.
    CType indexType(uint32_t id);
    // The variable below a chain of indices.
    const Expr& arrayVar(uint32_t id) const;
    std::string arrayName(uint32_t id) const;
    CType unaryType(const Expr& e);
    CType binaryType(Op op, CType a, CType b, uint32_t line) const;
    CType assignType(const Expr& e);
    CType ternaryType(const Expr& e);
    CType callType(Expr& e);
    CType memberType(Expr& e, CType base);
    CType addAccess(Expr& e, const Access& acc, CType t);
    CType castType(Expr& e);
    // The type of an assignable expression: a variable, a field, or a swizzle without repeated
    // lanes applied to one of those.
    CType lvalue(uint32_t id);

    Ast& ast_;
    CType result_;
    const Reporter& rep_;
    std::vector<std::vector<std::pair<std::string, uint32_t>>> scopes_;
    std::vector<bool> constSlots_;
    int loops_ = 0;
    int switches_ = 0;
};

} // namespace egopt::interp::c
