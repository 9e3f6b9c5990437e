// Internal to the C interpreter: statements and loops of a checked body, shared by the general
// evaluator (c_eval.cpp) and the one for scalar functions (c_scalar.cpp), so that both count
// steps and take branches alike. Derived evaluates the expressions: discard(e) for an expression
// statement or a for-loop step, truth(e) for a condition, integer(e) for a switch's value,
// declare(s) for a declaration and setReturn(e) for the return statement.
#pragma once

#include "c_ast.hpp"
#include "c_error.hpp"

#include <algorithm>
#include <string>

namespace egopt::interp::c {

template <class Derived>
class StatementRunner {
protected:
    StatementRunner(const Ast& ast, const Reporter& rep, uint64_t limit)
        : ast_(ast), rep_(rep), limit_(limit) {}

    // Runs the body up to its return statement.
    void runBody() {
        if (exec(ast_.root) != Flow::Return) {
            rep_.fail(lastLine(), "the end of the body is reached without a 'return'");
        }
    }

    const Ast& ast_;
    const Reporter& rep_;

private:
    enum class Flow : uint8_t { Normal, Break, Continue, Return };

    Derived& self() { return static_cast<Derived&>(*this); }

    uint32_t lastLine() const {
        uint32_t line = 0;
        for (const Stmt& s : ast_.stmts) {
            line = std::max(line, s.line);
        }
        return line;
    }

    Flow exec(uint32_t id) {
        const Stmt& s = ast_.stmts[id];
        tick(id);
        switch (s.kind) {
        case StmtKind::Block:
        case StmtKind::Decls:
            return execList(s);
        case StmtKind::Decl:
            self().declare(s);
            return Flow::Normal;
        case StmtKind::Expr:
            self().discard(s.a);
            return Flow::Normal;
        case StmtKind::If:
            if (self().truth(s.a)) {
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
            self().setReturn(s.a);
            return Flow::Return;
        case StmtKind::Switch:
            return execSwitch(s);
        case StmtKind::Case:
        case StmtKind::Empty:
            return Flow::Normal;
        }
        return Flow::Normal;
    }

    // Jumps to the matching label of the block (else to `default`, else past the block) and
    // runs on from there through later labels, as C falls through, until a break.
    Flow execSwitch(const Stmt& s) {
        int64_t v = self().integer(s.a);
        const Stmt& body = ast_.stmts[s.b];
        const uint32_t* list = ast_.list(body.listBegin);
        uint32_t start = body.listCount;
        for (uint32_t i = 0; i < body.listCount; ++i) {
            const Stmt& c = ast_.stmts[list[i]];
            if (c.kind == StmtKind::Case && c.a == kNone && start == body.listCount) {
                start = i;
            } else if (c.kind == StmtKind::Case && c.a != kNone && c.value == v) {
                start = i;
                break;
            }
        }
        for (uint32_t i = start; i < body.listCount; ++i) {
            Flow f = exec(list[i]);
            if (f != Flow::Normal) {
                return f == Flow::Break ? Flow::Normal : f;
            }
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

    Flow execFor(const Stmt& s) {
        if (s.a != kNone) {
            exec(s.a);
        }
        while (s.b == kNone || self().truth(s.b)) {
            Flow f = exec(s.d);
            if (f == Flow::Break || f == Flow::Return) {
                return f == Flow::Return ? f : Flow::Normal;
            }
            if (s.c != kNone) {
                self().discard(s.c);
            }
        }
        return Flow::Normal;
    }

    Flow execLoop(uint32_t cond, uint32_t body, bool bodyFirst) {
        while (bodyFirst || self().truth(cond)) {
            bodyFirst = false;
            Flow f = exec(body);
            if (f == Flow::Break || f == Flow::Return) {
                return f == Flow::Return ? f : Flow::Normal;
            }
            tick(body);
        }
        return Flow::Normal;
    }

    // Every statement, and every iteration of a loop with an empty body, counts towards the step
    // limit.
    void tick(uint32_t stmt) {
        if (++steps_ > limit_) {
            rep_.fail(ast_.stmts[stmt].line,
                      "stopped after " + std::to_string(limit_) + " steps (an endless loop?)");
        }
    }

    uint64_t limit_;
    uint64_t steps_ = 0;
};

} // namespace egopt::interp::c
