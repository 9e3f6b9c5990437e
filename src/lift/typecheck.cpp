// The type checker's driver: expressions, applications, lambdas and user functions. Patterns
// are typed by the shared rule (pattern_typing.hpp), to which this checker is a TypingSite.
#include "egopt/lift/pattern_typing.hpp"
#include "egopt/lift/patterns.hpp"
#include "pattern_checks.hpp"
#include "typecheck_impl.hpp"

#include <vector>

namespace egopt::lift {

namespace detail {

namespace {

// Each level of nesting costs a few stack frames; deeper programs are rejected with an error
// instead of overflowing the stack (generated or fuzzed inputs can nest arbitrarily).
constexpr int kMaxTypingDepth = 2000;
// Shared subterms are re-typed at every use (their types can depend on the enclosing bindings);
// a DAG built to share heavily could make that exponential, so the total work is bounded.
constexpr int64_t kMaxSteps = 10'000'000;

} // namespace

struct TypeChecker::DepthGuard {
    DepthGuard(TypeChecker& checker, NodeId at) : checker_(checker) {
        if (++checker_.depth_ > kMaxTypingDepth) {
            checker_.failAt(at, "program nested too deeply to type-check (more than " +
                                    std::to_string(kMaxTypingDepth) + " levels)");
        }
        if (++checker_.steps_ > kMaxSteps) {
            checker_.failAt(at, "program too large to type-check (more than " +
                                    std::to_string(kMaxSteps) + " steps)");
        }
    }
    ~DepthGuard() { --checker_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

private:
    TypeChecker& checker_;
};

TypeChecker::TypeChecker(Program& program) : program_(program), types_(program.types) {
    info_.nodeTypes.assign(program.numNodes(), kNoType);
    info_.paramTypes.assign(program.params.size(), kNoType);
    bound_.assign(program.params.size(), kNoType);
}

TypeInfo TypeChecker::run() {
    if (program_.root == kNoNode || program_.root >= program_.numNodes()) {
        badInput("the program has no top-level function", program_.fileName);
    }
    NodeId root = program_.root;
    if (program_.op(root) != Op::Lambda) {
        failAt(root, "the program must be a function fun(types..., (params...) => body), found " +
                         describe(root));
    }
    checkLambdaShape(root);
    for (NodeId param : program_.lambdaParams(root)) {
        const ParamInfo& p = paramOf(param);
        if (p.declaredType == kNoType) {
            failAt(param,
                   "parameter " + p.name + " of the top-level function has no declared type");
        }
        info_.paramTypes[program_.node(param).ival] = p.declaredType;
        bound_[program_.node(param).ival] = p.declaredType;
        info_.nodeTypes[param] = p.declaredType;
    }
    info_.resultType = typeOfExpr(program_.lambdaBody(root));
    info_.nodeTypes[root] = info_.resultType;
    return std::move(info_);
}

TypeId TypeChecker::typeOfExpr(NodeId expr) {
    DepthGuard guard(*this, expr);
    const Node& n = program_.node(expr);
    TypeId result = kNoType;
    switch (n.op) {
    case Op::Param: {
        const ParamInfo& p = paramOf(expr);
        result = bound_.at(n.ival);
        if (result == kNoType) {
            failAt(expr, "parameter " + p.name + " is used outside the function that binds it");
        }
        break;
    }
    case Op::Literal:
        if (n.ival < 0 || static_cast<size_t>(n.ival) >= program_.literals.size() ||
            program_.literals[n.ival].type == kNoType) {
            failAt(expr, "invalid literal (no declared type)");
        }
        result = program_.literals[n.ival].type;
        break;
    case Op::Generate:
        result = typeGenerate(expr);
        break;
    case Op::Apply: {
        auto children = program_.children(expr);
        if (children.empty()) {
            failAt(expr, "a function application without a function");
        }
        std::vector<TypeId> args;
        args.reserve(children.size() - 1);
        for (size_t i = 1; i < children.size(); ++i) {
            args.push_back(typeOfExpr(children[i]));
        }
        NodeId fun = children[0];
        if (isExpression(program_.op(fun))) {
            failAt(expr, "cannot apply a value of type " + show(typeOfExpr(fun)) +
                             ": it is not a function");
        }
        result = applyFunction({fun, expr}, args);
        break;
    }
    default:
        failAt(expr, "expected a value, found the function " + describe(expr) +
                         " (it must be applied to arguments)");
    }
    info_.nodeTypes[expr] = result;
    return result;
}

// f(i, j, ..., n_i, n_j, ...) with Int indices and lengths; the array of its results.
TypeId TypeChecker::typeGenerate(NodeId expr) {
    const Node& n = program_.node(expr);
    auto kids = program_.children(expr);
    auto lengths = program_.sizes(expr);
    if (kids.size() != 1 || program_.op(kids[0]) != Op::UserFun ||
        lengths.size() != static_cast<size_t>(n.ival)) {
        failAt(expr, "a malformed array generator");
    }
    const UserFunDecl& f = program_.userFuns.at(static_cast<size_t>(program_.node(kids[0]).ival));
    size_t want = 2 * lengths.size();
    bool ints = f.paramTypes.size() == want;
    for (size_t i = 0; ints && i < want; ++i) {
        ints = f.paramTypes[i] == types_.scalar(ScalarKind::Int);
    }
    if (!ints) {
        failAt(expr, "the generator " + f.name + " must take " + std::to_string(want) +
                         " Int parameters (the indices, then the lengths), found " +
                         std::to_string(f.paramTypes.size()) + " parameters");
    }
    TypeId t = f.returnType;
    for (size_t d = lengths.size(); d-- > 0;) {
        t = types_.array(t, lengths[d]);
    }
    return t;
}

TypeId TypeChecker::applyFunction(CallSite site, std::span<const TypeId> args) {
    DepthGuard guard(*this, site.fun);
    TypeId result = kNoType;
    switch (program_.op(site.fun)) {
    case Op::Lambda:
        result = applyLambda(site, args);
        break;
    case Op::UserFun:
        result = applyUserFun(site, args);
        break;
    default:
        result = applyPattern(site, args);
        break;
    }
    info_.nodeTypes[site.fun] = result;
    return result;
}

TypeId TypeChecker::applyLambda(CallSite site, std::span<const TypeId> args) {
    checkLambdaShape(site.fun);
    auto params = program_.lambdaParams(site.fun);
    if (params.size() != args.size()) {
        fail(site, describe(site.fun) + " takes " + plural(params.size(), "argument") +
                       ", but is applied to " + std::to_string(args.size()));
    }
    // Bindings are scoped: after the body, the parameters are unbound again (or rebound to
    // an enclosing binding), so a parameter used outside its lambda is reported.
    std::vector<TypeId> saved;
    for (size_t i = 0; i < params.size(); ++i) {
        const ParamInfo& p = paramOf(params[i]);
        if (p.declaredType != kNoType) {
            expectEqual(site, i, p.declaredType, args[i]);
        }
        auto index = static_cast<size_t>(program_.node(params[i]).ival);
        saved.push_back(bound_[index]);
        bound_[index] = args[i];
        info_.paramTypes[index] = args[i];
        info_.nodeTypes[params[i]] = args[i];
    }
    TypeId result = typeOfExpr(program_.lambdaBody(site.fun));
    for (size_t i = 0; i < params.size(); ++i) {
        bound_[static_cast<size_t>(program_.node(params[i]).ival)] = saved[i];
    }
    return result;
}

TypeId TypeChecker::applyUserFun(CallSite site, std::span<const TypeId> args) {
    int32_t index = program_.node(site.fun).ival;
    if (index < 0 || static_cast<size_t>(index) >= program_.userFuns.size()) {
        fail(site, "reference to an undeclared user function");
    }
    const UserFunDecl& decl = program_.userFuns[static_cast<size_t>(index)];
    // As in Lift, a user function of several parameters applied to one tuple (Map(mult) $
    // Zip(xs, ys)) takes the tuple's fields as its arguments.
    if (decl.paramTypes.size() > 1 && args.size() == 1 && types_.kind(args[0]) == TypeKind::Tuple &&
        types_.at(args[0]).elems.size() == decl.paramTypes.size()) {
        expectEqual(site, 0, types_.tuple(decl.paramTypes), args[0]);
        return decl.returnType;
    }
    expectArgCount(site, args, decl.paramTypes.size());
    for (size_t i = 0; i < args.size(); ++i) {
        expectEqual(site, i, decl.paramTypes[i], args[i]);
    }
    return decl.returnType;
}

// The checker as the pattern rule's TypingSite: nested functions are typed where they are
// applied (so their nodes get types), errors are located at the pattern.
class TypeChecker::Site final : public TypingSite {
public:
    Site(TypeChecker& checker, CallSite site)
        : checker_(checker), site_(site), children_(checker.program_.children(site.fun)) {}

