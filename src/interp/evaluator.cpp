// Evaluation of expressions and of every pattern but Map (evaluator_map.cpp) and the sequential
// patterns with data-dependent control flow (evaluator_sequential.cpp). Data-layout patterns are
// in patterns.cpp, literal and input values in inputs.cpp.
#include "evaluator.hpp"

#include "egopt/lift/patterns.hpp"
#include "literals.hpp"
#include "small_vec.hpp"

namespace egopt::interp::detail {

using lift::NodeId;
using lift::Op;
using lift::Semantics;

// Argument lists of up to four values (almost every call) live on the stack.
using Args = SmallVec<Value, 4>;

Value Evaluator::apply(NodeId fun, std::span<Value> args) {
    Guard guard(*this, fun);
    const lift::Node& n = p_.node(fun);
    switch (n.op) {
    case Op::Lambda:
        return applyLambda(fun, args);
    case Op::UserFun:
        return callUserFun(fun, args);
    default:
        break;
    }
    // A pattern's meaning is that of its Semantics (lift/patterns.hpp): the lowered
    // variants (MapGlb, ReduceSeq, ...) mean what their high-level pattern means.
    switch (lift::semantics(n.op)) {
    case Semantics::Map:
        return map(fun, one(fun, args));
    case Semantics::MapLanes:
    case Semantics::VectorizeFun:
        return lanewise(fun, args);
    case Semantics::Reduce:
    case Semantics::PartialReduce:
        return reduce(fun, args);
    case Semantics::Scan:
        return scan(fun, args);
    case Semantics::ReduceWhile:
        return reduceWhile(fun, args);
    case Semantics::Sort:
        return sort(fun, one(fun, args));
    case Semantics::Iterate: {
        Value x = one(fun, args);
        int64_t k = size(fun, 0);
        for (int64_t i = 0; i < k; ++i) {
            Value arg[] = {std::move(x)};
            x = apply(p_.child(fun, 0), arg);
        }
        return x;
    }
    case Semantics::Place:
        return apply(p_.child(fun, 0), args);
    default:
        return layout(fun, args);
    }
}

Value Evaluator::eval(NodeId e) {
    Guard guard(*this, e);
    const lift::Node& n = p_.node(e);
    switch (n.op) {
    case Op::Param:
        return param(e);
    case Op::Literal: {
        const auto& known = s_.literals.at(static_cast<size_t>(n.ival));
        if (known) {
            return *known;
        }
        const auto& lit = p_.literals.at(static_cast<size_t>(n.ival));
        return detail::literalValue(p_.types, lit.type, lit.text, s_.sizes); // reports the error
    }
    case Op::Generate: {
        std::vector<int64_t> lengths;
        for (size_t d = 0; d < p_.sizes(e).size(); ++d) {
            lengths.push_back(size(e, d));
        }
        std::vector<Value> indices;
        return generate(p_.child(e, 0), lengths, indices);
    }
    case Op::Apply:
        return evalApply(e);
    default:
        fail(e, "a function used as data");
    }
}

Value Evaluator::evalApply(NodeId e) {
    auto c = p_.children(e);
    if (c.size() == 2 && lift::semantics(p_.op(c[0])) == Semantics::Map &&
        p_.op(c[1]) == Op::Apply && p_.children(c[1]).size() >= 2 &&
        lift::semantics(p_.op(p_.child(c[1], 0))) == Semantics::Zip) {
        return mapZipped(c[0], c[1]);
    }
    if (c.size() == 2 && lift::semantics(p_.op(c[0])) == Semantics::Get &&
        p_.op(c[1]) == Op::Param) {
        // A field of a bound tuple, without copying the tuple. The depth is eval(c[1])'s;
        // apply(c[0], ...) would nest no deeper.
        Guard guard(*this, c[1]);
        return field(c[0], param(c[1]));
    }
    Args args;
    args.reserve(c.size() - 1);
    for (size_t i = 1; i < c.size(); ++i) {
        args.push_back(eval(c[i]));
    }
    return apply(c[0], args.span());
}

const Value& Evaluator::param(NodeId e) const {
    const lift::Node& n = p_.node(e);
    const auto& v = env_.at(static_cast<size_t>(n.ival));
    if (!v) {
        fail(e, "parameter '" + p_.params[static_cast<size_t>(n.ival)].name +
                    "' used outside its function");
    }
    return *v;
}

Value Evaluator::field(NodeId get, const Value& x) const {
    int32_t i = p_.node(get).ival;
    if (x.kind() != Value::Kind::Tuple && x.kind() != Value::Kind::Vector) {
        fail(get, "expected a tuple");
    }
    if (i < 0 || static_cast<size_t>(i) >= x.size()) {
        fail(get, "field " + std::to_string(i) + " out of range");
    }
    return x[static_cast<size_t>(i)];
}

void Evaluator::fail(NodeId at, const std::string& msg) const {
    badInput(std::string(lift::opName(p_.op(at))) + ": " + msg, p_.fileName, p_.node(at).loc);
}

int64_t Evaluator::size(NodeId fun, size_t i) const {
    auto sizes = p_.sizes(fun);
    if (i >= sizes.size()) {
        fail(fun, "missing numeric argument");
    }
    auto v = sizes[i].evaluate(s_.sizes);
    if (!v) {
        fail(fun, "cannot evaluate the size " + sizes[i].toString() +
                      " (an unbound variable, a division by zero or an inexact /^)");
    }
    return *v;
}

Value Evaluator::one(NodeId fun, std::span<Value> args) const {
    if (args.size() != 1) {
        fail(fun, "expected 1 argument, found " + std::to_string(args.size()));
    }
    return std::move(args[0]);
}

Value Evaluator::applyLambda(NodeId fun, std::span<Value> args) {
    auto params = p_.lambdaParams(fun);
    if (args.size() != params.size()) {
        fail(fun, "expected " + std::to_string(params.size()) + " arguments, found " +
                      std::to_string(args.size()));
    }
    SmallVec<std::optional<Value>, 4> saved;
    saved.reserve(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
        auto& slot = env_.at(static_cast<size_t>(p_.node(params[i]).ival));
        saved.push_back(std::move(slot));
        slot = std::move(args[i]);
    }
    Value result = eval(p_.lambdaBody(fun));
    for (size_t i = 0; i < params.size(); ++i) {
        env_.at(static_cast<size_t>(p_.node(params[i]).ival)) = std::move(saved[i]);
    }
    return result;
}

// The generator's array from dimension indices.size() inward: f(indices..., lengths...).
Value Evaluator::generate(NodeId fun, const std::vector<int64_t>& lengths,
                          std::vector<Value>& indices) {
    if (indices.size() == lengths.size()) {
        Args args;
        for (const Value& i : indices) {
            args.push_back(i);
        }
        for (int64_t n : lengths) {
            args.push_back(Value::ofInt(static_cast<int32_t>(n)));
        }
        return callUserFun(fun, args.span());
    }
    std::vector<Value> out;
    int64_t n = lengths[indices.size()];
    out.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        indices.push_back(Value::ofInt(static_cast<int32_t>(i)));
        out.push_back(generate(fun, lengths, indices));
        indices.pop_back();
    }
    return Value::array(std::move(out));
}

