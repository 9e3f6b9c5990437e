// Statements of the checker (c_checker.hpp): scopes, declarations, control flow, initialisers.
#include "c_checker.hpp"
#include "c_value.hpp"

#include <algorithm>

namespace egopt::interp::c {

void Checker::run(const std::vector<Param>& params) {
    scopes_.emplace_back();
    for (const Param& p : params) {
        declare(p.name, p.type, false, 0);
    }
    stmt(ast_.root);
}

uint32_t Checker::declare(const std::string& name, CType t, bool isConst, uint32_t line) {
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

uint32_t Checker::lookup(const std::string& name, uint32_t line) const {
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
CType Checker::resolve(CType t, uint32_t line) const {
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

void Checker::stmt(uint32_t id) {
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

void Checker::list(const Stmt& s, bool scoped) {
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

void Checker::decl(Stmt& s) {
    s.type = resolve(s.type, s.line);
    if (s.a != kNone) {
        initTo(s.a, s.type, "'" + s.name + "'");
    } else if (s.isConst) {
        fail(s.line, "const '" + s.name + "' needs an initialiser");
    }
    s.slot = declare(s.name, s.type, s.isConst, s.line);
}

// The labels are the statements of the switch's own block; the block is one scope.
void Checker::switchStmt(const Stmt& s) {
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

void Checker::ifStmt(const Stmt& s) {
    condition(s.a);
    scoped(s.b);
    if (s.c != kNone) {
        scoped(s.c);
    }
}

void Checker::forStmt(const Stmt& s) {
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

void Checker::loop(uint32_t cond, uint32_t body) {
    condition(cond);
    ++loops_;
    scoped(body);
    --loops_;
}

// A sub-statement has its own scope even without braces (if (c) float x = 1;).
void Checker::scoped(uint32_t id) {
    scopes_.emplace_back();
    stmt(id);
    scopes_.pop_back();
}

void Checker::condition(uint32_t id) {
    CType t = expr(id);
    if (!t.isScalar()) {
        fail(ast_.exprs[id].line, "a condition must be a scalar, not " + typeName(t));
    }
}

// Checks that expression id (possibly a brace list) can initialise a value of type t.
void Checker::initTo(uint32_t id, CType t, const std::string& what) {
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

void Checker::initList(uint32_t id) {
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

void check(Ast& ast, const std::vector<Param>& params, CType result, const Reporter& rep) {
    Checker(ast, result, rep).run(params);
}

} // namespace egopt::interp::c
