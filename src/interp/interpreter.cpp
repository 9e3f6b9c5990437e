// The reference interpreter: evaluation of expressions and of every pattern. Data-layout
// patterns are in patterns.cpp, literal and input values in inputs.cpp.
#include "egopt/interp/interpreter.hpp"

#include "egopt/interp/userfun.hpp"
#include "egopt/lift/patterns.hpp"
#include "literals.hpp"
#include "patterns.hpp"

#include <optional>

namespace egopt::interp {

using lift::NodeId;
using lift::Op;
using lift::Semantics;

struct Interpreter::State {
    const lift::Program& program;
    const lift::TypeInfo& types;
    arith::Bindings sizes;
    std::vector<CompiledUserFun> userFuns;
};

namespace {

// Iterate and deep nesting recurse; this bounds the C++ stack used by hostile programs.
constexpr int kMaxDepth = 4000;

class Evaluator {
public:
    explicit Evaluator(const Interpreter::State& s)
        : s_(s), p_(s.program), env_(s.program.params.size()) {}

    Value apply(NodeId fun, std::vector<Value> args) {
        Guard guard(*this, fun);
        const lift::Node& n = p_.node(fun);
        switch (n.op) {
        case Op::Lambda:
            return applyLambda(fun, std::move(args));
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
        case Semantics::Iterate: {
            Value x = one(fun, args);
            int64_t k = size(fun, 0);
            for (int64_t i = 0; i < k; ++i) {
                x = apply(p_.child(fun, 0), {x});
            }
            return x;
        }
        case Semantics::Place:
            return apply(p_.child(fun, 0), std::move(args));
        default:
            return layout(fun, args);
        }
    }

    Value eval(NodeId e) {
        Guard guard(*this, e);
        const lift::Node& n = p_.node(e);
        switch (n.op) {
        case Op::Param: {
            auto& v = env_.at(static_cast<size_t>(n.ival));
            if (!v) {
                fail(e, "parameter '" + p_.params[static_cast<size_t>(n.ival)].name +
                            "' used outside its function");
            }
            return *v;
        }
        case Op::Literal: {
            const auto& lit = p_.literals.at(static_cast<size_t>(n.ival));
            return detail::literalValue(p_.types, lit.type, lit.text, s_.sizes);
        }
        case Op::Generate: {
            std::vector<int64_t> lengths;
            for (size_t d = 0; d < p_.sizes(e).size(); ++d) {
                lengths.push_back(size(e, d));
            }
            std::vector<Value> indices;
            return generate(p_.child(e, 0), lengths, indices);
        }
        case Op::Apply: {
            auto c = p_.children(e);
            std::vector<Value> args;
            for (size_t i = 1; i < c.size(); ++i) {
                args.push_back(eval(c[i]));
            }
            return apply(c[0], std::move(args));
        }
        default:
            fail(e, "a function used as data");
        }
    }

private:
    struct Guard {
        Guard(Evaluator& ev, NodeId at) : e(ev) {
            if (++e.depth_ > kMaxDepth) {
                e.fail(at, "evaluation nested too deeply");
            }
        }
        ~Guard() { --e.depth_; }
        Guard(const Guard&) = delete;
        Guard& operator=(const Guard&) = delete;
        Evaluator& e;
    };

    [[noreturn]] void fail(NodeId at, const std::string& msg) const {
        badInput(std::string(lift::opName(p_.op(at))) + ": " + msg, p_.fileName, p_.node(at).loc);
    }
    std::string where(NodeId at) const {
        SourceLoc l = p_.node(at).loc;
        return std::string(lift::opName(p_.op(at))) +
               (l.known() ? " at " + std::to_string(l.line) + ":" + std::to_string(l.col) : "");
    }

