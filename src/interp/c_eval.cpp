#include "c_eval.hpp"

#include "c_builtins.hpp"
#include "c_exec.hpp"
#include "small_vec.hpp"

namespace egopt::interp::c {

namespace {

// An assignable location: a whole value, or some of its lanes.
struct Ref {
    CVal* target;
    const Access* swizzle; // nullptr for the whole value
    uint32_t slot;
};

class Evaluator : public StatementRunner<Evaluator> {
public:
    Evaluator(const Ast& ast, CType result, const Reporter& rep, uint64_t limit)
        : StatementRunner(ast, rep, limit), result_(result), slots_(ast.slotTypes.size()),
          assigned_(ast.slotTypes.size()) {}

    CVal run(std::span<CVal> args) {
        for (size_t i = 0; i < args.size(); ++i) {
            slots_[i] = std::move(args[i]);
            assigned_[i] = 1;
        }
        runBody();
        return std::move(returned_);
    }

    // The statement runner's hooks.
    void discard(uint32_t e) { eval(e); }
    void setReturn(uint32_t e) { returned_ = initValue(e, result_); }
    void declare(const Stmt& s) {
        if (s.a == kNone) {
            slots_[s.slot] = zeroOf(s.type, ast_);
            assigned_[s.slot] = 0; // re-declared in a later loop iteration
            return;
        }
        slots_[s.slot] = initValue(s.a, s.type);
        assigned_[s.slot] = 1;
    }
    bool truth(uint32_t id) { return eval(id).truthy(); }
    int64_t integer(uint32_t id) { return eval(id).lanes[0].i; }

private:
    Where at(uint32_t line) const { return Where{rep_, line}; }

    // The value of an initialiser (a brace list or an expression) converted to t.
    CVal initValue(uint32_t id, CType t) {
        const Expr& e = ast_.exprs[id];
        return convert(eval(id), t, at(e.line));
    }

    CVal eval(uint32_t id) {
        const Expr& e = ast_.exprs[id];
        switch (e.kind) {
        case ExprKind::IntLit:
            return scalarInt(e.inum, e.type.base);
        case ExprKind::FloatLit:
            return scalarFloat(e.fnum, e.type.base);
        case ExprKind::Var:
            return read(Ref{&slots_[e.aux], nullptr, e.aux}, e.line);
        case ExprKind::Unary:
            return evalUnary(e);
        case ExprKind::Binary:
            return evalBinary(e);
        case ExprKind::Assign:
            return evalAssign(e);
        case ExprKind::Ternary:
            return convert(eval(truth(e.a) ? e.b : e.c), e.type, at(e.line));
        case ExprKind::Call:
            return evalCall(e);
        case ExprKind::Member:
            return evalMember(e);
        case ExprKind::Cast:
            if (e.inum == kReinterpret) {
                return reinterpret(eval(e.a), e.type);
            }
            return convert(eval(e.a), e.type, at(e.line));
        case ExprKind::InitList:
            return evalInitList(e);
        case ExprKind::Comma:
            eval(e.a);
            return eval(e.b);
        case ExprKind::Index:
            return read(ref(id), e.line);
        }
        rep_.fail(e.line, "unsupported expression");
    }

    CVal evalUnary(const Expr& e) {
        if (e.op < Op::PreInc || e.op > Op::PostDec) {
            return unary(e.op, eval(e.a), at(e.line));
        }
        Ref r = ref(e.a);
        CVal old = read(r, e.line);
        Op step = e.op == Op::PreInc || e.op == Op::PostInc ? Op::Add : Op::Sub;
        CVal now = convert(binary(step, old, scalarInt(1), at(e.line)), old.type, at(e.line));
        write(r, now, e.line);
        return e.op == Op::PreInc || e.op == Op::PreDec ? now : old;
    }

    CVal evalBinary(const Expr& e) {
        if (e.op == Op::LogAnd) {
            return scalarInt(truth(e.a) && truth(e.b));
        }
        if (e.op == Op::LogOr) {
            return scalarInt(truth(e.a) || truth(e.b));
        }
        CVal a = eval(e.a);
        return binary(e.op, a, eval(e.b), at(e.line));
    }

    CVal evalAssign(const Expr& e) {
        const Expr& lhs = ast_.exprs[e.a];
        CVal v = eval(e.b);
        Ref r = ref(e.a);
        if (e.op != Op::Assign) {
            v = binary(e.op, read(r, e.line), v, at(e.line));
        }
        v = convert(v, lhs.type, at(e.line));
        write(r, v, e.line);
        return v;
    }

