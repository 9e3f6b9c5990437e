// Statements, declarations and type names.
#include "c_parser.hpp"

#include "c_value.hpp"

#include <algorithm>
#include <set>

namespace egopt::interp::c {

namespace {

// Words of C that this subset does not implement; they get a clear message instead of being
// taken for identifiers.
const std::set<std::string, std::less<>> kUnsupported = {
    "goto",   "typedef", "sizeof",   "static",    "extern",   "register",  "volatile", "union",
    "enum",   "inline",  "restrict", "signed",    "half",     "size_t",    "__global", "__local",
    "global", "local",   "private",  "__private", "constant", "__constant"};

const std::set<std::string, std::less<>> kUnsupportedTypes = {"signed", "half", "size_t"};

bool isTupleName(const std::string& w) {
    return w.rfind("Tuple", 0) == 0;
}

} // namespace

std::optional<CType> builtinTypeName(const std::string& word, uint32_t line, const Reporter& rep) {
    static const std::pair<const char*, Base> kBases[] = {
        {"float", Base::Float},   {"double", Base::Double}, {"int", Base::Int},
        {"uint", Base::UInt},     {"long", Base::Long},     {"ulong", Base::ULong},
        {"char", Base::Char},     {"uchar", Base::UChar},   {"short", Base::Short},
        {"ushort", Base::UShort}, {"bool", Base::Bool}};
    if (word == "unsigned") { // `unsigned int` (the parser reads the `int`) or `unsigned`
        return scalarType(Base::UInt);
    }
    if (kUnsupportedTypes.count(word)) {
        rep.fail(line, "type '" + word + "' is not supported");
    }
    for (auto [name, base] : kBases) {
        std::string_view n(name);
        if (word.rfind(n, 0) != 0) {
            continue;
        }
        std::string rest = word.substr(n.size());
        if (rest.empty()) {
            return scalarType(base);
        }
        if (base != Base::Bool &&
            (rest == "2" || rest == "3" || rest == "4" || rest == "8" || rest == "16")) {
            return CType{.base = base,
                         .width = static_cast<uint8_t>(std::stoi(rest)),
                         .tuple = lift::kNoType};
        }
    }
    return std::nullopt;
}

namespace {

constexpr uint32_t kMaxDepth = 256;

} // namespace

std::optional<int64_t> constantInt(const Ast& ast, uint32_t id, const Reporter& rep) {
    const Expr& e = ast.exprs[id];
    // Folded as C evaluates in long, by the interpreter's own operators (a division by zero or
    // a shift out of range is reported); bounded so that a length or label stays small.
    constexpr int64_t kBound = int64_t{1} << 40;
    CType t = scalarType(Base::Long);
    Where w{rep, e.line};
    std::optional<int64_t> r;
    if (e.kind == ExprKind::IntLit) {
        r = e.inum;
    } else if (e.kind == ExprKind::Unary &&
               (e.op == Op::Neg || e.op == Op::Plus || e.op == Op::BitNot)) {
        if (auto a = constantInt(ast, e.a, rep)) {
            r = unaryLane(e.op, Lane{.i = *a}, t, w).i;
        }
    } else if (e.kind == ExprKind::Binary && e.op >= Op::Add && e.op <= Op::BitXor) {
        auto a = constantInt(ast, e.a, rep), b = constantInt(ast, e.b, rep);
        if (a && b) {
            r = binaryLane(e.op, Lane{.i = *a}, Lane{.i = *b}, t, w).i;
        }
    }
    return r && *r > -kBound && *r < kBound ? r : std::nullopt;
}

uint32_t Parser::addExpr(Expr e) {
    uint32_t depth = 0;
    for (uint32_t child : {e.a, e.b, e.c}) {
        depth = std::max(depth, child == kNone ? 0 : exprDepth_[child]);
    }
    for (uint32_t i = 0; i < e.listCount; ++i) {
        depth = std::max(depth, exprDepth_[ast_.lists[e.listBegin + i]]);
    }
    if (depth + 1 > kMaxDepth) {
        rep_.fail(e.line, "the expression is nested too deeply");
    }
    exprDepth_.push_back(depth + 1);
    return ast_.addExpr(std::move(e));
}

Parser::Nest::Nest(Parser& parser) : p(parser) {
    if (++p.nesting_ > kMaxDepth) {
        p.failHere("statements or expressions are nested too deeply");
    }
}

Ast Parser::run() {
    if (!isPunct("{")) {
        failHere("the body must be a block in braces");
    }
    ast_.root = block();
    if (peek().kind != TokKind::End) {
        failHere("unexpected '" + peek().text + "' after the body");
    }
    return std::move(ast_);
}

const Token& Parser::peek(size_t ahead) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
}

const Token& Parser::advance() {
    const Token& t = peek();
    if (t.kind != TokKind::End) {
        ++pos_;
    }
    return t;
}

bool Parser::isPunct(std::string_view p, size_t ahead) const {
    return peek(ahead).kind == TokKind::Punct && peek(ahead).text == p;
}

bool Parser::accept(std::string_view p) {
    if (isPunct(p)) {
        advance();
        return true;
    }
    return false;
}