    int64_t size(NodeId fun, size_t i) const {
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

    Value one(NodeId fun, std::vector<Value>& args) const {
        if (args.size() != 1) {
            fail(fun, "expected 1 argument, found " + std::to_string(args.size()));
        }
        return std::move(args[0]);
    }

    Value applyLambda(NodeId fun, std::vector<Value> args) {
        auto params = p_.lambdaParams(fun);
        if (args.size() != params.size()) {
            fail(fun, "expected " + std::to_string(params.size()) + " arguments, found " +
                          std::to_string(args.size()));
        }
        std::vector<std::optional<Value>> saved;
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
    Value generate(NodeId fun, const std::vector<int64_t>& lengths, std::vector<Value>& indices) {
        if (indices.size() == lengths.size()) {
            std::vector<Value> args = indices;
            for (int64_t n : lengths) {
                args.push_back(Value::ofInt(static_cast<int32_t>(n)));
            }
            return callUserFun(fun, args);
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

    Value callUserFun(NodeId fun, std::vector<Value>& args) {
        const CompiledUserFun& f = s_.userFuns.at(static_cast<size_t>(p_.node(fun).ival));
        const auto& decl = p_.userFuns.at(static_cast<size_t>(p_.node(fun).ival));
        // A multi-parameter user function applied to one tuple takes its fields (as in Lift).
        if (args.size() == 1 && decl.paramTypes.size() > 1 &&
            args[0].kind() == Value::Kind::Tuple) {
            std::vector<Value> fields = args[0].elems();
            return f.call(fields);
        }
        return f.call(args);
    }

    Value map(NodeId fun, const Value& xs) {
        if (xs.kind() != Value::Kind::Array) {
            fail(fun, "expected an array");
        }
        std::vector<Value> out;
        out.reserve(xs.size());
        for (const Value& x : xs.elems()) {
            out.push_back(apply(p_.child(fun, 0), {x}));
        }
        return Value::array(std::move(out));
    }

    // MapVec(f) and VectorizeUserFun(w, f): f on each lane of vector arguments (scalars and
    // the lanes of tuples of vectors are spread the same way).
    Value lanewise(NodeId fun, std::vector<Value>& args) {
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
        for (size_t l = 0; l < width; ++l) {
            std::vector<Value> laneArgs;
            for (const Value& a : args) {
                laneArgs.push_back(a.kind() == Value::Kind::Vector ? a[l] : a);
            }
            lanes.push_back(apply(p_.child(fun, 0), std::move(laneArgs)));
        }
        return Value::vector(std::move(lanes));
    }

    Value reduce(NodeId fun, std::vector<Value>& args) {
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
        std::vector<Value> out;
        for (int64_t part = 0; part < parts; ++part) {
            Value acc = args[0];
            for (size_t i = 0; i < chunk; ++i) {
                acc = apply(p_.child(fun, 0), {acc, xs[static_cast<size_t>(part) * chunk + i]});
            }
            out.push_back(std::move(acc));
        }
        return Value::array(std::move(out));
    }

    Value layout(NodeId fun, std::vector<Value>& args) {
        std::string w = where(fun);
        const lift::Node& n = p_.node(fun);
        Semantics meaning = lift::semantics(n.op);
        switch (meaning) {
        case Semantics::Zip:
            return detail::zip(args, w);
        case Semantics::Tuple:
            return Value::tuple(args);
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
            if (x.kind() != Value::Kind::Tuple && x.kind() != Value::Kind::Vector) {
                fail(fun, "expected a tuple");
            }
            if (n.ival < 0 || static_cast<size_t>(n.ival) >= x.size()) {
                fail(fun, "field " + std::to_string(n.ival) + " out of range");
            }
            return x[static_cast<size_t>(n.ival)];
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
            return detail::pad(x, size(fun, 0), size(fun, 1),
                               static_cast<lift::PadBoundary>(n.ival),
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

    const Interpreter::State& s_;
    const lift::Program& p_;
    std::vector<std::optional<Value>> env_;
    int depth_ = 0;
};

} // namespace

Interpreter::Interpreter(const lift::Program& program, const lift::TypeInfo& types,
                         arith::Bindings sizes)
    : state_(new State{program, types, std::move(sizes), {}}) {
    for (const std::string& v : program.sizeVars) {
        if (!state_->sizes.contains(v)) {
            badInput("no value for the size variable " + v + ": pass --size " + v + "=<value>",
                     program.fileName);
        }
    }
    for (const auto& decl : program.userFuns) {
        try {
            state_->userFuns.push_back(CompiledUserFun::compile(decl, program.types));
        } catch (const Error& e) {
            // A user function's C error is located in the .lift file that declared it.
            if (!e.file().empty() || !e.loc().known()) {
                throw;
            }
            throw Error(e.kind(), e.message(), program.fileName, e.loc());
        }
    }
}

Interpreter::~Interpreter() = default;

Value Interpreter::run(std::span<const Value> args) const {
    const lift::Program& p = state_->program;
    if (p.root == lift::kNoNode) {
        badInput("the program has no top-level function", p.fileName);
    }
    Evaluator ev(*state_);
    return ev.apply(p.root, std::vector<Value>(args.begin(), args.end()));
}

} // namespace egopt::interp
