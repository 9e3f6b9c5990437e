// Elaboration core: names, lambdas, blocks, and turning callables into IR (operators and member
// calls: elaborate_operators.cpp).
#include "elaborate.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

Elaborator::Elaborator(const SyntaxFile& file, Program& program)
    : Elaborator(file, program, program.fileName) {}

Elaborator::Elaborator(const SyntaxFile& file, Program& program, std::string fileName)
    : file_(file), program_(program), fileName_(std::move(fileName)) {
    EnvPtr env;
    for (size_t i = 0; i < file_.bindingNames.size(); ++i) {
        auto e = std::make_shared<Env>();
        e->name = file_.bindingNames[i];
        e->syntax = file_.bindingValues[i];
        e->scope = env;
        e->parent = env;
        env = e;
    }
    topLevel_ = env;
}

Elaborator::~Elaborator() = default;

void Elaborator::fail(SourceLoc loc, const std::string& message) const {
    badInput(message, fileName_, loc);
}
void Elaborator::failAt(SyntaxId id, const std::string& message) const {
    fail(locOf(id), message);
}

void Elaborator::run() {
    SyntaxId prog = file_.program;
    Val v = asFunctionValue(eval(prog, topLevel_));
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
    // Size variables in order of first textual appearance, declared or implicit.
    std::vector<std::pair<SourceLoc, std::string>> order;
    for (size_t i = 0; i < file_.sizeVarOrder.size(); ++i) {
        if (usedSizeVars_.contains(file_.sizeVarOrder[i])) {
            order.emplace_back(file_.sizeVarLocs[i], file_.sizeVarOrder[i]);
        }
    }
    for (const auto& [name, loc] : implicitSizeVars_) {
        if (std::none_of(order.begin(), order.end(),
                         [&](const auto& o) { return o.second == name; })) {
            order.emplace_back(loc, name);
        }
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return std::pair(a.first.line, a.first.col) < std::pair(b.first.line, b.first.col);
    });
    for (auto& [loc, name] : order) {
        program_.sizeVars.push_back(std::move(name));
    }
}

namespace {

// A Scala number literal as C writes it: generated kernels and the C-subset interpreter read
// the text, and C has no 5f, 5d or 5.0F ("5.0f", "5.0", "5.0f").
std::string cNumber(std::string text, bool single) {
    if (!text.empty() && std::string_view("fFdD").find(text.back()) != std::string_view::npos) {
        text.pop_back();
    }
    if (text.find_first_of(".eE") == std::string::npos) {
        text += ".0";
    } else if (text.back() == '.') {
        text += "0";
    }
    return single ? text + "f" : text;
}

} // namespace

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
    case SyntaxKind::Float: {
        // As in Scala: 1.5f is a Float, 1.5 a Double (Lift's DoubleToValue).
        bool single = !s.text.empty() && (s.text.back() == 'f' || s.text.back() == 'F');
        TypeId t = single ? program_.types.floatType() : program_.types.scalar(ScalarKind::Double);
        return exprVal(program_.addLiteral(t, cNumber(s.text, single), s.loc), s.loc);
    }
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
        if (s.text == "def") {
            Val macro;
            macro.kind = Val::Kind::Macro;
            macro.syntax = id;
            macro.scope = env;
            macro.loc = s.loc;
            return macro;
        }
        return lambdaSyntax(id, env, {});
    case SyntaxKind::Block:
        return block(id, env);
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
        if (std::string v = printedSizeVariable(s.text); !v.empty() && !e->value) {
            // val v__3 = SizeVar(""): the printed form names its variables by the binding.
            const Syntax& def = file_.at(e->syntax);
            if (def.kind == SyntaxKind::Call &&
                file_.at(def.children[0]).kind == SyntaxKind::Name &&
                (file_.at(def.children[0]).text == "SizeVar" ||
                 file_.at(def.children[0]).text == "Var")) {
                return sizeVal(sizeVariable(v), s.loc);
            }
        }
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
    if (auto v = libraryName(s.text, s.loc)) {
        return *v;
    }
    if (s.text == "Pad" || s.text == "Boundary") {
        Val v;
        v.kind = Val::Kind::Partial;
        v.text = s.text;
        v.loc = s.loc;
        return v;
    }
    // Lift's printed programs use size variables without declaring them (ArrayType(Float, M)):
    // the name becomes one where a size is expected, and is an error anywhere else.
    Val v;
    v.kind = Val::Kind::Unbound;
    v.text = s.text;
    v.loc = s.loc;
    return v;
}