void Parser::expect(std::string_view p) {
    if (!accept(p)) {
        const Token& t = peek();
        // A missing ';' or ')' belongs to the line it should end, as C compilers report it.
        uint32_t line = pos_ > 0 ? toks_[pos_ - 1].line : t.line;
        rep_.fail(line, "expected '" + std::string(p) + "' but found " +
                            (t.kind == TokKind::End ? std::string("the end of the body")
                                                    : "'" + t.text + "'"));
    }
}

void Parser::failHere(const std::string& msg) const {
    rep_.fail(peek().line, msg);
}

void Parser::rejectKeyword(const Token& t) const {
    if (t.kind == TokKind::Ident && kUnsupported.count(t.text)) {
        rep_.fail(t.line, "'" + t.text + "' is not supported");
    }
}

bool Parser::atTypeStart() const {
    const Token& t = peek();
    if (t.kind != TokKind::Ident) {
        return false;
    }
    if (t.text == "const" || t.text == "struct" || builtinTypeName(t.text, t.line, rep_)) {
        return true;
    }
    // A struct-like name followed by a variable name: Tuple2_float_float t;
    return peek(1).kind == TokKind::Ident || (isTupleName(t.text) && isPunct("*", 1));
}

CType Parser::typeName() {
    while (peek().kind == TokKind::Ident && peek().text == "const") {
        advance();
    }
    bool isStruct = peek().kind == TokKind::Ident && peek().text == "struct";
    if (isStruct) {
        advance();
    }
    const Token& t = advance();
    if (t.kind != TokKind::Ident) {
        rep_.fail(t.line, "expected a type name");
    }
    rejectKeyword(t);
    auto builtin = isStruct ? std::nullopt : builtinTypeName(t.text, t.line, rep_);
    // unsigned int, char, short and long; `unsigned` alone is an unsigned int.
    Base unsignedKind = Base::Void;
    if (t.text == "unsigned" && peek().kind == TokKind::Ident) {
        static constexpr std::pair<const char*, Base> kUnsigned[] = {{"int", Base::UInt},
                                                                     {"char", Base::UChar},
                                                                     {"short", Base::UShort},
                                                                     {"long", Base::ULong}};
        for (auto [name, base] : kUnsigned) {
            if (unsignedKind == Base::Void && peek().text == name) {
                unsignedKind = base;
            }
        }
        if (unsignedKind != Base::Void) {
            advance();
        } else if (builtinTypeName(peek().text, peek().line, rep_)) {
            rep_.fail(peek().line, "type 'unsigned " + peek().text + "' is not supported");
        }
    }
    // Any other type name stands for a struct; the only struct a user function can build is
    // its Tuple result, which the checker substitutes.
    CType type = unsignedKind != Base::Void ? scalarType(unsignedKind)
                 : builtin                  ? *builtin
                           : CType{.base = Base::Tuple, .width = 1, .tuple = lift::kNoType};
    while (peek().kind == TokKind::Ident && peek().text == "const") {
        advance();
    }
    if (isPunct("*")) {
        failHere("pointers are not supported");
    }
    return type;
}

