// Expressions of the checker (c_checker.hpp): types, conversions, calls, member accesses,
// array indices and assignable expressions.
#include "c_builtins.hpp"
#include "c_checker.hpp"
#include "c_value.hpp"

#include <algorithm>
#include <cctype>

namespace egopt::interp::c {

CType Checker::expr(uint32_t id) {
    CType t = exprType(id);
    ast_.exprs[id].type = t;
    return t;
}

CType Checker::exprType(uint32_t id) {
    Expr& e = ast_.exprs[id];
    switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
        return e.type;
    case ExprKind::Var:
        e.aux = lookup(e.name, e.line);
        if (ast_.slotTypes[e.aux].isArray()) {
            fail(e.line, "the array '" + e.name + "' can only be indexed, as in " + e.name + "[i]");
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
CType Checker::elementType(uint32_t id) {
    CType t = indexType(id);
    if (t.isArray()) {
        fail(ast_.exprs[id].line, "a row of '" + arrayName(id) + "' can only be indexed");
    }
    return t;
}

// a[i] (or m[i][j]): a is a local array, i an integer; the type may be a row.
CType Checker::indexType(uint32_t id) {
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
const Expr& Checker::arrayVar(uint32_t id) const {
    const Expr* e = &ast_.exprs[id];
    while (e->kind == ExprKind::Index) {
        e = &ast_.exprs[e->a];
    }
    return *e;
}
std::string Checker::arrayName(uint32_t id) const {
    return arrayVar(id).name;
}

CType Checker::unaryType(const Expr& e) {
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

CType Checker::binaryType(Op op, CType a, CType b, uint32_t line) const {
    if (op == Op::LogAnd || op == Op::LogOr) {
        if (!a.isScalar() || !b.isScalar()) {
            fail(line, "'&&' and '||' need scalar operands");
        }
        return scalarType(Base::Int);
    }
    auto ct = commonType(a, b);
    if (!ct) {
        fail(line, "operands of types " + typeName(a) + " and " + typeName(b) + " do not match");
    }
    bool intOnly = op == Op::Mod || (op >= Op::Shl && op <= Op::BitXor);
    if (intOnly && !ct->isInteger()) {
        fail(line, std::string(op == Op::Mod ? "'%' needs integer operands (use fmod)"
                                             : "bitwise operators need integer operands"));
    }
    if (op >= Op::Lt && op <= Op::Ne) {
        return CType{.base = Base::Int, .width = ct->width, .tuple = lift::kNoType};
    }
    return *ct;
}

CType Checker::assignType(const Expr& e) {
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

CType Checker::ternaryType(const Expr& e) {
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

CType Checker::callType(Expr& e) {
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

CType Checker::memberType(Expr& e, CType base) {
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
    return addAccess(e, *acc,
                     CType{.base = base.base, .width = acc->count, .tuple = lift::kNoType});
}

CType Checker::addAccess(Expr& e, const Access& acc, CType t) {
    e.aux = static_cast<uint32_t>(ast_.accesses.size());
    ast_.accesses.push_back(acc);
    return t;
}

CType Checker::castType(Expr& e) {
    e.type = resolve(e.type, e.line);
    CType from = expr(e.a);
    if (e.inum == kReinterpret) {
        if (!from.isNumeric() || !e.type.isNumeric() || from.width != e.type.width ||
            laneBytes(from.base) != laneBytes(e.type.base) || from.base == Base::Bool ||
            e.type.base == Base::Bool) {
            fail(e.line, "cannot reinterpret " + typeName(from) + " as " + typeName(e.type) +
                             " (as_T needs as many lanes of as many bytes)");
        }
        return e.type;
    }
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
CType Checker::lvalue(uint32_t id) {
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

} // namespace egopt::interp::c
