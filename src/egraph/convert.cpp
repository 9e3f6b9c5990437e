// Program <-> e-graph terms: named parameters become De Bruijn indices and back.
#include "egopt/egraph/convert.hpp"

#include "egopt/lift/typecheck.hpp"
#include "egopt/support/diagnostic.hpp"

#include <optional>

namespace egopt::egraph {

TypeId importType(lift::TypeArena& dst, const lift::TypeArena& src, TypeId t) {
    lift::TypeNode n = src.at(t);
    switch (n.kind) {
    case lift::TypeKind::Scalar:
        return dst.scalar(n.scalar);
    case lift::TypeKind::Vector:
        return dst.vector(n.scalar, n.width);
    case lift::TypeKind::Tuple: {
        std::vector<TypeId> fields;
        for (TypeId f : n.elems) {
            fields.push_back(importType(dst, src, f));
        }
        return dst.tuple(fields);
    }
    case lift::TypeKind::Array:
        return dst.array(importType(dst, src, n.elems.at(0)), n.length);
    }
    return lift::kNoType;
}

namespace {

class ToTerm {
public:
    ToTerm(EGraph& g, const lift::Program& p, const lift::TypeInfo& info, TermArena& out)
        : g_(g), p_(p), info_(info), out_(out) {}

    // `env` holds program parameter indices, innermost last.
    TermId convert(lift::NodeId id, std::vector<int32_t>& env) {
        const lift::Node& n = p_.node(id);
        if (std::optional<TermId> unrolled = unrolledIterate(id, env)) {
            return *unrolled;
        }
        TermNode t;
        t.op = n.op;
        t.ival = n.ival;
        auto sizes = p_.sizes(id);
        t.sizes.assign(sizes.begin(), sizes.end());
        switch (n.op) {
        case Op::Param:
            t.ival = deBruijn(n.ival, env, id);
            break;
        case Op::Literal: {
            const auto& lit = p_.literals.at(static_cast<size_t>(n.ival));
            t.ival = static_cast<int32_t>(
                g_.internLiteral(importType(g_.types, p_.types, lit.type), lit.text));
            break;
        }
        case Op::UserFun:
            t.ival = static_cast<int32_t>(userFun(n.ival));
            break;
        case Op::Lambda: {
            auto params = p_.lambdaParams(id);
            for (lift::NodeId param : params) {
                env.push_back(p_.node(param).ival);
            }
            t.ival = static_cast<int32_t>(params.size());
            t.children = {convert(p_.lambdaBody(id), env)};
            env.resize(env.size() - params.size());
            return out_.add(std::move(t));
        }
        default:
            break;
        }
        for (lift::NodeId c : p_.children(id)) {
            t.children.push_back(convert(c, env));
        }
        return out_.add(std::move(t));
    }

private:
    // Lift's iterative reductions, `Iterate(6)(Join() o Map(Reduce(add, 0.0f)) o Split(2)) $ x`,
    // change the array's length at every step. An e-class has one type, so such an Iterate is
    // inserted as its k applications of the function, innermost first (a constant k; the same
    // value, as Iterate means). An Iterate that keeps the length stays one node, for the
    // iterate rules.
    std::optional<TermId> unrolledIterate(lift::NodeId id, std::vector<int32_t>& env) {
        if (p_.node(id).op != Op::Apply) {
            return std::nullopt;
        }
        auto children = p_.children(id);
        if (children.size() != 2 || p_.node(children[0]).op != Op::Iterate ||
            typeOf(id) == typeOf(children[1])) {
            return std::nullopt;
        }
        auto sizes = p_.sizes(children[0]);
        std::optional<int64_t> k = sizes.empty() ? std::nullopt : sizes[0].constant();
        if (!k || *k < 0 || *k > kMaxUnrolledSteps) {
            return std::nullopt; // left to the e-graph, which reports the resizing function
        }
        lift::NodeId step = p_.children(children[0])[0];
        TermId value = convert(children[1], env);
        for (int64_t i = 0; i < *k; ++i) {
            TermNode apply;
            apply.op = Op::Apply;
            apply.ival = p_.node(id).ival;
            apply.children = {convert(step, env), value};
            value = out_.add(std::move(apply));
        }
        return value;
    }

    TypeId typeOf(lift::NodeId id) const {
        return id < info_.nodeTypes.size() ? info_.nodeTypes[id] : lift::kNoType;
    }

    static constexpr int64_t kMaxUnrolledSteps = 64;

    int32_t deBruijn(int32_t param, const std::vector<int32_t>& env, lift::NodeId at) const {
        for (size_t i = env.size(); i-- > 0;) {
            if (env[i] == param) {
                return static_cast<int32_t>(env.size() - 1 - i);
            }
        }
        badInput("parameter used outside its function", p_.fileName, p_.node(at).loc);
    }

    uint32_t userFun(int32_t index) {
        lift::UserFunDecl d = p_.userFuns.at(static_cast<size_t>(index));
        for (TypeId& t : d.paramTypes) {
            t = importType(g_.types, p_.types, t);
        }
        d.returnType = importType(g_.types, p_.types, d.returnType);
        return g_.internUserFun(d);
    }

