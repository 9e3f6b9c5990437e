// Elaboration core: names, operators, fields, lambdas, and turning callables into IR.
#include "elaborate.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace egopt::lift::detail {

namespace {

// Re-elaborating bindings at each use can blow up exponentially on hostile input; these limits
// turn that (and runaway recursion) into an error.
constexpr uint32_t kMaxElaborationDepth = 1000;
constexpr size_t kMaxNodes = 500'000;

EnvPtr bind(const EnvPtr& parent, std::string name, Val value) {
    auto e = std::make_shared<Env>();
    e->name = std::move(name);
    e->value = std::move(value);
    e->parent = parent;
    return e;
}

const Env* lookup(const EnvPtr& env, const std::string& name) {
    for (const Env* e = env.get(); e != nullptr; e = e->parent.get()) {
        if (e->name == name) {
            return e;
        }
    }
    return nullptr;
}

} // namespace

struct DepthScope {
    DepthScope(Elaborator& e, SyntaxId at) : elab(e) {
        if (++elab.depth_ > kMaxElaborationDepth) {
            elab.failAt(at, "definitions nested too deeply (more than " +
                                std::to_string(kMaxElaborationDepth) + " levels)");
        }
        if (elab.program_.numNodes() > kMaxNodes) {
            elab.failAt(at, "program too large: more than " + std::to_string(kMaxNodes) +
                                " IR nodes after inlining val/def helpers");
        }
    }
    ~DepthScope() { --elab.depth_; }
    DepthScope(const DepthScope&) = delete;
    DepthScope& operator=(const DepthScope&) = delete;
    Elaborator& elab;
};

Elaborator::Elaborator(const SyntaxFile& file, Program& program) : file_(file), program_(program) {}

void Elaborator::fail(SourceLoc loc, const std::string& message) const {
    badInput(message, program_.fileName, loc);
}
void Elaborator::failAt(SyntaxId id, const std::string& message) const {
    fail(locOf(id), message);
}

void Elaborator::run() {
    EnvPtr env;
    for (size_t i = 0; i < file_.bindingNames.size(); ++i) {
        auto e = std::make_shared<Env>();
        e->name = file_.bindingNames[i];
        e->syntax = file_.bindingValues[i];
        e->scope = env;
        e->parent = env;
        env = e;
    }
    SyntaxId prog = file_.program;
    Val v = eval(prog, env);
    if (v.kind != Val::Kind::Fun || v.fun.kind != Callable::Kind::Node ||
        program_.op(v.fun.node) != Op::Lambda) {
        failAt(prog, "expected the program to be a function with typed parameters: "
                     "fun(ArrayType(Float, N), ..., (x, ...) => ...)");
    }
    for (NodeId p : program_.lambdaParams(v.fun.node)) {
        const ParamInfo& info = program_.params[static_cast<size_t>(program_.node(p).ival)];
        if (info.declaredType == kNoType) {
            fail(program_.node(p).loc, "expected a declared type for the program's parameter '" +
                                           info.name + "': fun(ArrayType(Float, N), " + info.name +
                                           " => ...)");
        }
    }
    program_.root = v.fun.node;
    for (const std::string& name : file_.sizeVarOrder) {
        if (usedSizeVars_.contains(name)) {
            program_.sizeVars.push_back(name);
        }
    }
}

Val Elaborator::eval(SyntaxId id, const EnvPtr& env) {
    DepthScope scope(*this, id);
    const Syntax& s = file_.at(id);
    switch (s.kind) {
    case SyntaxKind::Name:
        return name(id, env);
    case SyntaxKind::Int: {
        int64_t v = 0;
        try {
            v = std::stoll(s.text);
        } catch (const std::exception&) {
            failAt(id, "integer " + s.text + " is too large");
        }
        return sizeVal(arith::Size(v), s.loc);
    }
    case SyntaxKind::Float:
        return exprVal(program_.addLiteral(program_.types.floatType(), s.text, s.loc), s.loc);
    case SyntaxKind::String: {
        Val v;
        v.kind = Val::Kind::String;
        v.text = s.text;
        v.loc = s.loc;
        return v;
    }
    case SyntaxKind::Call:
        return call(id, env);
    case SyntaxKind::Lambda:
        return lambdaSyntax(id, env, {});
    case SyntaxKind::Field:
        return field(id, env);
    case SyntaxKind::Binary:
        return binary(id, env);
    case SyntaxKind::Negate:
        return negate(id, env);
    }
    failAt(id, "unsupported syntax");
}

