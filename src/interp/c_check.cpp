#include "c_check.hpp"

#include "c_builtins.hpp"
#include "c_types.hpp"
#include "c_value.hpp"

#include <algorithm>
#include <cctype>

namespace egopt::interp::c {

namespace {

class Checker {
public:
    Checker(Ast& ast, CType result, const Reporter& rep) : ast_(ast), result_(result), rep_(rep) {}

    void run(const std::vector<Param>& params) {
        scopes_.emplace_back();
        for (const Param& p : params) {
            declare(p.name, p.type, false, 0);
        }
        stmt(ast_.root);
    }

private:
    [[noreturn]] void fail(uint32_t line, const std::string& msg) const { rep_.fail(line, msg); }

    uint32_t declare(const std::string& name, CType t, bool isConst, uint32_t line) {
        auto& scope = scopes_.back();
        if (std::any_of(scope.begin(), scope.end(), [&](auto& e) { return e.first == name; })) {
            fail(line, "'" + name + "' is already declared in this scope");
        }
        auto slot = static_cast<uint32_t>(ast_.slotTypes.size());
        ast_.slotTypes.push_back(t);
        ast_.slotNames.push_back(name);
        constSlots_.push_back(isConst);
        scope.emplace_back(name, slot);
        return slot;
    }

    uint32_t lookup(const std::string& name, uint32_t line) const {
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
            for (auto e = s->rbegin(); e != s->rend(); ++e) {
                if (e->first == name) {
                    return e->second;
                }
            }
        }
        fail(line, "unknown identifier '" + name + "'");
    }

    // A struct type name means the Tuple result type.
    CType resolve(CType t, uint32_t line) const {
        if (t.base == Base::Tuple && t.tuple == lift::kNoType) {
            if (result_.base != Base::Tuple) {
                fail(line, "struct types are only supported for a Tuple result");
            }
            CType r = result_;
            r.count = t.count;
            r.inner = t.inner;
            return r;
        }
        if (t.base == Base::Void) {
            fail(line, "'void' variables are not supported");
        }
        return t;
    }

    void stmt(uint32_t id) {
        Stmt& s = ast_.stmts[id];
        switch (s.kind) {
        case StmtKind::Block:
            return list(s, true);
        case StmtKind::Decls:
            return list(s, false);
        case StmtKind::Decl:
            return decl(s);
        case StmtKind::Expr:
            expr(s.a);
            return;
        case StmtKind::If:
            return ifStmt(s);
        case StmtKind::For:
            return forStmt(s);
        case StmtKind::While:
            return loop(s.a, s.b);
        case StmtKind::DoWhile:
            return loop(s.b, s.a);
        case StmtKind::Switch:
            return switchStmt(s);
        case StmtKind::Case:
            fail(s.line, "a 'case' or 'default' label must be directly inside a switch's braces");
        case StmtKind::Break:
            if (loops_ == 0 && switches_ == 0) {
                fail(s.line, "'break' outside a loop or switch");
            }
            return;
        case StmtKind::Continue:
            if (loops_ == 0) {
                fail(s.line, std::string(s.kind == StmtKind::Break ? "'break'" : "'continue'") +
                                 " outside a loop");
            }
            return;
        case StmtKind::Return:
            if (s.a == kNone) {
                fail(s.line, "'return' needs a value");
            }
            return initTo(s.a, result_, "the result");
        case StmtKind::Empty:
            return;
        }
    }

    void list(const Stmt& s, bool scoped) {
        if (scoped) {
            scopes_.emplace_back();
        }
        for (uint32_t i = 0; i < s.listCount; ++i) {
            stmt(ast_.list(s.listBegin)[i]);
        }
        if (scoped) {
            scopes_.pop_back();
        }
    }

    void decl(Stmt& s) {
        s.type = resolve(s.type, s.line);
        if (s.a != kNone) {
            initTo(s.a, s.type, "'" + s.name + "'");
        } else if (s.isConst) {
            fail(s.line, "const '" + s.name + "' needs an initialiser");
        }
        s.slot = declare(s.name, s.type, s.isConst, s.line);
    }

