// The reference interpreter's entry point: compiles the user functions and literals once, then
// evaluates (evaluator.cpp, evaluator_map.cpp).
#include "egopt/interp/interpreter.hpp"

#include "evaluator.hpp"
#include "literals.hpp"

namespace egopt::interp {

Interpreter::Interpreter(const lift::Program& program, const lift::TypeInfo& types,
                         arith::Bindings sizes, InterpreterOptions options)
    : state_(new State{program, types, std::move(sizes), options, {}, {}}) {
    for (const std::string& v : program.sizeVars) {
        if (!state_->sizes.contains(v)) {
            badInput("no value for the size variable " + v + ": pass --size " + v + "=<value>",
                     program.fileName);
        }
    }
    for (const auto& decl : program.userFuns) {
        state_->userFuns.push_back(compileUserFun(program, decl));
    }
    for (const auto& lit : program.literals) {
        try {
            state_->literals.emplace_back(
                detail::literalValue(program.types, lit.type, lit.text, state_->sizes));
        } catch (const Error&) {
            state_->literals.emplace_back(); // reported if the literal is evaluated
        }
    }
}

Interpreter::~Interpreter() = default;

Value Interpreter::run(std::span<const Value> args) const {
    const lift::Program& p = state_->program;
    if (p.root == lift::kNoNode) {
        badInput("the program has no top-level function", p.fileName);
    }
    detail::Evaluator ev(*state_);
    std::vector<Value> copies(args.begin(), args.end());
    return ev.apply(p.root, copies);
}

} // namespace egopt::interp