Val Elaborator::name(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    if (const Env* e = lookup(env, s.text)) {
        if (e->value) {
            Val v = *e->value;
            v.loc = s.loc;
            return v;
        }
        Val v = eval(e->syntax, e->scope);
        v.loc = s.loc;
        return v;
    }
    return builtinName(id);
}

Val Elaborator::builtinName(SyntaxId id) {
    const Syntax& s = file_.at(id);
    if (std::string v = printedSizeVariable(s.text); !v.empty()) {
        return sizeVal(sizeVariable(v), s.loc);
    }
    if (TypeId t = namedType(s.text, program_.types); t != kNoType) {
        return typeVal(t, s.loc);
    }
    if (s.text == "reverse") {
        return funVal(node(Op::Reverse, 0, {}, {}, s.loc), s.loc);
    }
    if (auto it = userFunByName_.find(s.text); it != userFunByName_.end()) {
        return funVal(program_.refUserFun(it->second, s.loc), s.loc);
    }
    if (auto decl = builtinUserFun(s.text, program_.types)) {
        decl->loc = s.loc;
        NodeId ref = program_.addUserFun(std::move(*decl), s.loc);
        userFunByName_[s.text] = static_cast<uint32_t>(program_.userFuns.size() - 1);
        return funVal(ref, s.loc);
    }
    if (s.text == "Pad" || s.text == "Boundary") {
        Val v;
        v.kind = Val::Kind::Partial;
        v.text = s.text;
        v.loc = s.loc;
        return v;
    }
    failAt(id, "unknown name '" + s.text +
                   "': expected a parameter, a val/def defined above, a pattern, a type or a "
                   "builtin function");
}

Val Elaborator::binary(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    const std::string& op = s.text;
    static constexpr std::string_view kOperators[] = {"o", "$", "<<:", ":>>", "+",
                                                      "-", "*", "/",   "/^",  "%"};
    if (std::find(std::begin(kOperators), std::end(kOperators), op) == std::end(kOperators)) {
        failAt(id, "unknown operator '" + op + "': expected o, $, :>>, <<:, +, -, *, /, /^ or %");
    }
    Val lhs = eval(s.children[0], env);
    Val rhs = eval(s.children[1], env);
    if (op == "o") {
        NodeId f = kNoNode;
        (void)f;
        Callable c;
        c.kind = Callable::Kind::Compose;
        for (const Val* part : {&lhs, &rhs}) {
            if (part->kind != Val::Kind::Fun) {
                asFunction(*part, part->loc, "as an operand of 'o' (function composition)");
            }
            if (part->fun.kind == Callable::Kind::Compose) {
                c.parts.insert(c.parts.end(), part->fun.parts.begin(), part->fun.parts.end());
            } else {
                c.parts.push_back(part->fun);
            }
        }
        Val v = lhs;
        v.fun = std::move(c);
        v.loc = s.loc;
        return v;
    }
    if (op == "$" || op == "<<:" || op == ":>>") {
        const Val& f = op == ":>>" ? rhs : lhs;
        const Val& x = op == ":>>" ? lhs : rhs;
        if (f.kind != Val::Kind::Fun) {
            asFunction(f, f.loc, ("on the function side of '" + op + "'").c_str());
        }
        NodeId arg = asExpr(x, x.loc, ("on the data side of '" + op + "'").c_str());
        return exprVal(applyCallable(f.fun, {arg}, s.loc), s.loc);
    }
    arith::Size a = asSize(lhs, lhs.loc, ("as an operand of '" + op + "'").c_str());
    arith::Size b = asSize(rhs, rhs.loc, ("as an operand of '" + op + "'").c_str());
    auto divisor = [&]() -> const arith::Size& {
        if (b.constant() == 0) {
            failAt(s.children[1], "division by zero in a size expression");
        }
        return b;
    };
    if (op == "+") {
        return sizeVal(a + b, s.loc);
    }
    if (op == "-") {
        return sizeVal(a - b, s.loc);
    }
    if (op == "*") {
        return sizeVal(a * b, s.loc);
    }
    if (op == "/") {
        return sizeVal(floorDiv(a, divisor()), s.loc);
    }
    if (op == "/^") {
        return sizeVal(exactDiv(a, divisor()), s.loc);
    }
    if (op == "%") {
        return sizeVal(mod(a, divisor()), s.loc);
    }
    failAt(id, "unknown operator '" + op + "': expected o, $, :>>, <<:, +, -, *, /, /^ or %");
}