    TypeArena& types() override { return checker_.types_; }
    TypeId applyChild(size_t i, std::span<const TypeId> args) override {
        return checker_.applyFunction({children_[i], site_.apply}, args);
    }
    TypeId childValueType(size_t i) override { return checker_.typeOfExpr(children_[i]); }
    bool childIsFunction(size_t i) const override {
        return !isExpression(checker_.program_.op(children_[i]));
    }
    std::string describe() const override { return checker_.describe(site_.fun); }
    std::string describeChild(size_t i) const override { return checker_.describe(children_[i]); }
    [[noreturn]] void fail(const std::string& message) const override {
        checker_.fail(site_, message);
    }

private:
    TypeChecker& checker_;
    CallSite site_;
    std::span<const NodeId> children_;
};

TypeId TypeChecker::applyPattern(CallSite site, std::span<const TypeId> args) {
    const Node& n = program_.node(site.fun);
    PatternUse use{n.op, n.ival, program_.sizes(site.fun), program_.children(site.fun).size()};
    Site typing(*this, site);
    return typePattern(typing, use, args);
}

// ---------------------------------------------------------------- helpers

void TypeChecker::fail(CallSite site, const std::string& message) const {
    SourceLoc loc = program_.node(site.fun).loc;
    if (!loc.known() && site.apply != kNoNode) {
        loc = program_.node(site.apply).loc;
    }
    throw Error(ErrorKind::BadInput, message, program_.fileName, loc);
}

void TypeChecker::failAt(NodeId node, const std::string& message) const {
    throw Error(ErrorKind::BadInput, message, program_.fileName, program_.node(node).loc);
}

// Used while reporting errors, so it must not throw on ill-formed nodes itself.
std::string TypeChecker::describe(NodeId fun) const {
    const Node& n = program_.node(fun);
    auto valid = [&](size_t size) { return n.ival >= 0 && static_cast<size_t>(n.ival) < size; };
    switch (n.op) {
    case Op::UserFun:
        return "user function " + (valid(program_.userFuns.size()) ? program_.userFuns[n.ival].name
                                                                   : std::string("<undeclared>"));
    case Op::Lambda: {
        std::string names;
        auto children = program_.children(fun);
        for (size_t i = 0; i + 1 < children.size(); ++i) {
            const Node& p = program_.node(children[i]);
            bool ok = p.op == Op::Param && p.ival >= 0 &&
                      static_cast<size_t>(p.ival) < program_.params.size();
            names += (i ? ", " : "") + (ok ? program_.params[p.ival].name : std::string("?"));
        }
        return "fun((" + names + ") => ...)";
    }
    case Op::Param:
        return "parameter " +
               (valid(program_.params.size()) ? program_.params[n.ival].name : std::string("?"));
    case Op::Literal:
        return "literal " + (valid(program_.literals.size()) ? program_.literals[n.ival].text
                                                             : std::string("?"));
    case Op::Apply:
        return "an application";
    default:
        break;
    }
    return describePattern(n.op, n.ival, program_.sizes(fun));
}

void TypeChecker::expectArgCount(CallSite site, std::span<const TypeId> args,
                                 size_t expected) const {
    if (args.size() != expected) {
        fail(site, describe(site.fun) + " takes " + plural(expected, "argument") +
                       ", but is applied to " + std::to_string(args.size()));
    }
}

void TypeChecker::expectEqual(CallSite site, size_t index, TypeId expected, TypeId found) const {
    if (expected != found) {
        fail(site, "argument " + std::to_string(index + 1) + " of " + describe(site.fun) +
                       ": expected " + show(expected) + ", found " + show(found));
    }
}

void TypeChecker::checkLambdaShape(NodeId lambda) const {
    auto children = program_.children(lambda);
    if (children.empty()) {
        failAt(lambda, "ill-formed function: it has no body");
    }
    for (size_t i = 0; i + 1 < children.size(); ++i) {
        if (program_.op(children[i]) != Op::Param) {
            failAt(lambda, "ill-formed function: parameter " + std::to_string(i + 1) +
                               " is not a parameter name");
        }
        paramOf(children[i]);
    }
}

const ParamInfo& TypeChecker::paramOf(NodeId param) const {
    int32_t index = program_.node(param).ival;
    if (index < 0 || static_cast<size_t>(index) >= program_.params.size()) {
        failAt(param, "reference to an undeclared parameter");
    }
    return program_.params[static_cast<size_t>(index)];
}

} // namespace detail

TypeInfo typecheck(Program& program) {
    return detail::TypeChecker(program).run();
}

std::string showSignature(const Program& program, const TypeInfo& info) {
    std::string out = "(";
    if (program.root < program.numNodes() && program.op(program.root) == Op::Lambda &&
        !program.children(program.root).empty()) {
        bool first = true;
        for (NodeId p : program.lambdaParams(program.root)) {
            TypeId t = info.paramTypes.at(program.node(p).ival);
            out += (first ? "" : ", ") + program.types.show(t);
            first = false;
        }
    }
    return out + ") -> " + program.types.show(info.resultType);
}

} // namespace egopt::lift
