#include "c_scalar.hpp"

#include "c_builtins.hpp"
#include "c_exec.hpp"
#include "small_vec.hpp"

namespace egopt::interp::c {

namespace {

bool isScalarNumber(CType t) {
    return t.isNumeric() && t.width == 1;
}

// The static type of every expression, following the general evaluator's rules for the type of
// the value it computes; nullopt where it is not a scalar or evaluation would fail on types.
class Typer {
public:
    explicit Typer(const Ast& ast)
        : ast_(ast), types_(ast.exprs.size()), operands_(ast.exprs.size()) {}

    // The type operands are converted to, by expression: the common type of a binary operator
    // (or a compound assignment, ++, --), the argument type of a builtin.
    std::vector<CType>& operands() { return operands_; }

    std::optional<std::vector<CType>> all() {
        std::vector<CType> out;
        out.reserve(ast_.exprs.size());
        for (uint32_t id = 0; id < ast_.exprs.size(); ++id) {
            auto t = typeOf(id);
            if (!t) {
                return std::nullopt;
            }
            out.push_back(*t);
        }
        return out;
    }

private:
    std::optional<CType> typeOf(uint32_t id) {
        if (types_[id]) {
            return types_[id];
        }
        auto t = compute(id, ast_.exprs[id]);
        if (t && !isScalarNumber(*t)) {
            t = std::nullopt;
        }
        types_[id] = t;
        return t;
    }

    bool isVar(uint32_t id) const {
        const Expr& v = ast_.exprs[id];
        return v.kind == ExprKind::Var && v.type == ast_.slotTypes.at(v.aux);
    }

    std::optional<CType> compute(uint32_t id, const Expr& e) {
        switch (e.kind) {
        case ExprKind::IntLit:
        case ExprKind::FloatLit:
            return scalarType(e.type.base);
        case ExprKind::Var:
            return ast_.slotTypes.at(e.aux);
        case ExprKind::Unary:
            return unaryType(id, e);
        case ExprKind::Binary: {
            auto a = typeOf(e.a), b = typeOf(e.b);
            if (!a || !b) {
                return std::nullopt;
            }
            if (e.op == Op::LogAnd || e.op == Op::LogOr) {
                return scalarType(Base::Int);
            }
            auto ct = commonType(*a, *b);
            if (!ct) {
                return std::nullopt;
            }
            operands_[id] = *ct;
            return binaryResult(e.op, *ct);
        }
        case ExprKind::Assign: {
            auto rhs = typeOf(e.b);
            if (!rhs || !isVar(e.a)) {
                return std::nullopt;
            }
            CType lhs = ast_.exprs[e.a].type;
            if (e.op != Op::Assign) {
                auto ct = commonType(lhs, *rhs);
                if (!ct) {
                    return std::nullopt;
                }
                operands_[id] = *ct;
            }
            return lhs;
        }
        case ExprKind::Ternary:
            return typeOf(e.a) && typeOf(e.b) && typeOf(e.c) ? std::optional(e.type) : std::nullopt;
        case ExprKind::Call:
            return callType(id, e);
        case ExprKind::Cast: // as_T reads bits: the general evaluator's reinterpret
            return typeOf(e.a) && e.inum != kReinterpret ? std::optional(e.type) : std::nullopt;
        case ExprKind::InitList: {
            const uint32_t* elems = ast_.list(e.listBegin);
            bool broadcast = e.type.base != Base::Tuple && e.listCount == 1 &&
                             ast_.exprs[elems[0]].type.width == 1;
            return broadcast && typeOf(elems[0]) ? std::optional(e.type) : std::nullopt;
        }
        case ExprKind::Comma:
            return typeOf(e.a) ? typeOf(e.b) : std::nullopt;
        case ExprKind::Member:
        case ExprKind::Index:
            break;
        }
        return std::nullopt;
    }

    std::optional<CType> unaryType(uint32_t id, const Expr& e) {
        auto a = typeOf(e.a);
        if (!a) {
            return std::nullopt;
        }
        if (e.op == Op::Not) {
            return scalarType(Base::Int);
        }
        if (e.op >= Op::PreInc && e.op <= Op::PostDec) {
            auto ct = commonType(*a, scalarType(Base::Int));
            if (!isVar(e.a) || !ct) {
                return std::nullopt;
            }
            operands_[id] = *ct;
            return a;
        }
        return promote(*a);
    }