Value Evaluator::callUserFun(NodeId fun, std::span<const Value> args) {
    const CompiledUserFun& f = s_.userFuns.at(static_cast<size_t>(p_.node(fun).ival));
    const auto& decl = p_.userFuns.at(static_cast<size_t>(p_.node(fun).ival));
    // A multi-parameter user function applied to one tuple takes its fields (as in Lift).
    if (args.size() == 1 && decl.paramTypes.size() > 1 && args[0].kind() == Value::Kind::Tuple) {
        return f.call(args[0].elems());
    }
    return f.call(args);
}

// MapVec(f) and VectorizeUserFun(w, f): f on each lane of vector arguments (scalars and
// the lanes of tuples of vectors are spread the same way).
Value Evaluator::lanewise(NodeId fun, std::span<Value> args) {
    size_t width = 0;
    for (const Value& a : args) {
        if (a.kind() == Value::Kind::Vector) {
            width = a.size();
        }
    }
    if (width == 0) {
        fail(fun, "expected vector arguments");
    }
    std::vector<Value> lanes;
    lanes.reserve(width);
    for (size_t l = 0; l < width; ++l) {
        Args laneArgs;
        for (const Value& a : args) {
            laneArgs.push_back(a.kind() == Value::Kind::Vector ? a[l] : a);
        }
        lanes.push_back(apply(p_.child(fun, 0), laneArgs.span()));
    }
    return Value::vector(std::move(lanes));
}