    // The labels are the statements of the switch's own block; the block is one scope.
    void switchStmt(const Stmt& s) {
        CType t = expr(s.a);
        if (!t.isScalar() || !t.isInteger()) {
            fail(s.line, "a switch needs an integer value, not " + typeName(t));
        }
        const Stmt& body = ast_.stmts[s.b];
        std::vector<int64_t> seen;
        bool hasDefault = false;
        ++switches_;
        scopes_.emplace_back();
        for (uint32_t i = 0; i < body.listCount; ++i) {
            uint32_t id = ast_.list(body.listBegin)[i];
            const Stmt& c = ast_.stmts[id];
            if (c.kind != StmtKind::Case) {
                stmt(id);
            } else if (c.a == kNone) {
                if (hasDefault) {
                    fail(c.line, "a second 'default' label in one switch");
                }
                hasDefault = true;
            } else {
                expr(c.a);
                if (std::find(seen.begin(), seen.end(), c.value) != seen.end()) {
                    fail(c.line, "a second 'case " + std::to_string(c.value) + "' in one switch");
                }
                seen.push_back(c.value);
            }
        }
        scopes_.pop_back();
        --switches_;
    }

    void ifStmt(const Stmt& s) {
        condition(s.a);
        scoped(s.b);
        if (s.c != kNone) {
            scoped(s.c);
        }
    }

    void forStmt(const Stmt& s) {
        scopes_.emplace_back();
        if (s.a != kNone) {
            stmt(s.a);
        }
        if (s.b != kNone) {
            condition(s.b);
        }
        if (s.c != kNone) {
            expr(s.c);
        }
        ++loops_;
        scoped(s.d);
        --loops_;
        scopes_.pop_back();
    }

    void loop(uint32_t cond, uint32_t body) {
        condition(cond);
        ++loops_;
        scoped(body);
        --loops_;
    }

    // A sub-statement has its own scope even without braces (if (c) float x = 1;).
    void scoped(uint32_t id) {
        scopes_.emplace_back();
        stmt(id);
        scopes_.pop_back();
    }

    void condition(uint32_t id) {
        CType t = expr(id);
        if (!t.isScalar()) {
            fail(ast_.exprs[id].line, "a condition must be a scalar, not " + typeName(t));
        }
    }

    // Checks that expression id (possibly a brace list) can initialise a value of type t.
    void initTo(uint32_t id, CType t, const std::string& what) {
        Expr& e = ast_.exprs[id];
        if (e.kind != ExprKind::InitList || e.type.base != Base::Void) {
            CType from = expr(id);
            if (!assignable(from, t)) {
                fail(e.line,
                     "cannot use " + typeName(from) + " as " + what + " of type " + typeName(t));
            }
            return;
        }
        e.type = t;
        initList(id);
    }

    void initList(uint32_t id) {
        Expr& e = ast_.exprs[id];
        CType t = e.type;
        const uint32_t* elems = ast_.list(e.listBegin);
        uint32_t n = e.listCount;
        if (t.isArray()) {
            // As in C, elements without an initialiser are zero.
            if (n > t.count) {
                fail(e.line, typeName(t) + " has " + std::to_string(t.count) +
                                 " elements but the initialiser has " + std::to_string(n));
            }
            for (uint32_t i = 0; i < n; ++i) {
                initTo(elems[i], t.element(), "element " + std::to_string(i));
            }
            return;
        }
        if (t.base == Base::Tuple) {
            const auto& fields = ast_.tuples.at(t.tuple);
            if (n != fields.size()) {
                fail(e.line, "the Tuple has " + std::to_string(fields.size()) +
                                 " fields but the initialiser has " + std::to_string(n));
            }
            for (uint32_t i = 0; i < n; ++i) {
                initTo(elems[i], fields[i], "field _" + std::to_string(i));
            }
            return;
        }
        uint32_t lanes = 0;
        for (uint32_t i = 0; i < n; ++i) {
            CType et = expr(elems[i]);
            if (!et.isNumeric() || (et.width > 1 && et.base != t.base)) {
                fail(e.line, "cannot build " + typeName(t) + " from " + typeName(et));
            }
            lanes += et.width;
        }
        bool broadcast = n == 1 && lanes == 1;
        if (!broadcast && lanes != t.width) {
            fail(e.line, typeName(t) + " needs " + std::to_string(t.width) +
                             " values but the initialiser has " + std::to_string(lanes));
        }
    }

    CType expr(uint32_t id) {
        CType t = exprType(id);
        ast_.exprs[id].type = t;
        return t;
    }