    std::optional<CType> callType(uint32_t id, const Expr& e) {
        if (!builtinIsLanewise(e.aux) || e.listCount > 3) {
            return std::nullopt;
        }
        detail::SmallVec<CType, 3> args;
        for (uint32_t i = 0; i < e.listCount; ++i) {
            auto t = typeOf(ast_.list(e.listBegin)[i]);
            if (!t) {
                return std::nullopt;
            }
            args.push_back(*t);
        }
        Reporter quiet("", SourceLoc{}, true);
        try {
            operands_[id] = builtinOperandType(e.aux, args.span(), Where{quiet, e.line});
        } catch (const Error&) {
            return std::nullopt; // the general evaluator reports it on every call
        }
        return e.type;
    }

    const Ast& ast_;
    std::vector<std::optional<CType>> types_;
    std::vector<CType> operands_;
};

// Runs a body whose expressions all have the scalar types of a plan.
class ScalarEvaluator : public StatementRunner<ScalarEvaluator> {
public:
    ScalarEvaluator(const Ast& ast, const ScalarPlan& plan, const Reporter& rep, uint64_t limit)
        : StatementRunner(ast, rep, limit), types_(plan.types()), operands_(plan.operands()),
          result_(plan.result()), slots_(ast.slotTypes.size()), assigned_(ast.slotTypes.size()) {}

    Lane run(std::span<const Lane> args) {
        bind(args);
        runBody();
        return returned_;
    }

    // A body that is one return statement: its value, as run() gives it, without walking the
    // two statements (which cannot reach a step limit of 2 or more).
    Lane returnOf(std::span<const Lane> args, uint32_t value) {
        bind(args);
        return valueAs(value, result_);
    }

    // The statement runner's hooks.
    void discard(uint32_t e) { eval(e); }
    bool truth(uint32_t e) { return truthy(eval(e), types_[e]); }
    int64_t integer(uint32_t e) { return eval(e).i; }
    void setReturn(uint32_t e) { returned_ = valueAs(e, result_); }
    void declare(const Stmt& s) {
        if (s.a == kNone) {
            Lane zero;
            if (s.type.isFloating()) {
                zero.f = 0;
            } else {
                zero.i = 0;
            }
            slots_[s.slot] = zero;
            assigned_[s.slot] = 0; // re-declared in a later loop iteration
            return;
        }
        slots_[s.slot] = valueAs(s.a, s.type);
        assigned_[s.slot] = 1;
    }

private:
    Where at(uint32_t line) const { return Where{rep_, line}; }

    void bind(std::span<const Lane> args) {
        for (size_t i = 0; i < args.size(); ++i) {
            slots_[i] = args[i];
            assigned_[i] = 1;
        }
    }

    Lane as(Lane v, CType from, CType to, uint32_t line) const {
        return from == to ? v : convertScalar(v, from.base, to.base, at(line));
    }
    // The value of expression id converted to t.
    Lane valueAs(uint32_t id, CType t) { return as(eval(id), types_[id], t, ast_.exprs[id].line); }

    Lane eval(uint32_t id) {
        const Expr& e = ast_.exprs[id];
        switch (e.kind) {
        case ExprKind::IntLit:
            return scalarInt(e.inum, e.type.base).lanes[0];
        case ExprKind::FloatLit:
            return scalarFloat(e.fnum, e.type.base).lanes[0];
        case ExprKind::Var:
            return read(e.aux, e.line);
        case ExprKind::Unary:
            return evalUnary(id, e);
        case ExprKind::Binary:
            return evalBinary(id, e);
        case ExprKind::Assign:
            return evalAssign(id, e);
        case ExprKind::Ternary: {
            uint32_t chosen = truth(e.a) ? e.b : e.c;
            return as(eval(chosen), types_[chosen], e.type, e.line);
        }
        case ExprKind::Call:
            return evalCall(id, e);
        case ExprKind::Cast:
            return as(eval(e.a), types_[e.a], e.type, e.line);
        case ExprKind::InitList: {
            uint32_t only = ast_.list(e.listBegin)[0];
            return as(eval(only), types_[only], e.type, e.line);
        }
        case ExprKind::Comma:
            eval(e.a);
            return eval(e.b);
        case ExprKind::Member:
        case ExprKind::Index:
            break;
        }
        rep_.fail(e.line, "unsupported expression");
    }

    // a op b in their common type ct.
    Lane binaryOf(Op op, Lane a, CType ta, Lane b, CType tb, CType ct, uint32_t line) const {
        return binaryLane(op, as(a, ta, ct, line), as(b, tb, ct, line), ct, at(line));
    }