void Elaborator::failUnknownName(const Val& v) const {
    // Lift's patterns whose result length depends on the data: named, so that a program using
    // one learns that egopt lacks it rather than that it misspelt it.
    static constexpr std::pair<const char*, const char*> kLiftOnly[] = {
        {"FilterSeq", "a filter whose result length depends on the data"}};
    for (auto [name, what] : kLiftOnly) {
        if (v.text == name) {
            fail(v.loc, "Lift's " + v.text + " (" + what + ") is not supported by egopt");
        }
    }
    fail(v.loc, "unknown name '" + v.text +
                    "': expected a parameter, a val/def defined above, a pattern, a type, a size "
                    "variable or a function of Lift's standard library");
}

// A name from Lift's standard user functions, elaborated once by a second elaborator over the
// library's text, so aliases there (val max = maxf) share one declaration.
std::optional<Val> Elaborator::libraryName(const std::string& name, SourceLoc loc) {
    const SyntaxFile& lib = stdlibSyntax();
    if (&file_ == &lib || std::find(lib.bindingNames.begin(), lib.bindingNames.end(), name) ==
                              lib.bindingNames.end()) {
        return std::nullopt;
    }
    if (!library_) {
        library_ = std::make_unique<Elaborator>(lib, program_, kStdlibFileName);
    }
    Val v = library_->eval(library_->file_.bindingValues[static_cast<size_t>(
                               std::find(lib.bindingNames.begin(), lib.bindingNames.end(), name) -
                               lib.bindingNames.begin())],
                           library_->topLevel_);
    if (v.kind == Val::Kind::Fun && v.fun.kind == Callable::Kind::Node &&
        program_.op(v.fun.node) == Op::UserFun) {
        auto index = static_cast<uint32_t>(program_.node(v.fun.node).ival);
        program_.userFuns[index].builtin = true;
        userFunByName_[name] = index;
        return funVal(program_.refUserFun(index, loc), loc);
    }
    v.loc = loc;
    return v;
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

namespace egopt::lift::detail {

// { val a = e1; def f(x) = e2; result }: the bindings are visible to later ones and to the
// result, and are elaborated at each use like top-level ones.
Val Elaborator::block(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    EnvPtr inner = env;
    for (size_t i = 0; i < s.names.size(); ++i) {
        auto e = std::make_shared<Env>();
        e->name = s.names[i];
        e->syntax = s.children[i];
        e->scope = inner;
        e->parent = inner;
        inner = e;
    }
    return eval(s.children.back(), inner);
}

// def f(x, y) = e applied to arguments: e in f's environment with x, y bound to the arguments'
// values (data, functions, sizes or types alike).
Val Elaborator::applyMacro(const Val& macro, SyntaxId site, const Args& args, const EnvPtr& env) {
    const Syntax& def = file_.at(macro.syntax);
    if (args.size() != def.names.size()) {
        failAt(site, "expected " + std::to_string(def.names.size()) + " argument" +
                         (def.names.size() == 1 ? "" : "s") + " for this def, found " +
                         std::to_string(args.size()));
    }
    EnvPtr inner = macro.scope;
    for (size_t i = 0; i < args.size(); ++i) {
        inner = bind(inner, def.names[i], eval(args[i], env));
    }
    Val v = eval(def.children[0], inner);
    v.loc = locOf(site);
    return v;
}

Val Elaborator::asFunctionValue(const Val& v) {
    if (v.kind != Val::Kind::Macro) {
        return v;
    }
    const Syntax& def = file_.at(v.syntax);
    std::vector<NodeId> params;
    EnvPtr inner = v.scope;
    for (const std::string& name : def.names) {
        NodeId p = program_.addParam(name, kNoType, v.loc);
        params.push_back(p);
        inner = bind(inner, name, exprVal(p, v.loc));
    }
    Val body = eval(def.children[0], inner);
    if (body.kind == Val::Kind::Fun && params.empty()) {
        return body;
    }
    NodeId bodyNode = asExpr(body, body.loc, "as the result of a def used as a function");
    return funVal(program_.lambda(params, bodyNode, v.loc), v.loc);
}

} // namespace egopt::lift::detail