    CVal evalCall(const Expr& e) {
        detail::SmallVec<CVal, 3> args;
        args.reserve(e.listCount);
        for (uint32_t i = 0; i < e.listCount; ++i) {
            args.push_back(eval(ast_.list(e.listBegin)[i]));
        }
        return callBuiltin(e.aux, args.span(), e.type, at(e.line));
    }

    CVal evalMember(const Expr& e) {
        CVal base = eval(e.a);
        const Access& acc = ast_.accesses[e.aux];
        if (acc.field) {
            return base.fields[acc.lanes[0]];
        }
        return pick(base, acc);
    }

    static CVal pick(const CVal& v, const Access& acc) {
        CVal r;
        r.type = CType{.base = v.type.base, .width = acc.count, .tuple = lift::kNoType};
        for (int k = 0; k < acc.count; ++k) {
            r.lanes[k] = v.lanes[acc.lanes[k]];
        }
        return r;
    }

    CVal evalInitList(const Expr& e) {
        const uint32_t* elems = ast_.list(e.listBegin);
        if (e.type.isArray()) {
            CVal r = zeroOf(e.type, ast_);
            for (uint32_t i = 0; i < e.listCount; ++i) {
                r.fields[i] = initValue(elems[i], e.type.element());
            }
            return r;
        }
        if (e.type.base == Base::Tuple) {
            CVal r;
            r.type = e.type;
            const auto& fields = ast_.tuples.at(e.type.tuple);
            for (uint32_t i = 0; i < e.listCount; ++i) {
                r.fields.push_back(initValue(elems[i], fields[i]));
            }
            return r;
        }
        if (e.listCount == 1 && ast_.exprs[elems[0]].type.width == 1) {
            return convert(eval(elems[0]), e.type, at(e.line)); // broadcast
        }
        CVal r;
        r.type = e.type;
        int lane = 0;
        for (uint32_t i = 0; i < e.listCount; ++i) {
            CVal part = eval(elems[i]);
            part = convert(
                part, CType{.base = e.type.base, .width = part.type.width, .tuple = lift::kNoType},
                at(e.line));
            for (int k = 0; k < part.type.width; ++k) {
                r.lanes[lane++] = part.lanes[k];
            }
        }
        return r;
    }

    Ref ref(uint32_t id) {
        const Expr& e = ast_.exprs[id];
        if (e.kind == ExprKind::Var) {
            return Ref{&slots_[e.aux], nullptr, e.aux};
        }
        Ref inner = ref(e.a);
        if (e.kind == ExprKind::Index) {
            int64_t i = integer(e.b);
            const CType& t = ast_.exprs[e.a].type;
            if (i < 0 || i >= t.count) {
                rep_.fail(e.line, "index " + std::to_string(i) + " is out of the bounds of '" +
                                      ast_.slotNames[inner.slot] + "' (" +
                                      typeName(ast_.slotTypes[inner.slot]) + ")");
            }
            return Ref{&inner.target->fields[static_cast<size_t>(i)], nullptr, inner.slot};
        }
        const Access& acc = ast_.accesses[e.aux];
        if (!acc.field) {
            return Ref{inner.target, &acc, inner.slot};
        }
        // Writing one field of a declared Tuple is fine; reads check assignment in read().
        return Ref{&inner.target->fields[acc.lanes[0]], nullptr, inner.slot};
    }

    CVal read(const Ref& r, uint32_t line) const {
        if (!assigned_[r.slot]) {
            rep_.fail(line, "'" + ast_.slotNames[r.slot] + "' is used before it is assigned");
        }
        return r.swizzle ? pick(*r.target, *r.swizzle) : *r.target;
    }

    // v already has the type of the location.
    void write(const Ref& r, const CVal& v, uint32_t line) {
        (void)line;
        if (!r.swizzle) {
            *r.target = v;
        } else {
            for (int k = 0; k < r.swizzle->count; ++k) {
                r.target->lanes[r.swizzle->lanes[k]] = v.lanes[v.type.width == 1 ? 0 : k];
            }
        }
        assigned_[r.slot] = 1;
    }

    CType result_;
    // Most bodies have a few variables: their slots live on the stack.
    detail::SmallVec<CVal, 6> slots_;
    detail::SmallVec<uint8_t, 32> assigned_;
    CVal returned_;
};

} // namespace

CVal evaluate(const Ast& ast, std::span<CVal> args, CType result, const Reporter& rep,
              uint64_t stepLimit) {
    return Evaluator(ast, result, rep, stepLimit).run(args);
}

} // namespace egopt::interp::c