    Lane evalUnary(uint32_t id, const Expr& e) {
        CType t = types_[e.a];
        if (e.op < Op::PreInc || e.op > Op::PostDec) {
            Lane a = eval(e.a);
            if (e.op == Op::Not) {
                return scalarInt(truthy(a, t) ? 0 : 1).lanes[0];
            }
            CType promoted = promote(t);
            return unaryLane(e.op, as(a, t, promoted, e.line), promoted, at(e.line));
        }
        uint32_t slot = ast_.exprs[e.a].aux;
        Lane old = read(slot, e.line);
        Op step = e.op == Op::PreInc || e.op == Op::PostInc ? Op::Add : Op::Sub;
        CType ct = operands_[id];
        Lane now =
            as(binaryOf(step, old, t, scalarInt(1).lanes[0], scalarType(Base::Int), ct, e.line),
               binaryResult(step, ct), t, e.line);
        write(slot, now);
        return e.op == Op::PreInc || e.op == Op::PreDec ? now : old;
    }

    Lane evalBinary(uint32_t id, const Expr& e) {
        if (e.op == Op::LogAnd) {
            return scalarInt(truth(e.a) && truth(e.b)).lanes[0];
        }
        if (e.op == Op::LogOr) {
            return scalarInt(truth(e.a) || truth(e.b)).lanes[0];
        }
        Lane a = eval(e.a);
        Lane b = eval(e.b);
        return binaryOf(e.op, a, types_[e.a], b, types_[e.b], operands_[id], e.line);
    }

    Lane evalAssign(uint32_t id, const Expr& e) {
        const Expr& lhs = ast_.exprs[e.a];
        Lane v = eval(e.b);
        CType vt = types_[e.b];
        if (e.op != Op::Assign) {
            CType ct = operands_[id];
            v = binaryOf(e.op, read(lhs.aux, e.line), lhs.type, v, vt, ct, e.line);
            vt = binaryResult(e.op, ct);
        }
        v = as(v, vt, lhs.type, e.line);
        write(lhs.aux, v);
        return v;
    }

    Lane evalCall(uint32_t id, const Expr& e) {
        CType argTypes[3];
        Lane args[3];
        for (uint32_t i = 0; i < e.listCount; ++i) {
            uint32_t a = ast_.list(e.listBegin)[i];
            args[i] = eval(a);
            argTypes[i] = types_[a];
        }
        CType t = operands_[id];
        for (uint32_t i = 0; i < e.listCount; ++i) {
            args[i] = as(args[i], argTypes[i], t, e.line);
        }
        Lane r = builtinLane(e.aux, std::span<const Lane>(args, e.listCount), t);
        return as(r, t, e.type, e.line);
    }

    Lane read(uint32_t slot, uint32_t line) const {
        if (!assigned_[slot]) {
            rep_.fail(line, "'" + ast_.slotNames[slot] + "' is used before it is assigned");
        }
        return slots_[slot];
    }
    void write(uint32_t slot, Lane v) {
        slots_[slot] = v;
        assigned_[slot] = 1;
    }

    const std::vector<CType>& types_;
    const std::vector<CType>& operands_;
    CType result_;
    detail::SmallVec<Lane, 16> slots_;
    detail::SmallVec<uint8_t, 16> assigned_;
    Lane returned_{};
};

} // namespace

std::optional<ScalarPlan> ScalarPlan::of(const Ast& ast, std::span<const CType> params,
                                         CType result) {
    if (!isScalarNumber(result)) {
        return std::nullopt;
    }
    for (size_t i = 0; i < ast.slotTypes.size(); ++i) {
        if (!isScalarNumber(ast.slotTypes[i]) ||
            (i < params.size() && params[i] != ast.slotTypes[i])) {
            return std::nullopt;
        }
    }
    for (const Stmt& s : ast.stmts) {
        if (s.kind == StmtKind::Decl && s.type != ast.slotTypes.at(s.slot)) {
            return std::nullopt;
        }
    }
    Typer typer(ast);
    auto types = typer.all();
    if (!types) {
        return std::nullopt;
    }
    ScalarPlan plan;
    const Stmt& root = ast.stmts.at(ast.root);
    if (root.kind == StmtKind::Block && root.listCount == 1) {
        const Stmt& only = ast.stmts.at(ast.list(root.listBegin)[0]);
        if (only.kind == StmtKind::Return) {
            plan.returnOnly_ = only.a;
        }
    }
    plan.types_ = std::move(*types);
    plan.operands_ = std::move(typer.operands());
    plan.result_ = result;
    return plan;
}

Lane ScalarPlan::run(const Ast& ast, std::span<const Lane> args, const Reporter& rep,
                     uint64_t stepLimit) const {
    ScalarEvaluator evaluator(ast, *this, rep, stepLimit);
    if (returnOnly_ != kNone && stepLimit >= 2) {
        return evaluator.returnOf(args, returnOnly_);
    }
    return evaluator.run(args);
}

} // namespace egopt::interp::c
