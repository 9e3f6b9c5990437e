// C operations of a user function, counted on the reference interpreter's C AST (the same parser
// that runs the function, so every construct the interpreter accepts is counted). The AST headers
// are internal to the interp module; the cost model only reads the tree.
#include "../interp/c_ast.hpp"
#include "../interp/c_error.hpp"
#include "../interp/c_lexer.hpp"
#include "../interp/c_parser.hpp"
#include "detail.hpp"

#include <algorithm>

namespace egopt::costmodel::detail {

namespace {

using namespace egopt::interp::c;

// Builtins that cost more than one operation (rough latencies in simple-op units).
double builtinWeight(const std::string& name) {
    static const std::map<std::string, double, std::less<>> w{
        {"sqrt", 4}, {"exp", 8},  {"log", 8},    {"pow", 16},       {"sin", 8},        {"cos", 8},
        {"tan", 12}, {"dot", 4},  {"length", 6}, {"native_exp", 4}, {"native_log", 4}, {"rsqrt", 4},
        {"exp2", 8}, {"log2", 8}, {"atan", 12},  {"tanh", 12}};
    auto it = w.find(name);
    return it == w.end() ? 1 : it->second;
}

class Counter {
public:
    explicit Counter(const Ast& ast) : ast_(ast) {}

    double expr(uint32_t id) const {
        if (id == kNone) {
            return 0;
        }
        const Expr& e = ast_.exprs[id];
        double own = 0;
        switch (e.kind) {
        case ExprKind::Unary:
        case ExprKind::Binary:
        case ExprKind::Ternary:
            own = e.op == Op::Plus ? 0 : 1;
            break;
        case ExprKind::Assign:
            own = e.op == Op::Assign ? 0 : 1; // compound assignment: its operator
            break;
        case ExprKind::Call:
            own = builtinWeight(e.name);
            break;
        default:
            break;
        }
        double sum = own + expr(e.a) + expr(e.b) + expr(e.c);
        for (uint32_t i = 0; i < e.listCount; ++i) {
            sum += expr(ast_.list(e.listBegin)[i]);
        }
        return sum;
    }

    double stmt(uint32_t id) const {
        if (id == kNone) {
            return 0;
        }
        const Stmt& s = ast_.stmts[id];
        switch (s.kind) {
        case StmtKind::Block:
        case StmtKind::Decls: {
            double sum = 0;
            for (uint32_t i = 0; i < s.listCount; ++i) {
                sum += stmt(ast_.list(s.listBegin)[i]);
            }
            return sum;
        }
        case StmtKind::Decl:
        case StmtKind::Expr:
        case StmtKind::Return:
            return expr(s.a);
        case StmtKind::If:
            return expr(s.a) + std::max(stmt(s.b), stmt(s.c));
        case StmtKind::For:
            return stmt(s.a) + trips(s) * (expr(s.b) + expr(s.c) + stmt(s.d));
        case StmtKind::While:
            return kUnknownTrips * (expr(s.a) + stmt(s.b));
        case StmtKind::DoWhile:
            return kUnknownTrips * (stmt(s.a) + expr(s.b));
        case StmtKind::Switch: // every branch, as if all fell through: an upper bound
            return expr(s.a) + stmt(s.b);
        default:
            return 0;
        }
    }

private:
    static constexpr double kUnknownTrips = 8;

    // `for (int i = a; i < b; i++)` with literal a and b; otherwise a guess.
    double trips(const Stmt& s) const {
        const Stmt* init = s.a == kNone ? nullptr : &ast_.stmts[s.a];
        if (init && init->kind == StmtKind::Decls && init->listCount == 1) {
            init = &ast_.stmts[ast_.list(init->listBegin)[0]];
        }
        if (!init || init->kind != StmtKind::Decl || init->a == kNone || s.b == kNone) {
            return kUnknownTrips;
        }
        const Expr& from = ast_.exprs[init->a];
        const Expr& cond = ast_.exprs[s.b];
        if (from.kind != ExprKind::IntLit || cond.kind != ExprKind::Binary || cond.b == kNone ||
            ast_.exprs[cond.b].kind != ExprKind::IntLit) {
            return kUnknownTrips;
        }
        double n = static_cast<double>(ast_.exprs[cond.b].inum - from.inum);
        return std::max(0.0, n + (cond.op == Op::Le ? 1 : 0));
    }

    const Ast& ast_;
};

// Fallback when the body is outside the interpreter's subset (e.g. generator helpers): the
// operator characters.
double tokenCount(const std::string& body) {
    return static_cast<double>(std::count_if(body.begin(), body.end(), [](char c) {
        return c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '<' || c == '>' ||
               c == '?';
    }));
}

} // namespace

double countOps(const std::string& name, const std::string& body, double lanes) {
    try {
        Reporter rep(name, SourceLoc{}, true);
        Ast ast = parse(lex(body, rep), rep);
        return lanes * Counter(ast).stmt(ast.root);
    } catch (const Error&) {
        return lanes * tokenCount(body);
    }
}

} // namespace egopt::costmodel::detail
