// Expressions by precedence climbing.
#include "c_parser.hpp"

#include <cmath>
#include <limits>

namespace egopt::interp::c {

namespace {

struct BinOp {
    std::string_view text;
    Op op;
    int prec;
};

constexpr BinOp kBinOps[] = {{"||", Op::LogOr, 1}, {"&&", Op::LogAnd, 2}, {"|", Op::BitOr, 3},
                             {"^", Op::BitXor, 4}, {"&", Op::BitAnd, 5},  {"==", Op::Eq, 6},
                             {"!=", Op::Ne, 6},    {"<", Op::Lt, 7},      {">", Op::Gt, 7},
                             {"<=", Op::Le, 7},    {">=", Op::Ge, 7},     {"<<", Op::Shl, 8},
                             {">>", Op::Shr, 8},   {"+", Op::Add, 9},     {"-", Op::Sub, 9},
                             {"*", Op::Mul, 10},   {"/", Op::Div, 10},    {"%", Op::Mod, 10}};

constexpr std::pair<std::string_view, Op> kAssignOps[] = {
    {"=", Op::Assign},  {"+=", Op::Add},   {"-=", Op::Sub},   {"*=", Op::Mul},
    {"/=", Op::Div},    {"%=", Op::Mod},   {"<<=", Op::Shl},  {">>=", Op::Shr},
    {"&=", Op::BitAnd}, {"|=", Op::BitOr}, {"^=", Op::BitXor}};

const BinOp* findBinOp(const Token& t) {
    if (t.kind != TokKind::Punct) {
        return nullptr;
    }
    for (const BinOp& b : kBinOps) {
        if (b.text == t.text) {
            return &b;
        }
    }
    return nullptr;
}

// Named constants of OpenCL C that user functions use.
struct Constant {
    std::string_view name;
    double value;
    Base base;
};

constexpr Constant kConstants[] = {
    {"true", 1, Base::Int},
    {"false", 0, Base::Int},
    {"M_PI", 3.14159265358979323846, Base::Double},
    {"M_PI_F", 3.14159265358979323846, Base::Float},
    {"M_E", 2.71828182845904523536, Base::Double},
    {"M_E_F", 2.71828182845904523536, Base::Float},
    {"M_SQRT2", 1.41421356237309504880, Base::Double},
    {"M_SQRT2_F", 1.41421356237309504880, Base::Float},
    {"MAXFLOAT", std::numeric_limits<float>::max(), Base::Float},
    {"FLT_MAX", std::numeric_limits<float>::max(), Base::Float},
    {"FLT_MIN", std::numeric_limits<float>::min(), Base::Float},
    {"FLT_EPSILON", std::numeric_limits<float>::epsilon(), Base::Float},
    {"INFINITY", std::numeric_limits<float>::infinity(), Base::Float},
    {"NAN", std::numeric_limits<float>::quiet_NaN(), Base::Float},
    {"INT_MAX", INT32_MAX, Base::Int},
    {"INT_MIN", INT32_MIN, Base::Int}};

} // namespace

uint32_t Parser::expression() {
    uint32_t e = assignment();
    while (isPunct(",")) {
        Expr c{.kind = ExprKind::Comma, .line = advance().line, .a = e};
        c.b = assignment();
        e = addExpr(std::move(c));
    }
    return e;
}

uint32_t Parser::assignment() {
    uint32_t lhs = conditional();
    for (auto [text, op] : kAssignOps) {
        if (isPunct(text)) {
            Expr e{.kind = ExprKind::Assign, .op = op, .line = advance().line, .a = lhs};
            e.b = isPunct("{") ? initList(CType{}, peek().line, "}") : assignment();
            return addExpr(std::move(e));
        }
    }
    return lhs;
}

uint32_t Parser::conditional() {
    uint32_t cond = binary(1);
    if (!isPunct("?")) {
        return cond;
    }
    Expr e{.kind = ExprKind::Ternary, .line = advance().line, .a = cond};
    e.b = expression();
    expect(":");
    e.c = conditional();
    return addExpr(std::move(e));
}

uint32_t Parser::binary(int minPrec) {
    uint32_t lhs = unary();
    while (const BinOp* b = findBinOp(peek())) {
        if (b->prec < minPrec) {
            break;
        }
        Expr e{.kind = ExprKind::Binary, .op = b->op, .line = advance().line, .a = lhs};
        e.b = binary(b->prec + 1);
        lhs = addExpr(std::move(e));
    }
    return lhs;
}

uint32_t Parser::unary() {
    Nest nest(*this);
    static constexpr std::pair<std::string_view, Op> kPrefix[] = {
        {"-", Op::Neg},    {"+", Op::Plus},    {"!", Op::Not},
        {"~", Op::BitNot}, {"++", Op::PreInc}, {"--", Op::PreDec}};
    if (isPunct("*") || isPunct("&")) {
        failHere("pointers are not supported");
    }
    for (auto [text, op] : kPrefix) {
        if (isPunct(text)) {
            Expr e{.kind = ExprKind::Unary, .op = op, .line = advance().line};
            e.a = unary();
            return addExpr(std::move(e));
        }
    }
    if (isPunct("(")) {
        return castOrParen();
    }
    return postfix(primary());
}

bool Parser::atCast() const {
    if (!isPunct("(") || peek(1).kind != TokKind::Ident) {
        return false;
    }
    const std::string& w = peek(1).text;
    if (w == "const" || w == "struct" || builtinTypeName(w, peek(1).line, rep_)) {
        return true;
    }
    return w.rfind("Tuple", 0) == 0 && isPunct(")", 2);
}

// (float)x, (float4)(a, b, c, d), (Tuple){a, b} or a parenthesised expression.
uint32_t Parser::castOrParen() {
    uint32_t line = peek().line;
    if (!atCast()) {
        advance();
        uint32_t e = expression();
        expect(")");
        return postfix(e);
    }
    advance();
    CType type = typeName();
    expect(")");
    if (isPunct("{")) {
        return postfix(initList(type, line, "}"));
    }
    if (type.width > 1 && isPunct("(")) {
        return postfix(initList(type, line, ")"));
    }
    Expr e{.kind = ExprKind::Cast, .line = line, .type = type};
    e.a = unary();
    return addExpr(std::move(e));
}

uint32_t Parser::initList(CType type, uint32_t line, const char* close) {
    Nest nest(*this);
    advance(); // the opening brace or parenthesis
    std::vector<uint32_t> elems;
    while (!isPunct(close)) {
        elems.push_back(isPunct("{") ? initList(CType{}, peek().line, "}") : assignment());
        if (!accept(",")) {
            break;
        }
    }
    expect(close);
    Expr e{.kind = ExprKind::InitList, .line = line, .type = type};
    e.listBegin = ast_.addList(elems);
    e.listCount = static_cast<uint32_t>(elems.size());
    return addExpr(std::move(e));
}

uint32_t Parser::postfix(uint32_t e) {
    while (true) {
        uint32_t line = peek().line;
        if (accept(".")) {
            const Token& field = advance();
            if (field.kind != TokKind::Ident) {
                rep_.fail(field.line, "expected a field or swizzle name after '.'");
            }
            e = addExpr(Expr{.kind = ExprKind::Member, .line = line, .a = e, .name = field.text});
        } else if (isPunct("++") || isPunct("--")) {
            Op op = peek().text == "++" ? Op::PostInc : Op::PostDec;
            advance();
            e = addExpr(Expr{.kind = ExprKind::Unary, .op = op, .line = line, .a = e});
        } else if (isPunct("->")) {
            failHere("pointers are not supported");
        } else if (accept("[")) {
            Expr index{.kind = ExprKind::Index, .line = line, .a = e};
            index.b = expression();
            expect("]");
            e = addExpr(std::move(index));
        } else if (isPunct("(")) {
            failHere("only named functions can be called");
        } else {
            return e;
        }
    }
}

uint32_t Parser::primary() {
    const Token& t = advance();
    Expr e{.line = t.line};
    switch (t.kind) {
    case TokKind::Int:
        e.kind = ExprKind::IntLit;
        e.inum = t.inum;
        e.type = scalarType(t.longInt && t.unsignedInt ? Base::ULong
                            : t.longInt                ? Base::Long
                            : t.unsignedInt            ? Base::UInt
                                                       : Base::Int);
        return addExpr(std::move(e));
    case TokKind::Float:
        e.kind = ExprKind::FloatLit;
        e.fnum = t.singleFloat ? static_cast<double>(static_cast<float>(t.fnum)) : t.fnum;
        e.type = scalarType(t.singleFloat ? Base::Float : Base::Double);
        return addExpr(std::move(e));
    case TokKind::Ident:
        break;
    default:
        rep_.fail(t.line, t.kind == TokKind::End ? "unexpected end of the body"
                                                 : "unexpected '" + t.text + "'");
    }
    rejectKeyword(t);
    for (const Constant& c : kConstants) {
        if (c.name == t.text) {
            e.kind = c.base == Base::Int ? ExprKind::IntLit : ExprKind::FloatLit;
            e.inum = c.base == Base::Int ? static_cast<int64_t>(c.value) : 0; // no UB on NAN
            e.fnum = c.base == Base::Float ? static_cast<float>(c.value) : c.value;
            e.type = scalarType(c.base);
            return addExpr(std::move(e));
        }
    }
    e.name = t.text;
    if (isPunct("(") && (t.text.rfind("convert_", 0) == 0 || t.text.rfind("as_", 0) == 0)) {
        return conversion(std::move(e));
    }
    if (isPunct("(")) {
        return callArgs(std::move(e));
    }
    e.kind = ExprKind::Var;
    return addExpr(std::move(e));
}

// OpenCL's convert_T(x): x converted to T lane by lane (also vector to vector, which a cast
// cannot do), and as_T(x): the bits of x read as T. The rounding and saturating forms
// (convert_int_sat, convert_int_rte, ...) are not in the subset.
uint32_t Parser::conversion(Expr call) {
    bool reinterpret = call.name.rfind("as_", 0) == 0;
    std::string target = call.name.substr(reinterpret ? 3 : std::string_view("convert_").size());
    auto type = builtinTypeName(target, call.line, rep_);
    if (!type) {
        rep_.fail(call.line, "'" + call.name +
                                 "' is not supported (only convert_T without a "
                                 "rounding or saturation suffix, and as_T)");
    }
    Expr e{.kind = ExprKind::Cast,
           .line = call.line,
           .inum = reinterpret ? kReinterpret : kLaneConversion,
           .type = *type};
    expect("(");
    e.a = assignment();
    expect(")");
    return addExpr(std::move(e));
}

uint32_t Parser::callArgs(Expr call) {
    call.kind = ExprKind::Call;
    expect("(");
    std::vector<uint32_t> args;
    if (!isPunct(")")) {
        do {
            args.push_back(assignment());
        } while (accept(","));
    }
    expect(")");
    call.listBegin = ast_.addList(args);
    call.listCount = static_cast<uint32_t>(args.size());
    return addExpr(std::move(call));
}

} // namespace egopt::interp::c