    CType exprType(uint32_t id) {
        Expr& e = ast_.exprs[id];
        switch (e.kind) {
        case ExprKind::IntLit:
        case ExprKind::FloatLit:
            return e.type;
        case ExprKind::Var:
            e.aux = lookup(e.name, e.line);
            if (ast_.slotTypes[e.aux].isArray()) {
                fail(e.line,
                     "the array '" + e.name + "' can only be indexed, as in " + e.name + "[i]");
            }
            return ast_.slotTypes[e.aux];
        case ExprKind::Index:
            return elementType(id);
        case ExprKind::Unary:
            return unaryType(e);
        case ExprKind::Binary:
            return binaryType(e.op, expr(e.a), expr(e.b), e.line);
        case ExprKind::Assign:
            return assignType(e);
        case ExprKind::Ternary:
            return ternaryType(e);
        case ExprKind::Call:
            return callType(e);
        case ExprKind::Member:
            return memberType(e, expr(e.a));
        case ExprKind::Cast:
            return castType(e);
        case ExprKind::InitList:
            if (e.type.base == Base::Void) {
                fail(e.line, "a brace initialiser needs a declared type");
            }
            e.type = resolve(e.type, e.line);
            initList(id);
            return e.type;
        case ExprKind::Comma:
            expr(e.a);
            return expr(e.b);
        }
        fail(e.line, "unsupported expression");
    }

    // a[i] as a value: not a row of a two-dimensional array.
    CType elementType(uint32_t id) {
        CType t = indexType(id);
        if (t.isArray()) {
            fail(ast_.exprs[id].line, "a row of '" + arrayName(id) + "' can only be indexed");
        }
        return t;
    }

    // a[i] (or m[i][j]): a is a local array, i an integer; the type may be a row.
    CType indexType(uint32_t id) {
        Expr& e = ast_.exprs[id];
        Expr& a = ast_.exprs[e.a];
        if (a.kind == ExprKind::Var) {
            a.aux = lookup(a.name, a.line);
            a.type = ast_.slotTypes[a.aux];
        } else if (a.kind == ExprKind::Index) {
            a.type = indexType(e.a);
        } else {
            fail(e.line, "only local arrays can be indexed");
        }
        if (!a.type.isArray()) {
            fail(e.line, "'" + arrayName(id) + "' is not an array (" + typeName(a.type) + ")");
        }
        CType i = expr(e.b);
        if (!i.isScalar() || !i.isInteger()) {
            fail(e.line, "an array index must be an integer, not " + typeName(i));
        }
        e.type = a.type.element();
        return e.type;
    }

    // The variable below a chain of indices.
    const Expr& arrayVar(uint32_t id) const {
        const Expr* e = &ast_.exprs[id];
        while (e->kind == ExprKind::Index) {
            e = &ast_.exprs[e->a];
        }
        return *e;
    }
    std::string arrayName(uint32_t id) const { return arrayVar(id).name; }

    CType unaryType(const Expr& e) {
        bool step = e.op >= Op::PreInc && e.op <= Op::PostDec;
        CType t = step ? lvalue(e.a) : expr(e.a);
        if (!t.isNumeric()) {
            fail(e.line, "operator needs a number, not " + typeName(t));
        }
        if (e.op == Op::Not) {
            if (t.width > 1) {
                fail(e.line, "'!' on a vector is not supported");
            }
            return scalarType(Base::Int);
        }
        if (e.op == Op::BitNot && !t.isInteger()) {
            fail(e.line, "'~' needs an integer operand");
        }
        if (step && t.base == Base::Bool) {
            fail(e.line, "'++' and '--' on bool are not supported");
        }
        return step ? t : promote(t);
    }

    CType binaryType(Op op, CType a, CType b, uint32_t line) const {
        if (op == Op::LogAnd || op == Op::LogOr) {
            if (!a.isScalar() || !b.isScalar()) {
                fail(line, "'&&' and '||' need scalar operands");
            }
            return scalarType(Base::Int);
        }
        auto ct = commonType(a, b);
        if (!ct) {
            fail(line,
                 "operands of types " + typeName(a) + " and " + typeName(b) + " do not match");
        }
        bool intOnly = op == Op::Mod || (op >= Op::Shl && op <= Op::BitXor);
        if (intOnly && !ct->isInteger()) {
            fail(line, std::string(op == Op::Mod ? "'%' needs integer operands (use fmod)"
                                                 : "bitwise operators need integer operands"));
        }
        if (op >= Op::Lt && op <= Op::Ne) {
            return CType{Base::Int, ct->width, lift::kNoType};
        }
        return *ct;
    }

    CType assignType(const Expr& e) {
        CType lt = lvalue(e.a);
        if (e.op == Op::Assign) {
            initTo(e.b, lt, "the assigned value");
            return lt;
        }
        CType r = binaryType(e.op, lt, expr(e.b), e.line);
        if (!assignable(r, lt)) {
            fail(e.line, "cannot assign " + typeName(r) + " to " + typeName(lt));
        }
        return lt;
    }

