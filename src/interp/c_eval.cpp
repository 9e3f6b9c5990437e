#include "c_eval.hpp"

#include "c_builtins.hpp"

namespace egopt::interp::c {

namespace {

enum class Flow : uint8_t { Normal, Break, Continue, Return };

// An assignable location: a whole value, or some of its lanes.
struct Ref {
    CVal* target;
    const Access* swizzle; // nullptr for the whole value
    uint32_t slot;
};

class Evaluator {
public:
    Evaluator(const Ast& ast, CType result, const Reporter& rep, uint64_t limit)
        : ast_(ast), result_(result), rep_(rep), limit_(limit), slots_(ast.slotTypes.size()),
          assigned_(ast.slotTypes.size(), 0) {}

    CVal run(std::vector<CVal> args) {
        for (size_t i = 0; i < args.size(); ++i) {
            slots_[i] = std::move(args[i]);
            assigned_[i] = 1;
        }
        if (exec(ast_.root) != Flow::Return) {
            rep_.fail(lastLine(), "the end of the body is reached without a 'return'");
        }
        return std::move(returned_);
    }

private:
    Where at(uint32_t line) const { return Where{rep_, line}; }

    uint32_t lastLine() const {
        uint32_t line = 0;
        for (const Stmt& s : ast_.stmts) {
            line = std::max(line, s.line);
        }
        return line;
    }

    Flow exec(uint32_t id) {
        const Stmt& s = ast_.stmts[id];
        if (++steps_ > limit_) {
            rep_.fail(s.line,
                      "stopped after " + std::to_string(limit_) + " steps (an endless loop?)");
        }
        switch (s.kind) {
        case StmtKind::Block:
        case StmtKind::Decls:
            return execList(s);
        case StmtKind::Decl:
            declare(s);
            return Flow::Normal;
        case StmtKind::Expr:
            eval(s.a);
            return Flow::Normal;
        case StmtKind::If:
            if (truth(s.a)) {
                return exec(s.b);
            }
            return s.c == kNone ? Flow::Normal : exec(s.c);
        case StmtKind::For:
            return execFor(s);
        case StmtKind::While:
            return execLoop(s.a, s.b, false);
        case StmtKind::DoWhile:
            return execLoop(s.b, s.a, true);
        case StmtKind::Break:
            return Flow::Break;
        case StmtKind::Continue:
            return Flow::Continue;
        case StmtKind::Return:
            returned_ = initValue(s.a, result_);
            return Flow::Return;
        case StmtKind::Empty:
            return Flow::Normal;
        }
        return Flow::Normal;
    }

    Flow execList(const Stmt& s) {
        for (uint32_t i = 0; i < s.listCount; ++i) {
            Flow f = exec(ast_.list(s.listBegin)[i]);
            if (f != Flow::Normal) {
                return f;
            }
        }
        return Flow::Normal;
    }

    void declare(const Stmt& s) {
        if (s.a == kNone) {
            slots_[s.slot] = zeroOf(s.type, ast_);
            assigned_[s.slot] = 0; // re-declared in a later loop iteration
            return;
        }
        slots_[s.slot] = initValue(s.a, s.type);
        assigned_[s.slot] = 1;
    }

    Flow execFor(const Stmt& s) {
        if (s.a != kNone) {
            exec(s.a);
        }
        while (s.b == kNone || truth(s.b)) {
            Flow f = exec(s.d);
            if (f == Flow::Break || f == Flow::Return) {
                return f == Flow::Return ? f : Flow::Normal;
            }
            if (s.c != kNone) {
                eval(s.c);
            }
        }
        return Flow::Normal;
    }

    Flow execLoop(uint32_t cond, uint32_t body, bool bodyFirst) {
        while (bodyFirst || truth(cond)) {
            bodyFirst = false;
            Flow f = exec(body);
            if (f == Flow::Break || f == Flow::Return) {
                return f == Flow::Return ? f : Flow::Normal;
            }
            tick(body);
        }
        return Flow::Normal;
    }

    // An empty loop body still counts towards the step limit.
    void tick(uint32_t stmt) {
        if (++steps_ > limit_) {
            rep_.fail(ast_.stmts[stmt].line,
                      "stopped after " + std::to_string(limit_) + " steps (an endless loop?)");
        }
    }

    bool truth(uint32_t id) { return eval(id).truthy(); }

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
            return convert(eval(e.a), e.type, at(e.line));
        case ExprKind::InitList:
            return evalInitList(e);
        case ExprKind::Comma:
            eval(e.a);
            return eval(e.b);
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
        std::vector<CVal> args;
        for (uint32_t i = 0; i < e.listCount; ++i) {
            args.push_back(eval(ast_.list(e.listBegin)[i]));
        }
        return callBuiltin(e.aux, args, e.type, at(e.line));
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
        r.type = CType{v.type.base, acc.count, lift::kNoType};
        for (int k = 0; k < acc.count; ++k) {
            r.lanes[k] = v.lanes[acc.lanes[k]];
        }
        return r;
    }

    CVal evalInitList(const Expr& e) {
        const uint32_t* elems = ast_.list(e.listBegin);
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
            part = convert(part, CType{e.type.base, part.type.width, lift::kNoType}, at(e.line));
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

    const Ast& ast_;
    CType result_;
    const Reporter& rep_;
    uint64_t limit_;
    uint64_t steps_ = 0;
    std::vector<CVal> slots_;
    std::vector<uint8_t> assigned_;
    CVal returned_;
};

} // namespace

CVal evaluate(const Ast& ast, std::vector<CVal> args, CType result, const Reporter& rep,
              uint64_t stepLimit) {
    return Evaluator(ast, result, rep, stepLimit).run(std::move(args));
}

} // namespace egopt::interp::c
