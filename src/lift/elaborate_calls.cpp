// Elaboration of calls: application of callables, conversions between semantic values, and the
// named forms for sizes, types, data and user functions.
#include "elaborate.hpp"

namespace egopt::lift::detail {

namespace {

const char* kindName(Val::Kind k) {
    switch (k) {
    case Val::Kind::Size:
        return "a size";
    case Val::Kind::Type:
        return "a type";
    case Val::Kind::Expr:
        return "a data expression";
    case Val::Kind::Fun:
        return "a function";
    case Val::Kind::String:
        return "a string";
    case Val::Kind::List:
        return "a list";
    case Val::Kind::Boundary:
        return "a pad boundary";
    case Val::Kind::Partial:
        return "a pattern that still needs its function argument";
    case Val::Kind::Macro:
        return "a def with parameters";
    case Val::Kind::Unbound:
        return "an undefined name";
    }
    return "a value";
}

std::string expected(const char* what, const char* context, const Val& found) {
    return std::string("expected ") + what + " " + context + ", found " + kindName(found.kind);
}

// Lift accepts a C body with or without its outer braces ("return x;" or "{ return x; }"), and
// with preprocessor lines before them (#define ...); the kernel and the interpreter want one
// block, so anything but a single braced block is wrapped in one (a directive keeps its own
// line).
std::string bracedBody(const std::string& body) {
    size_t first = body.find_first_not_of(" \t\r\n");
    size_t last = body.find_last_not_of(" \t\r\n");
    if (first == std::string::npos) {
        return "{ }";
    }
    if (body[first] == '{' && body[last] == '}') {
        // One block unless its first brace closes before the end: "{ a } { b }" is two.
        int depth = 0;
        size_t i = first;
        for (; i <= last; ++i) {
            depth += body[i] == '{' ? 1 : body[i] == '}' ? -1 : 0;
            if (depth == 0) {
                break;
            }
        }
        if (i == last) {
            return body;
        }
    }
    return (body[first] == '#' ? "{\n" : "{ ") + body + "\n}";
}

} // namespace

// ---------------------------------------------------------------- values and conversions

Val Elaborator::funVal(NodeId n, SourceLoc loc) const {
    Val v;
    v.kind = Val::Kind::Fun;
    v.fun.node = n;
    v.loc = loc;
    return v;
}
Val Elaborator::exprVal(NodeId n, SourceLoc loc) const {
    Val v;
    v.kind = Val::Kind::Expr;
    v.node = n;
    v.loc = loc;
    return v;
}
Val Elaborator::sizeVal(arith::Size s, SourceLoc loc) const {
    Val v;
    v.kind = Val::Kind::Size;
    v.size = std::move(s);
    v.loc = loc;
    return v;
}
Val Elaborator::typeVal(TypeId t, SourceLoc loc) const {
    Val v;
    v.kind = Val::Kind::Type;
    v.type = t;
    v.loc = loc;
    return v;
}

arith::Size Elaborator::sizeVariable(const std::string& name) {
    usedSizeVars_.insert(name);
    return arith::Size::var(name);
}

arith::Size Elaborator::asSize(const Val& v, SourceLoc loc, const char* what) const {
    if (v.kind == Val::Kind::Unbound) { // an implicit size variable, as in Lift's printed form
        usedSizeVars_.insert(v.text);
        implicitSizeVars_.emplace(v.text, v.loc);
        return arith::Size::var(v.text);
    }
    if (v.kind != Val::Kind::Size) {
        fail(loc, expected("a size (an integer, a SizeVar or size arithmetic)", what, v));
    }
    return v.size;
}

int64_t Elaborator::asConstant(const Val& v, SourceLoc loc, const char* what) const {
    auto c = asSize(v, loc, what).constant();
    if (!c) {
        fail(loc, std::string("expected an integer constant ") + what + ", found the size " +
                      v.size.toString());
    }
    return *c;
}

TypeId Elaborator::asType(const Val& v, SourceLoc loc, const char* what) const {
    if (v.kind == Val::Kind::Unbound) {
        failUnknownName(v);
    }
    if (v.kind != Val::Kind::Type) {
        fail(loc, expected("a type (Float, ArrayType(Float, N), ...)", what, v));
    }
    return v.type;
}

NodeId Elaborator::asExpr(const Val& v, SourceLoc loc, const char* what) {
    if (v.kind == Val::Kind::Unbound) {
        failUnknownName(v);
    }
    // Lift's implicit conversion IntToValue: an integer where data is expected is an Int value
    // (`Reduce(addI, 0)`, `addI(x, 3)`). A size variable has no such conversion.
    if (v.kind == Val::Kind::Size) {
        if (std::optional<int64_t> c = v.size.constant()) {
            return program_.addLiteral(program_.types.intType(), std::to_string(*c), v.loc);
        }
    }
    if (v.kind != Val::Kind::Expr) {
        fail(loc, expected("a data expression", what, v));
    }
    return v.node;
}

const std::string& Elaborator::asString(const Val& v, SourceLoc loc, const char* what) const {
    if (v.kind == Val::Kind::Unbound) {
        failUnknownName(v);
    }
    if (v.kind != Val::Kind::String) {
        fail(loc, expected("a string", what, v));
    }
    return v.text;
}

NodeId Elaborator::asFunction(const Val& given, SourceLoc loc, const char* what) {
    if (given.kind == Val::Kind::Unbound) {
        failUnknownName(given);
    }
    Val v = asFunctionValue(given);
    if (v.kind == Val::Kind::Partial && v.text != "Pad" && v.text != "Boundary") {
        fail(loc, std::string("expected a function ") + what + ", found " + v.text +
                      "(...) without its function argument: write " + v.text + "(...)(f)");
    }
    if (v.kind != Val::Kind::Fun) {
        fail(loc, expected("a function", what, v));
    }
    return materialize(v.fun, loc);
}

NodeId Elaborator::node(Op op, int32_t ival, std::vector<NodeId> children,
                        std::vector<arith::Size> sizes, SourceLoc loc) {
    return program_.add(op, ival, children, sizes, loc);
}

void Elaborator::expectArgs(SyntaxId site, const Args& args, size_t min, size_t max,
                            const std::string& what) const {
    if (args.size() < min || args.size() > max) {
        std::string count =
            min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
        failAt(site, "expected " + count + " argument" + (max == 1 ? "" : "s") + " for " + what +
                         ", found " + std::to_string(args.size()));
    }
}

// ---------------------------------------------------------------- callables

NodeId Elaborator::materialize(const Callable& c, SourceLoc loc) {
    if (c.kind == Callable::Kind::Node) {
        return c.node;
    }
    // A composition or a function with bound arguments becomes a one-parameter lambda.
    NodeId p = program_.addParam("x" + std::to_string(program_.params.size()), kNoType, loc);
    NodeId body = applyCallable(c, {p}, loc);
    return program_.lambda(std::vector{p}, body, loc);
}

NodeId Elaborator::applyCallable(const Callable& c, std::vector<NodeId> args, SourceLoc loc) {
    switch (c.kind) {
    case Callable::Kind::Node:
        return program_.apply(c.node, args, loc);
    case Callable::Kind::Bound: {
        std::vector<NodeId> all = c.bound;
        all.insert(all.end(), args.begin(), args.end());
        return program_.apply(c.node, all, loc);
    }
    case Callable::Kind::Compose: {
        NodeId result = kNoNode;
        for (size_t i = c.parts.size(); i-- > 0;) {
            result = applyCallable(c.parts[i], result == kNoNode ? args : std::vector{result}, loc);
        }
        return result;
    }
    }
    return kNoNode;
}

// ---------------------------------------------------------------- calls

Val Elaborator::call(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    Args args(s.children.begin() + 1, s.children.end());
    const Syntax& callee = file_.at(s.children[0]);
    if (callee.kind == SyntaxKind::Name && !envHas(env, callee.text)) {
        bool handled = false;
        Val v = namedForm(callee.text, id, args, env, handled);
        if (handled) {
            return v;
        }
    }
    if (callee.kind == SyntaxKind::Field && callee.text == "getLength" &&
        file_.at(callee.children[0]).kind == SyntaxKind::Name &&
        file_.at(callee.children[0]).text == "Type" && !envHas(env, "Type")) {
        expectArgs(id, args, 1, 1, "Type.getLength(type)");
        Val t = eval(args[0], env);
        TypeId type = asType(t, t.loc, "as the argument of Type.getLength");
        if (program_.types.kind(type) != TypeKind::Array) {
            failAt(args[0],
                   "expected an array type in Type.getLength, found " + program_.types.show(type));
        }
        return sizeVal(program_.types.at(type).length, s.loc);
    }
    if (callee.kind == SyntaxKind::Field && (callee.text == "at" || callee.text == "vectorize")) {
        Val obj = eval(callee.children[0], env);
        expectArgs(id, args, 1, 1, "." + callee.text);
        Val arg = eval(args[0], env);
        if (callee.text == "at") {
            NodeId x = asExpr(obj, obj.loc, "before .at(i)");
            arith::Size i = asSize(arg, arg.loc, "as the index of .at(i)");
            return exprVal(program_.apply(node(Op::At, 0, {}, {i}, s.loc), std::vector{x}, s.loc),
                           s.loc);
        }
        NodeId f = asFunction(obj, obj.loc, "before .vectorize(n)");
        arith::Size w = asSize(arg, arg.loc, "as the vector width of .vectorize(n)");
        return funVal(node(Op::VectorizeUserFun, 0, {f}, {w}, s.loc), s.loc);
    }
    Val f = eval(s.children[0], env);
    return applyValue(f, id, args, env);
}

Val Elaborator::applyValue(const Val& callee, SyntaxId site, const Args& args, const EnvPtr& env) {
    if (callee.kind == Val::Kind::Partial) {
        return completePartial(callee, site, args, env);
    }
    if (callee.kind == Val::Kind::Macro) {
        return applyMacro(callee, site, args, env);
    }
    if (callee.kind == Val::Kind::Unbound) {
        failUnknownName(callee);
    }
    if (callee.kind != Val::Kind::Fun) {
        failAt(site, std::string("cannot apply ") + kindName(callee.kind) +
                         ": expected a function before '('");
    }
    std::vector<NodeId> data;
    for (SyntaxId a : args) {
        Val v = eval(a, env);
        data.push_back(asExpr(v, v.loc, "as a function argument"));
    }
    return exprVal(applyCallable(callee.fun, std::move(data), locOf(site)), locOf(site));
}

Val Elaborator::namedForm(const std::string& name, SyntaxId site, const Args& args,
                          const EnvPtr& env, bool& handled) {
    handled = true;
    if (name == "fun") {
        return lambdaForm(site, args, env);
    }
    if (name == "UserFun") {
        return userFunForm(site, args, env);
    }
    if (auto v = typeOrSizeForm(name, site, args, env)) {
        return *v;
    }
    if (auto v = dataForm(name, site, args, env)) {
        return *v;
    }
    if (auto v = patternForm(name, site, args, env)) {
        return *v;
    }
    if (auto v = derivedForm(name, site, args, env)) {
        return *v;
    }
    handled = false;
    return {};
}

Val Elaborator::lambdaForm(SyntaxId site, const Args& args, const EnvPtr& env) {
    if (args.empty() || file_.at(args.back()).kind != SyntaxKind::Lambda) {
        failAt(site, "expected a lambda as the last argument of fun: fun(x => ...) or "
                     "fun(Float, x => ...)");
    }
    std::vector<TypeId> declared;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
        Val t = eval(args[i], env);
        declared.push_back(asType(t, t.loc, "as a parameter type of fun"));
    }
    return lambdaSyntax(args.back(), env, declared);
}

