// Lift's sequential patterns with data-dependent control flow: ScanSeq (every prefix's fold),
// ReduceWhileSeq (a fold that stops where its predicate fails) and InsertionSortSeq. Each runs
// the steps Lift's generated code runs, in its order, so that results agree exactly: float
// operators do not associate, and a comparison that is not a strict order (<=) moves equal
// elements as the insertion sort does.
#include "evaluator.hpp"

namespace egopt::interp::detail {

using lift::NodeId;

bool Evaluator::truth(NodeId fun, const Value& v) const {
    switch (v.kind()) {
    case Value::Kind::Bool:
        return v.asBool();
    case Value::Kind::Int:
        return v.asInt() != 0;
    default:
        fail(fun, "expected an Int or a Bool from the predicate or comparison");
    }
}

// out[i] = f(out[i - 1], xs[i]), with out[-1] = init.
Value Evaluator::scan(NodeId fun, std::span<Value> args) {
    if (args.size() != 2 || args[1].kind() != Value::Kind::Array) {
        fail(fun, "expected an initial value and an array");
    }
    const auto& xs = args[1].elems();
    NodeId f = p_.child(fun, 0);
    std::vector<Value> out;
    out.reserve(xs.size());
    Value acc = args[0];
    for (const Value& x : xs) {
        Value pair[] = {std::move(acc), x};
        acc = apply(f, pair);
        out.push_back(acc);
    }
    return Value::array(std::move(out));
}

// Before each element x the predicate sees (acc, x); the fold ends at the first x it rejects.
Value Evaluator::reduceWhile(NodeId fun, std::span<Value> args) {
    if (args.size() != 2 || args[1].kind() != Value::Kind::Array) {
        fail(fun, "expected an initial value and an array");
    }
    NodeId f = p_.child(fun, 0);
    NodeId p = p_.child(fun, 1);
    Value acc = args[0];
    for (const Value& x : args[1].elems()) {
        Value test[] = {acc, x};
        if (!truth(p, apply(p, test))) {
            break;
        }
        Value pair[] = {std::move(acc), x};
        acc = apply(f, pair);
    }
    std::vector<Value> out{std::move(acc)};
    return Value::array(std::move(out));
}

// Element i is inserted into the sorted prefix out[0, i): it moves before out[j] while
// compare(x, out[j]) is true, scanning from j = i - 1 down.
Value Evaluator::sort(NodeId fun, const Value& xs) {
    if (xs.kind() != Value::Kind::Array) {
        fail(fun, "expected an array");
    }
    NodeId cmp = p_.child(fun, 0);
    std::vector<Value> out;
    out.reserve(xs.size());
    for (const Value& x : xs.elems()) {
        size_t j = out.size();
        while (j > 0) {
            Value pair[] = {x, out[j - 1]};
            if (!truth(cmp, apply(cmp, pair))) {
                break;
            }
            --j;
        }
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(j), x);
    }
    return Value::array(std::move(out));
}

} // namespace egopt::interp::detail