    EGraph& g_;
    const lift::Program& p_;
    const lift::TypeInfo& info_;
    TermArena& out_;
};

} // namespace

TermId programToTerm(EGraph& g, lift::Program& program, TermArena& out, Signature& sig) {
    lift::TypeInfo info = lift::typecheck(program);
    lift::NodeId root = program.root;
    std::vector<int32_t> env;
    sig = Signature{};
    for (lift::NodeId param : program.lambdaParams(root)) {
        int32_t index = program.node(param).ival;
        env.push_back(index);
        sig.names.push_back(program.params.at(static_cast<size_t>(index)).name);
        sig.types.push_back(
            importType(g.types, program.types, info.paramTypes.at(static_cast<size_t>(index))));
    }
    sig.sizeVars = program.sizeVars;
    sig.result = importType(g.types, program.types, info.resultType);
    TermId body = ToTerm(g, program, info, out).convert(program.lambdaBody(root), env);
    // The top-level parameters are free variables: give them their types.
    return body;
}

Inserted insertProgram(EGraph& g, lift::Program& program) {
    TermArena terms;
    Inserted result;
    TermId body = programToTerm(g, program, terms, result.signature);
    try {
        result.root = g.addTerm(terms, body, {}, result.signature.types);
    } catch (const TypeError& e) {
        badInput(std::string("cannot insert the program into the e-graph: ") + e.what(),
                 program.fileName);
    }
    return result;
}

namespace {

class ToProgram {
public:
    ToProgram(const EGraph& g, const TermArena& t, lift::Program& p) : g_(g), t_(t), p_(p) {}

    lift::NodeId convert(TermId id) {
        if (++steps_ > kMaxNodes) {
            throw Error(ErrorKind::Internal, "extracted program too large");
        }
        const TermNode& n = t_.at(id);
        if (n.eclass != kNoClass) {
            throw Error(ErrorKind::Internal, "cannot convert a class reference to a program");
        }
        switch (n.op) {
        case Op::Param: {
            auto i = static_cast<size_t>(n.ival);
            if (i >= env_.size()) {
                throw Error(ErrorKind::Internal, "free variable in an extracted term");
            }
            return env_[env_.size() - 1 - i];
        }
        case Op::Literal: {
            const auto& lit = g_.literals.at(static_cast<size_t>(n.ival));
            return p_.addLiteral(importType(p_.types, g_.types, lit.type), lit.text);
        }
        case Op::UserFun:
            return p_.refUserFun(static_cast<uint32_t>(n.ival));
        case Op::Lambda:
            return lambda(n);
        default:
            break;
        }
        std::vector<lift::NodeId> children;
        for (TermId c : n.children) {
            children.push_back(convert(c));
        }
        return p_.add(n.op, n.ival, children, n.sizes);
    }

    void bindTop(const Signature& sig) {
        for (size_t i = 0; i < sig.names.size(); ++i) {
            env_.push_back(p_.addParam(sig.names[i], importType(p_.types, g_.types, sig.types[i])));
        }
    }

    std::vector<lift::NodeId> env_;

private:
    static constexpr size_t kMaxNodes = 1'000'000;

    lift::NodeId lambda(const TermNode& n) {
        std::vector<lift::NodeId> params;
        for (int32_t i = 0; i < n.ival; ++i) {
            TypeId t = static_cast<size_t>(i) < n.types.size()
                           ? importType(p_.types, g_.types, n.types[static_cast<size_t>(i)])
                           : lift::kNoType;
            params.push_back(p_.addParam("x" + std::to_string(p_.params.size()), t));
            env_.push_back(params.back());
        }
        lift::NodeId body = convert(n.children.at(0));
        env_.resize(env_.size() - params.size());
        return p_.lambda(params, body);
    }

    const EGraph& g_;
    const TermArena& t_;
    lift::Program& p_;
    size_t steps_ = 0;
};

} // namespace

lift::Program termToProgram(const EGraph& g, const TermArena& terms, TermId root,
                            const Signature& sig) {
    lift::Program p;
    p.fileName = "<extracted>";
    p.sizeVars = sig.sizeVars;
    for (const lift::UserFunDecl& d : g.userFuns) {
        lift::UserFunDecl copy = d;
        for (TypeId& t : copy.paramTypes) {
            t = importType(p.types, g.types, t);
        }
        copy.returnType = importType(p.types, g.types, copy.returnType);
        p.userFuns.push_back(std::move(copy));
    }
    ToProgram conv(g, terms, p);
    conv.bindTop(sig);
    std::vector<lift::NodeId> params = conv.env_;
    lift::NodeId body = conv.convert(root);
    p.root = p.lambda(params, body);
    return p;
}

lift::Program extractProgram(const EGraph& g, EClassId root, const Signature& sig) {
    TermArena t;
    TermId id = g.extract(root, t);
    return termToProgram(g, t, id, sig);
}

} // namespace egopt::egraph
