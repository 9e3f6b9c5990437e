// CompiledUserFun: lex, parse and check once; evaluate per call. Values cross the boundary
// between the pattern interpreter's Value and the C interpreter's CVal here, checked against
// the declared Lift types.
#include "egopt/interp/userfun.hpp"

#include "c_check.hpp"
#include "c_eval.hpp"
#include "c_lexer.hpp"
#include "c_parser.hpp"
#include "c_scalar.hpp"
#include "small_vec.hpp"

namespace egopt::interp {

using namespace c;

struct CompiledUserFun::Impl {
    std::string name;
    Reporter rep;
    Ast ast;
    std::vector<CType> params;
    std::vector<std::string> paramNames;
    CType result;
    // Set when everything in the body is scalar: calls then run on bare lanes.
    std::optional<ScalarPlan> scalar;
};

namespace {

Value::Kind valueKind(Base b) {
    switch (b) {
    case Base::Int:
        return Value::Kind::Int;
    case Base::Double:
        return Value::Kind::Double;
    case Base::Bool:
        return Value::Kind::Bool;
    default:
        return Value::Kind::Float;
    }
}

// A scalar Value of the declared element kind as a lane; false on a kind mismatch.
bool toLane(const Value& v, Base b, Lane& lane) {
    if (!v.isScalar() || v.kind() != valueKind(b)) {
        return false;
    }
    switch (v.kind()) {
    case Value::Kind::Float:
        lane.f = v.asFloat();
        break;
    case Value::Kind::Double:
        lane.f = v.asDouble();
        break;
    case Value::Kind::Int:
        lane.i = v.asInt();
        break;
    default:
        lane.i = v.asBool();
        break;
    }
    return true;
}

bool toC(const Value& v, CType t, const Ast& ast, CVal& out) {
    out.type = t;
    if (t.base == Base::Tuple) {
        const auto& fields = ast.tuples.at(t.tuple);
        if (v.kind() != Value::Kind::Tuple || v.size() != fields.size()) {
            return false;
        }
        out.fields.resize(fields.size());
        for (size_t i = 0; i < fields.size(); ++i) {
            if (!toC(v[i], fields[i], ast, out.fields[i])) {
                return false;
            }
        }
        return true;
    }
    if (t.width == 1) {
        return toLane(v, t.base, out.lanes[0]);
    }
    if (v.kind() != Value::Kind::Vector || v.size() != t.width) {
        return false;
    }
    for (int k = 0; k < t.width; ++k) {
        if (!toLane(v[k], t.base, out.lanes[k])) {
            return false;
        }
    }
    return true;
}

Value laneValue(const Lane& l, Base b) {
    switch (b) {
    case Base::Float:
        return Value::ofFloat(static_cast<float>(l.f));
    case Base::Double:
        return Value::ofDouble(l.f);
    case Base::Bool:
        return Value::ofBool(l.i != 0);
    default:
        return Value::ofInt(static_cast<int32_t>(l.i));
    }
}

Value fromC(const CVal& v) {
    if (v.type.base == Base::Tuple) {
        std::vector<Value> fields;
        for (const CVal& f : v.fields) {
            fields.push_back(fromC(f));
        }
        return Value::tuple(std::move(fields));
    }
    if (v.type.width == 1) {
        return laneValue(v.lanes[0], v.type.base);
    }
    std::vector<Value> lanes;
    for (int k = 0; k < v.type.width; ++k) {
        lanes.push_back(laneValue(v.lanes[k], v.type.base));
    }
    return Value::vector(std::move(lanes));
}

} // namespace

CompiledUserFun CompiledUserFun::compile(const lift::UserFunDecl& decl,
                                         const lift::TypeArena& types, bool scalarFastPath) {
    auto impl = std::make_unique<Impl>(Impl{decl.name,
                                            Reporter(decl.name, decl.loc, decl.builtin),
                                            Ast{},
                                            {},
                                            decl.paramNames,
                                            CType{},
                                            std::nullopt});
    const Reporter& rep = impl->rep;
    if (decl.paramNames.size() != decl.paramTypes.size()) {
        rep.failCall("has " + std::to_string(decl.paramNames.size()) + " parameter names but " +
                     std::to_string(decl.paramTypes.size()) + " parameter types");
    }
    impl->ast = parse(lex(decl.body, rep), rep);
    std::vector<Param> params;
    for (size_t i = 0; i < decl.paramTypes.size(); ++i) {
        const std::string& n = decl.paramNames[i];
        params.push_back(
            {n, fromLift(decl.paramTypes[i], types, impl->ast, rep, "parameter '" + n + "'")});
        impl->params.push_back(params.back().type);
    }
    impl->result = fromLift(decl.returnType, types, impl->ast, rep, "the result");
    check(impl->ast, params, impl->result, rep);
    if (scalarFastPath) {
        impl->scalar = ScalarPlan::of(impl->ast, impl->params, impl->result);
    }
    return CompiledUserFun(std::move(impl));
}

Value CompiledUserFun::call(std::span<const Value> args) const {
    const Impl& f = *impl_;
    if (args.size() != f.params.size()) {
        f.rep.failCall("takes " + std::to_string(f.params.size()) + " argument(s) but got " +
                       std::to_string(args.size()));
    }
    auto mismatch = [&](size_t i) {
        f.rep.failCall("argument " + std::to_string(i + 1) + " (" + args[i].toJson() +
                       ") does not have the type " + typeName(f.params[i]) + " of parameter '" +
                       f.paramNames[i] + "'");
    };
    if (f.scalar) {
        detail::SmallVec<Lane, 4> lanes(args.size());
        for (size_t i = 0; i < args.size(); ++i) {
            if (!toLane(args[i], f.params[i].base, lanes[i])) {
                mismatch(i);
            }
        }
        return laneValue(f.scalar->run(f.ast, lanes.span(), f.rep, kStepLimit), f.result.base);
    }
    detail::SmallVec<CVal, 4> cargs(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
        if (!toC(args[i], f.params[i], f.ast, cargs[i])) {
            mismatch(i);
        }
    }
    return fromC(evaluate(f.ast, cargs.span(), f.result, f.rep));
}

bool CompiledUserFun::runsOnScalars() const {
    return impl_->scalar.has_value();
}

const std::string& CompiledUserFun::name() const {
    return impl_->name;
}

CompiledUserFun::CompiledUserFun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledUserFun::CompiledUserFun(CompiledUserFun&&) noexcept = default;
CompiledUserFun& CompiledUserFun::operator=(CompiledUserFun&&) noexcept = default;
CompiledUserFun::~CompiledUserFun() = default;

CompiledUserFun compileUserFun(const lift::Program& program, const lift::UserFunDecl& decl) {
    try {
        return CompiledUserFun::compile(decl, program.types);
    } catch (const Error& e) {
        // A user function's C error is located in the .lift file that declared it.
        if (!e.file().empty() || !e.loc().known()) {
            throw;
        }
        throw Error(e.kind(), e.message(), program.fileName, e.loc());
    }
}

void checkUserFuns(const lift::Program& program) {
    for (const lift::UserFunDecl& decl : program.userFuns) {
        compileUserFun(program, decl);
    }
}

} // namespace egopt::interp