// In order, element after element: float addition does not associate, so the order is part
// of the result.
Value Evaluator::reduce(NodeId fun, std::span<Value> args) {
    if (args.size() != 2 || args[1].kind() != Value::Kind::Array) {
        fail(fun, "expected an initial value and an array");
    }
    const auto& xs = args[1].elems();
    int64_t parts = lift::semantics(p_.op(fun)) == Semantics::PartialReduce ? size(fun, 0) : 1;
    if (parts <= 0 || xs.size() % static_cast<size_t>(parts) != 0) {
        fail(fun, "cannot reduce " + std::to_string(xs.size()) + " elements into " +
                      std::to_string(parts) + " equal parts");
    }
    size_t chunk = xs.size() / static_cast<size_t>(parts);
    NodeId f = p_.child(fun, 0);
    std::vector<Value> out;
    out.reserve(static_cast<size_t>(parts));
    for (int64_t part = 0; part < parts; ++part) {
        Value acc = args[0];
        for (size_t i = 0; i < chunk; ++i) {
            Value pair[] = {std::move(acc), xs[static_cast<size_t>(part) * chunk + i]};
            acc = apply(f, pair);
        }
        out.push_back(std::move(acc));
    }
    return Value::array(std::move(out));
}

Value Evaluator::layout(NodeId fun, std::span<Value> args) {
    Site w = site(fun);
    const lift::Node& n = p_.node(fun);
    Semantics meaning = lift::semantics(n.op);
    switch (meaning) {
    case Semantics::Zip:
        return detail::zip(args, w);
    case Semantics::Tuple:
        return Value::tuple(std::vector<Value>(args.begin(), args.end()));
    case Semantics::Filter:
        if (args.size() != 2) {
            fail(fun, "expected an array and indices");
        }
        return detail::filter(args[0], args[1], w);
    default:
        break;
    }
    Value x = one(fun, args);
    switch (meaning) {
    case Semantics::Split:
        return detail::split(x, size(fun, 0), w);
    case Semantics::Join:
        return detail::join(x, w);
    case Semantics::Transpose:
        return detail::transpose(x, w);
    case Semantics::Unzip:
        return detail::unzip(x, w);
    case Semantics::Get:
        return field(fun, x);
    case Semantics::AsVector:
        return detail::asVector(x, size(fun, 0), w);
    case Semantics::AsScalar:
        return detail::asScalar(x, w);
    case Semantics::Slide:
        return detail::slide(x, size(fun, 0), size(fun, 1), w);
    case Semantics::Pad: {
        auto kids = p_.children(fun);
        std::optional<Value> constant;
        if (!kids.empty()) {
            constant = eval(kids[0]);
        }
        return detail::pad(x, size(fun, 0), size(fun, 1), static_cast<lift::PadBoundary>(n.ival),
                           constant ? &*constant : nullptr, w);
    }
    case Semantics::At:
        return detail::at(x, size(fun, 0), w);
    case Semantics::Gather:
    case Semantics::Scatter: {
        NodeId f = p_.child(fun, 0);
        int64_t param = p_.sizes(f).empty() ? 0 : size(f, 0);
        return meaning == Semantics::Gather ? detail::gather(x, p_.op(f), param, w)
                                            : detail::scatter(x, p_.op(f), param, w);
    }
    case Semantics::Identity:
    case Semantics::Reorder:
        return x;
    default:
        fail(fun, "cannot be applied to data");
    }
}

} // namespace egopt::interp::detail