uint32_t Parser::statement() {
    Nest nest(*this);
    const Token& t = peek();
    rejectKeyword(t);
    if (isPunct("{")) {
        return block();
    }
    if (accept(";")) {
        return ast_.addStmt(Stmt{.kind = StmtKind::Empty, .line = t.line});
    }
    if (t.kind == TokKind::Ident) {
        if (t.text == "if") {
            return ifStatement();
        }
        if (t.text == "for") {
            return forStatement();
        }
        if (t.text == "while") {
            return whileStatement();
        }
        if (t.text == "do") {
            return doStatement();
        }
        if (t.text == "switch") {
            return switchStatement();
        }
        if (t.text == "case" || t.text == "default") {
            return caseLabel();
        }
        if (t.text == "break") {
            return jump(StmtKind::Break);
        }
        if (t.text == "continue") {
            return jump(StmtKind::Continue);
        }
        if (t.text == "return") {
            return jump(StmtKind::Return);
        }
        if (atTypeStart()) {
            return declaration();
        }
    }
    Stmt s{.kind = StmtKind::Expr, .line = t.line};
    s.a = expression();
    expect(";");
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::block() {
    Stmt s{.kind = StmtKind::Block, .line = peek().line};
    expect("{");
    std::vector<uint32_t> body;
    while (!isPunct("}")) {
        if (peek().kind == TokKind::End) {
            failHere("missing '}' at the end of the body");
        }
        body.push_back(statement());
    }
    advance();
    s.listBegin = ast_.addList(body);
    s.listCount = static_cast<uint32_t>(body.size());
    return ast_.addStmt(std::move(s));
}

// float a = 1.0f, b; gives a Decls statement holding one Decl per declarator.
uint32_t Parser::declaration(bool needSemicolon) {
    uint32_t line = peek().line;
    bool isConst = peek().text == "const";
    CType type = typeName();
    std::vector<uint32_t> decls;
    do {
        const Token& name = advance();
        if (name.kind != TokKind::Ident) {
            rep_.fail(name.line, "expected a variable name");
        }
        rejectKeyword(name);
        Stmt d{.kind = StmtKind::Decl,
               .line = name.line,
               .name = name.text,
               .type = type,
               .isConst = isConst};
        bool unsized = isPunct("[") && isPunct("]", 1);
        if (isPunct("[")) {
            d.type.count = arrayLength();
        }
        if (isPunct("[")) {
            d.type.inner = arrayLength();
            if (d.type.inner == 0) {
                rep_.fail(name.line, "the inner length of '" + name.text + "' must be given");
            }
        }
        if (isPunct("[")) {
            failHere("arrays of more than two dimensions are not supported");
        }
        if (isPunct("(")) {
            failHere("nested function declarations are not supported");
        }
        if (accept("=")) {
            d.a = isPunct("{") ? initList(d.type, peek().line, "}") : assignment();
            if (unsized) {
                d.type.count = checkedLength(ast_.exprs[d.a].listCount, name.line);
                ast_.exprs[d.a].type = d.type;
            }
        } else if (unsized) {
            rep_.fail(name.line, "the array '" + name.text + "' needs a length or an initialiser");
        }
        decls.push_back(ast_.addStmt(std::move(d)));
    } while (accept(","));
    if (needSemicolon) {
        expect(";");
    }
    Stmt s{.kind = StmtKind::Decls, .line = line};
    s.listBegin = ast_.addList(decls);
    s.listCount = static_cast<uint32_t>(decls.size());
    return ast_.addStmt(std::move(s));
}

// `[n]` after a declared name: n a constant expression; `[]` gets its length from the
// initialiser (the caller's job, 0 meanwhile).
uint8_t Parser::arrayLength() {
    uint32_t line = advance().line;
    uint8_t n = 0;
    if (!isPunct("]")) {
        uint32_t e = conditional();
        auto v = constantInt(ast_, e, rep_);
        if (!v) {
            rep_.fail(line, "an array length must be an integer constant");
        }
        n = checkedLength(*v, line);
    }
    expect("]");
    return n;
}

uint8_t Parser::checkedLength(int64_t n, uint32_t line) const {
    if (n < 1 || n > kMaxArrayLength) {
        rep_.fail(line, "an array length must be between 1 and " + std::to_string(kMaxArrayLength) +
                            ", not " + std::to_string(n));
    }
    return static_cast<uint8_t>(n);
}

uint32_t Parser::switchStatement() {
    Stmt s{.kind = StmtKind::Switch, .line = advance().line};
    expect("(");
    s.a = expression();
    expect(")");
    if (!isPunct("{")) {
        failHere("the body of 'switch' must be a block in braces");
    }
    s.b = block();
    return ast_.addStmt(std::move(s));
}

// `case e:` with e a constant expression, or `default:`; the checker places them.
uint32_t Parser::caseLabel() {
    const Token& t = advance();
    Stmt s{.kind = StmtKind::Case, .line = t.line};
    if (t.text == "case") {
        s.a = conditional();
        auto v = constantInt(ast_, s.a, rep_);
        if (!v) {
            rep_.fail(t.line, "a 'case' label must be an integer constant");
        }
        s.value = *v;
    }
    expect(":");
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::ifStatement() {
    Stmt s{.kind = StmtKind::If, .line = advance().line};
    expect("(");
    s.a = expression();
    expect(")");
    s.b = statement();
    if (peek().kind == TokKind::Ident && peek().text == "else") {
        advance();
        s.c = statement();
    }
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::forStatement() {
    Stmt s{.kind = StmtKind::For, .line = advance().line};
    expect("(");
    if (!isPunct(";")) {
        if (atTypeStart()) {
            s.a = declaration(false);
        } else {
            s.a = ast_.addStmt(Stmt{.kind = StmtKind::Expr, .line = peek().line});
            ast_.stmts[s.a].a = expression();
        }
    }
    expect(";");
    s.b = isPunct(";") ? kNone : expression();
    expect(";");
    s.c = isPunct(")") ? kNone : expression();
    expect(")");
    s.d = statement();
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::whileStatement() {
    Stmt s{.kind = StmtKind::While, .line = advance().line};
    expect("(");
    s.a = expression();
    expect(")");
    s.b = statement();
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::doStatement() {
    Stmt s{.kind = StmtKind::DoWhile, .line = advance().line};
    s.a = statement();
    if (peek().kind != TokKind::Ident || peek().text != "while") {
        failHere("expected 'while' after the body of 'do'");
    }
    advance();
    expect("(");
    s.b = expression();
    expect(")");
    expect(";");
    return ast_.addStmt(std::move(s));
}

uint32_t Parser::jump(StmtKind kind) {
    Stmt s{.kind = kind, .line = advance().line};
    if (kind == StmtKind::Return && !isPunct(";")) {
        s.a = expression();
    }
    expect(";");
    return ast_.addStmt(std::move(s));
}

Ast parse(const std::vector<Token>& tokens, const Reporter& rep) {
    return Parser(tokens, rep).run();
}

} // namespace egopt::interp::c