    CType ternaryType(const Expr& e) {
        condition(e.a);
        CType b = expr(e.b), c = expr(e.c);
        if (b.base == Base::Tuple || c.base == Base::Tuple) {
            if (b != c) {
                fail(e.line, "branches of '?:' have different types");
            }
            return b;
        }
        auto ct = commonType(b, c);
        if (!ct) {
            fail(e.line, "branches of '?:' have types " + typeName(b) + " and " + typeName(c));
        }
        return *ct;
    }

    CType callType(Expr& e) {
        e.aux = findBuiltin(e.name);
        if (e.aux == kNone) {
            fail(e.line, "unknown function '" + e.name + "'");
        }
        std::vector<CType> args;
        for (uint32_t i = 0; i < e.listCount; ++i) {
            args.push_back(expr(ast_.list(e.listBegin)[i]));
        }
        return builtinResult(e.aux, args, Where{rep_, e.line});
    }

    CType memberType(Expr& e, CType base) {
        if (base.base == Base::Tuple) {
            const auto& fields = ast_.tuples.at(base.tuple);
            size_t k = fields.size();
            if (e.name.size() > 1 && e.name[0] == '_' &&
                std::all_of(e.name.begin() + 1, e.name.end(), ::isdigit) && e.name.size() < 6) {
                k = std::stoul(e.name.substr(1));
            }
            if (k >= fields.size()) {
                fail(e.line, "the Tuple has no field '" + e.name + "'");
            }
            Access acc{.field = true, .count = 1, .lanes = {static_cast<uint8_t>(k)}};
            return addAccess(e, acc, fields[k]);
        }
        auto acc = base.isVector() ? parseSwizzle(e.name, base.width) : std::nullopt;
        if (!acc) {
            fail(e.line, "'." + e.name + "' is not a component of " + typeName(base));
        }
        return addAccess(e, *acc, CType{base.base, acc->count, lift::kNoType});
    }

    CType addAccess(Expr& e, const Access& acc, CType t) {
        e.aux = static_cast<uint32_t>(ast_.accesses.size());
        ast_.accesses.push_back(acc);
        return t;
    }

    CType castType(Expr& e) {
        e.type = resolve(e.type, e.line);
        CType from = expr(e.a);
        if (e.inum == kLaneConversion) {
            if (!from.isNumeric() || !e.type.isNumeric() || from.width != e.type.width) {
                fail(e.line, "cannot convert " + typeName(from) + " to " + typeName(e.type) +
                                 " (convert_T needs as many lanes)");
            }
            return e.type;
        }
        if (!assignable(from, e.type)) {
            fail(e.line, "cannot cast " + typeName(from) + " to " + typeName(e.type));
        }
        return e.type;
    }

    // The type of an assignable expression: a variable, a field, or a swizzle without repeated
    // lanes applied to one of those.
    CType lvalue(uint32_t id) {
        Expr& e = ast_.exprs[id];
        if (e.kind == ExprKind::Var) {
            CType t = expr(id);
            if (constSlots_[e.aux]) {
                fail(e.line, "cannot assign to const '" + e.name + "'");
            }
            return t;
        }
        if (e.kind == ExprKind::Index) {
            CType t = expr(id);
            const Expr& var = arrayVar(id);
            if (var.kind == ExprKind::Var && constSlots_[var.aux]) {
                fail(e.line, "cannot assign to an element of const '" + var.name + "'");
            }
            return t;
        }
        if (e.kind != ExprKind::Member) {
            fail(e.line, "the left side of an assignment must be a variable, array element, "
                         "field or swizzle");
        }
        CType base = lvalue(e.a);
        const Expr& inner = ast_.exprs[e.a];
        if (inner.kind == ExprKind::Member && !ast_.accesses[inner.aux].field) {
            fail(e.line, "assigning to a swizzle of a swizzle is not supported");
        }
        CType t = expr(id);
        const Access& acc = ast_.accesses[e.aux];
        for (int i = 0; i < acc.count; ++i) {
            for (int j = 0; j < i; ++j) {
                if (acc.lanes[i] == acc.lanes[j] && !acc.field) {
                    fail(e.line, "a swizzle with repeated lanes cannot be assigned");
                }
            }
        }
        (void)base;
        return t;
    }

    Ast& ast_;
    CType result_;
    const Reporter& rep_;
    std::vector<std::vector<std::pair<std::string, uint32_t>>> scopes_;
    std::vector<bool> constSlots_;
    int loops_ = 0;
    int switches_ = 0;
};

} // namespace

void check(Ast& ast, const std::vector<Param>& params, CType result, const Reporter& rep) {
    Checker(ast, result, rep).run(params);
}

} // namespace egopt::interp::c