Val Elaborator::negate(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    Val v = eval(s.children[0], env);
    if (v.kind == Val::Kind::Size) {
        return sizeVal(-v.size, s.loc);
    }
    if (v.kind == Val::Kind::Expr && program_.op(v.node) == Op::Literal) {
        const LiteralDecl& lit = program_.literals[static_cast<size_t>(program_.node(v.node).ival)];
        std::string text = lit.text.starts_with('-') ? lit.text.substr(1) : "-" + lit.text;
        return exprVal(program_.addLiteral(lit.type, text, s.loc), s.loc);
    }
    failAt(id, "expected a number or a size after '-'");
}

Val Elaborator::field(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    Val obj = eval(s.children[0], env);
    if (s.text == "stripMargin" && obj.kind == Val::Kind::String) {
        std::string out;
        size_t pos = 0;
        while (pos <= obj.text.size()) {
            size_t end = obj.text.find('\n', pos);
            std::string line = obj.text.substr(pos, end == std::string::npos ? end : end - pos);
            size_t first = line.find_first_not_of(" \t");
            if (first != std::string::npos && line[first] == '|') {
                line = line.substr(first + 1);
            }
            out += line;
            if (end == std::string::npos) {
                break;
            }
            out += '\n';
            pos = end + 1;
        }
        obj.text = std::move(out);
        return obj;
    }
    if (obj.kind == Val::Kind::Partial && (obj.text == "Pad" || obj.text == "Boundary")) {
        if (obj.text == "Pad" && s.text == "Boundary") {
            obj.text = "Boundary";
            return obj;
        }
        static constexpr std::pair<const char*, PadBoundary> kBoundaries[] = {
            {"Clamp", PadBoundary::Clamp},
            {"Mirror", PadBoundary::Mirror},
            {"Wrap", PadBoundary::Wrap}};
        for (auto [n, b] : kBoundaries) {
            if (obj.text == "Boundary" && s.text == n) {
                Val v;
                v.kind = Val::Kind::Boundary;
                v.ival = static_cast<int32_t>(b);
                v.loc = s.loc;
                return v;
            }
        }
        failAt(id, "expected Pad.Boundary.Clamp, Pad.Boundary.Mirror or Pad.Boundary.Wrap");
    }
    if (s.text.size() >= 2 && s.text[0] == '_' &&
        s.text.find_first_not_of("0123456789", 1) == std::string::npos) {
        NodeId t = asExpr(obj, obj.loc, ("before ." + s.text).c_str());
        int32_t index = s.text.size() > 6 ? INT32_MAX : std::stoi(s.text.substr(1));
        return exprVal(program_.apply(node(Op::Get, index, {}, {}, s.loc), std::vector{t}, s.loc),
                       s.loc);
    }
    failAt(id, "unknown field or method '." + s.text +
                   "': expected ._0, ._1, ..., .at(i), .vectorize(n) or .stripMargin");
}

Val Elaborator::lambdaSyntax(SyntaxId id, const EnvPtr& env, std::span<const TypeId> declared) {
    const Syntax& s = file_.at(id);
    if (!declared.empty() && declared.size() != s.names.size()) {
        failAt(id, "expected " + std::to_string(declared.size()) + " parameter name" +
                       (declared.size() == 1 ? "" : "s") + " for the " +
                       std::to_string(declared.size()) + " declared type" +
                       (declared.size() == 1 ? "" : "s") + ", found " +
                       std::to_string(s.names.size()));
    }
    std::vector<NodeId> params;
    EnvPtr inner = env;
    for (size_t i = 0; i < s.names.size(); ++i) {
        NodeId p = program_.addParam(s.names[i], declared.empty() ? kNoType : declared[i], s.loc);
        params.push_back(p);
        inner = bind(inner, s.names[i], exprVal(p, s.loc));
    }
    Val body = eval(s.children[0], inner);
    NodeId bodyNode = asExpr(body, body.loc, "as the body of a lambda");
    return funVal(program_.lambda(params, bodyNode, s.loc), s.loc);
}

} // namespace egopt::lift::detail
