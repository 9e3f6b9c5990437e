// Type inference on concrete sizes for the code generator: expressions, lambdas and user
// functions here, patterns by the shared rule (lift/pattern_typing.hpp) on the sizes with the
// concrete values substituted.
#include "infer.hpp"

#include "egopt/lift/pattern_typing.hpp"
#include "egopt/lift/patterns.hpp"
#include "egopt/support/diagnostic.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

// The inference as the pattern rule's TypingSite: nested functions are typed with the enclosing
// parameters' types `env` (none for a layout pattern typed on its own: it has no function).
class TypeInference::Site final : public lift::TypingSite {
public:
    Site(TypeInference& inference, NodeId fun, std::vector<TypeId>* env)
        : inference_(inference), program_(inference.program_), fun_(fun), env_(env) {}

    lift::TypeArena& types() override { return program_.types; }
    TypeId applyChild(size_t i, std::span<const TypeId> args) override {
        if (env_ == nullptr) {
            fail("cannot be applied to data in generated code");
        }
        return inference_.apply(program_.child(fun_, i), args, *env_);
    }
    TypeId childValueType(size_t i) override {
        std::vector<TypeId> none; // a padding value is a literal: it uses no parameter
        return inference_.expr(program_.child(fun_, i), env_ ? *env_ : none);
    }
    bool childIsFunction(size_t i) const override {
        return !lift::isExpression(program_.op(program_.child(fun_, i)));
    }
    std::string describe() const override {
        return lift::describePattern(program_.op(fun_), program_.node(fun_).ival,
                                     program_.sizes(fun_));
    }
    std::string describeChild(size_t i) const override {
        return std::string(lift::opName(program_.op(program_.child(fun_, i))));
    }
    [[noreturn]] void fail(const std::string& message) const override {
        badInput(message, program_.fileName, program_.node(fun_).loc);
    }
    bool checksSizeValues() const override { return false; }

private:
    TypeInference& inference_;
    lift::Program& program_;
    NodeId fun_;
    std::vector<TypeId>* env_;
};

void failAt(const lift::Program& p, NodeId node, const std::string& msg) {
    std::string name(lift::opName(p.op(node)));
    if (p.op(node) == Op::UserFun) {
        name = "user function " + p.userFuns.at(static_cast<size_t>(p.node(node).ival)).name;
    } else if (lift::patternInfo(p.op(node)).ival == lift::IvalMeaning::Dimension) {
        name += "(" + std::to_string(p.node(node).ival) + ")";
    }
    badInput(name + ": " + msg, p.fileName, p.node(node).loc);
}

TypeInference::TypeInference(lift::Program& program, SizeMap sizes)
    : program_(program), sizes_(std::move(sizes)) {}

Size TypeInference::size(NodeId fun, size_t i) const {
    auto s = program_.sizes(fun);
    if (i >= s.size()) {
        failAt(program_, fun, "missing numeric argument");
    }
    return s[i].substitute(sizes_);
}

TypeId TypeInference::vectorize(TypeId lane, uint32_t width) {
    auto& types = program_.types;
    const lift::TypeNode& n = types.at(lane);
    if (n.kind == lift::TypeKind::Scalar) {
        return types.vector(n.scalar, width);
    }
    if (n.kind == lift::TypeKind::Tuple) {
        std::vector<TypeId> fields;
        for (TypeId f : std::vector<TypeId>(n.elems)) {
            fields.push_back(vectorize(f, width));
        }
        return types.tuple(fields);
    }
    return lane;
}

TypeId TypeInference::expr(NodeId e, std::vector<TypeId>& env) {
    for (const auto& [node, type] : known_) {
        if (node == e) {
            return type;
        }
    }
    const lift::Node& n = program_.node(e);
    switch (n.op) {
    case Op::Param:
        return env.at(static_cast<size_t>(n.ival));
    case Op::Literal:
        return concrete(program_.literals.at(static_cast<size_t>(n.ival)).type);
    case Op::Generate: {
        const lift::UserFunDecl& f =
            program_.userFuns.at(static_cast<size_t>(program_.node(program_.child(e, 0)).ival));
        TypeId t = concrete(f.returnType);
        for (size_t d = program_.sizes(e).size(); d-- > 0;) {
            t = program_.types.array(t, size(e, d));
        }
        return t;
    }
    case Op::Apply: {
        auto c = program_.children(e);
        std::vector<TypeId> args;
        for (size_t i = 1; i < c.size(); ++i) {
            args.push_back(expr(c[i], env));
        }
        return apply(c[0], args, env);
    }
    default:
        failAt(program_, e, "a function used as data");
    }
}

TypeId TypeInference::apply(NodeId fun, std::span<const TypeId> args, std::vector<TypeId>& env) {
    const lift::Node& n = program_.node(fun);
    switch (n.op) {
    case Op::Lambda: {
        auto params = program_.lambdaParams(fun);
        std::vector<TypeId> saved;
        for (size_t i = 0; i < params.size(); ++i) {
            TypeId& slot = env.at(static_cast<size_t>(program_.node(params[i]).ival));
            saved.push_back(slot);
            slot = args[i];
        }
        TypeId r = expr(program_.lambdaBody(fun), env);
        for (size_t i = 0; i < params.size(); ++i) {
            env.at(static_cast<size_t>(program_.node(params[i]).ival)) = saved[i];
        }
        return r;
    }
    case Op::UserFun:
        return concrete(program_.userFuns.at(static_cast<size_t>(n.ival)).returnType);
    default:
        return pattern(fun, args, &env);
    }
}

TypeId TypeInference::layout(NodeId fun, std::span<const TypeId> args) {
    return pattern(fun, args, nullptr);
}

TypeId TypeInference::pattern(NodeId fun, std::span<const TypeId> args, std::vector<TypeId>* env) {
    const lift::Node& n = program_.node(fun);
    std::vector<Size> sizes;
    for (size_t i = 0; i < program_.sizes(fun).size(); ++i) {
        sizes.push_back(size(fun, i));
    }
    lift::PatternUse use{n.op, n.ival, sizes, program_.children(fun).size()};
    Site site(*this, fun, env);
    return lift::typePattern(site, use, args);
}

} // namespace egopt::codegen::detail
