// Internal to the interpreter: the expression evaluator. One Evaluator walks one thread's share
// of a program; a Map evaluated on several threads gives each thread a copy of the evaluator
// (its parameter bindings and nesting depth), and everything the copies share is read-only.
#pragma once

#include "egopt/interp/interpreter.hpp"
#include "egopt/interp/userfun.hpp"
#include "patterns.hpp"

#include <optional>

namespace egopt::interp {

struct Interpreter::State {
    const lift::Program& program;
    const lift::TypeInfo& types;
    arith::Bindings sizes;
    InterpreterOptions options;
    std::vector<CompiledUserFun> userFuns;
    // Every literal's value under `sizes`, computed once; nullopt where the text is bad (its
    // evaluation then reports the error).
    std::vector<std::optional<Value>> literals;
};

namespace detail {

class Evaluator {
public:
    explicit Evaluator(const Interpreter::State& s)
        : s_(s), p_(s.program), env_(s.program.params.size()) {}
    // A copy for another thread: the same bindings and depth, its own from then on.
    Evaluator(const Evaluator&) = default;
    Evaluator& operator=(const Evaluator&) = delete;

    // Applies a function (lambda, user function or pattern) to its arguments, which it may move
    // from.
    Value apply(lift::NodeId fun, std::span<Value> args);
    Value eval(lift::NodeId e);

private:
    struct Guard {
        Guard(Evaluator& ev, lift::NodeId at) : e(ev) {
            if (++e.depth_ > kMaxDepth) {
                e.fail(at, "evaluation nested too deeply");
            }
        }
        ~Guard() { --e.depth_; }
        Guard(const Guard&) = delete;
        Guard& operator=(const Guard&) = delete;
        Evaluator& e;
    };
    // Iterate and deep nesting recurse; this bounds the C++ stack used by hostile programs.
    static constexpr int kMaxDepth = 4000;

    [[noreturn]] void fail(lift::NodeId at, const std::string& msg) const;
    Site site(lift::NodeId at) const { return Site{p_, at}; }
    int64_t size(lift::NodeId fun, size_t i) const;
    Value one(lift::NodeId fun, std::span<Value> args) const;

    Value evalApply(lift::NodeId e);
    // The value bound to a parameter.
    const Value& param(lift::NodeId e) const;
    // Get's field of a tuple (or lane of a vector).
    Value field(lift::NodeId get, const Value& x) const;
    Value applyLambda(lift::NodeId fun, std::span<Value> args);
    Value generate(lift::NodeId fun, const std::vector<int64_t>& lengths,
                   std::vector<Value>& indices);
    Value callUserFun(lift::NodeId fun, std::span<const Value> args);
    Value lanewise(lift::NodeId fun, std::span<Value> args);
    Value reduce(lift::NodeId fun, std::span<Value> args);
    // ScanSeq, ReduceWhileSeq and InsertionSortSeq (evaluator_sequential.cpp).
    Value scan(lift::NodeId fun, std::span<Value> args);
    Value reduceWhile(lift::NodeId fun, std::span<Value> args);
    Value sort(lift::NodeId fun, const Value& xs);
    // Whether a predicate's or comparison's result (an Int or a Bool) is true, as C reads it.
    bool truth(lift::NodeId fun, const Value& v) const;
    Value layout(lift::NodeId fun, std::span<Value> args);

    // Map (evaluator_map.cpp): f on every element, on several threads for large arrays.
    Value map(lift::NodeId fun, const Value& xs);
    // Map(f) $ Zip(a, b, ...) without building the zipped array: each element's tuple is made
    // just before f is applied to it.
    Value mapZipped(lift::NodeId fun, lift::NodeId zipApply);
    // out[i] = element(i) for i in [0, n), in parallel when worthwhile; element(i) is evaluated
    // by the evaluator it is given.
    template <class Element>
    Value mapIndices(size_t n, size_t scalarsPerElement, const Element& element);
    bool worthParallel(size_t n, size_t scalarsPerElement) const;

    const Interpreter::State& s_;
    const lift::Program& p_;
    std::vector<std::optional<Value>> env_;
    int depth_ = 0;
};

} // namespace detail

} // namespace egopt::interp