Val Elaborator::userFunForm(SyntaxId site, const Args& args, const EnvPtr& env) {
    if (auto it = userFunBySyntax_.find(site); it != userFunBySyntax_.end()) {
        return funVal(program_.refUserFun(it->second, locOf(site)), locOf(site));
    }
    expectArgs(site, args, 5, 5,
               "UserFun(name, parameter names, C body, parameter types, return type)");
    UserFunDecl decl;
    Val nameV = eval(args[0], env);
    decl.name = asString(nameV, nameV.loc, "as the user function's name");
    Val params = eval(args[1], env);
    Val body = eval(args[2], env);
    decl.body = bracedBody(asString(body, body.loc, "as the user function's C body"));
    SyntaxId bodySyntax = args[2];
    while (file_.at(bodySyntax).kind == SyntaxKind::Field) { // "...".stripMargin
        bodySyntax = file_.at(bodySyntax).children[0];
    }
    decl.loc = file_.at(bodySyntax).loc;
    Val types = eval(args[3], env);
    Val ret = eval(args[4], env);
    decl.returnType = asType(ret, ret.loc, "as the user function's return type");
    auto each = [](const Val& v) { return v.kind == Val::Kind::List ? v.list : std::vector{v}; };
    for (const Val& p : each(params)) {
        decl.paramNames.push_back(asString(p, p.loc, "as a parameter name"));
    }
    for (const Val& t : each(types)) {
        decl.paramTypes.push_back(asType(t, t.loc, "as a parameter type"));
    }
    if (decl.paramNames.size() != decl.paramTypes.size()) {
        failAt(args[3], "expected " + std::to_string(decl.paramNames.size()) +
                            " parameter types (one per parameter name), found " +
                            std::to_string(decl.paramTypes.size()));
    }
    if (decl.name.empty()) {
        failAt(args[0], "expected a non-empty user function name");
    }
    NodeId ref = program_.addUserFun(std::move(decl), locOf(site));
    uint32_t index = static_cast<uint32_t>(program_.userFuns.size() - 1);
    userFunBySyntax_[site] = index;
    return funVal(ref, locOf(site));
}

} // namespace egopt::lift::detail
