// Recursive-descent parser for user-function bodies: tokens to an Ast whose root is the body
// block. Names are resolved and types checked afterwards (c_check).
#pragma once

#include "c_ast.hpp"
#include "c_lexer.hpp"

#include <optional>

namespace egopt::interp::c {

Ast parse(const std::vector<Token>& tokens, const Reporter& rep);

// float, int4, ... as a type; nullopt for other words. Unsupported C types (unsigned, half, ...)
// are reported through rep.
std::optional<CType> builtinTypeName(const std::string& word, uint32_t line, const Reporter& rep);

// The value of an integer constant expression (literals, macros expanded to them, and the
// arithmetic and bitwise operators on them); nullopt for anything else.
std::optional<int64_t> constantInt(const Ast& ast, uint32_t expr, const Reporter& rep);

// The longest local array (elements per dimension; CType keeps lengths in a byte).
inline constexpr int64_t kMaxArrayLength = 255;

class Parser {
public:
    Parser(const std::vector<Token>& toks, const Reporter& rep) : toks_(toks), rep_(rep) {}
    Ast run();

private:
    // statements (c_parser.cpp)
    uint32_t statement();
    uint32_t block();
    uint32_t declaration(bool needSemicolon = true);
    uint32_t ifStatement();
    uint32_t forStatement();
    uint32_t whileStatement();
    uint32_t doStatement();
    uint32_t jump(StmtKind kind);
    uint32_t switchStatement();
    uint32_t caseLabel();
    uint8_t arrayLength();
    uint8_t checkedLength(int64_t n, uint32_t line) const;
    bool atTypeStart() const;
    CType typeName();
    void rejectKeyword(const Token& t) const;

    // expressions (c_parser_expr.cpp)
    uint32_t expression();
    uint32_t assignment();
    uint32_t conditional();
    uint32_t binary(int minPrec);
    uint32_t unary();
    uint32_t castOrParen();
    uint32_t postfix(uint32_t e);
    uint32_t primary();
    uint32_t callArgs(Expr call);
    uint32_t conversion(Expr call);
    uint32_t initList(CType type, uint32_t line, const char* close);
    bool atCast() const;

    // Adds an expression, bounding the depth of expression trees and statement nesting so that
    // the recursive checker and evaluator cannot run out of stack.
    uint32_t addExpr(Expr e);
    struct Nest {
        explicit Nest(Parser& p);
        ~Nest() { --p.nesting_; }
        Parser& p;
    };

    // tokens
    const Token& peek(size_t ahead = 0) const;
    const Token& advance();
    bool isPunct(std::string_view p, size_t ahead = 0) const;
    bool accept(std::string_view p);
    void expect(std::string_view p);
    [[noreturn]] void failHere(const std::string& msg) const;

    const std::vector<Token>& toks_;
    const Reporter& rep_;
    size_t pos_ = 0;
    Ast ast_;
    std::vector<uint32_t> exprDepth_;
    uint32_t nesting_ = 0;
};

} // namespace egopt::interp::c
