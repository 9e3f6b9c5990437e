// Patterns: ?x class variables, #n size variables, Lift pattern names with their arguments,
// fun(x => ...) lambdas, and application `F $ x` / `F $ (x, y)` (right-associative).
#include "parser.hpp"

#include <array>

namespace egopt::rules::detail {

using egraph::PatId;
using egraph::PatNode;
using lift::Op;

namespace {

// Argument kinds of each pattern in rule syntax: f = nested function, s = size, i = integer.
struct OpSyntax {
    Op op;
    const char* kinds;
};

// clang-format off
constexpr std::array kSyntax = {
    OpSyntax{Op::Map, "f"},           OpSyntax{Op::MapSeq, "f"},
    OpSyntax{Op::MapGlb, "if"},       OpSyntax{Op::MapWrg, "if"},
    OpSyntax{Op::MapLcl, "if"},       OpSyntax{Op::MapVec, "f"},
    OpSyntax{Op::Reduce, "f"},        OpSyntax{Op::ReduceSeq, "f"},
    OpSyntax{Op::PartRed, "fs"},      OpSyntax{Op::Iterate, "sf"},
    OpSyntax{Op::ToGlobal, "f"},      OpSyntax{Op::ToLocal, "f"},
    OpSyntax{Op::ToPrivate, "f"},     OpSyntax{Op::Gather, "f"},
    OpSyntax{Op::Scatter, "f"},       OpSyntax{Op::VectorizeUserFun, "sf"},
    OpSyntax{Op::ReorderStride, "s"}, OpSyntax{Op::Reverse, ""},
    OpSyntax{Op::Shift, "s"},         OpSyntax{Op::Split, "s"},
    OpSyntax{Op::Join, ""},           OpSyntax{Op::Transpose, ""},
    OpSyntax{Op::TransposeW, ""},     OpSyntax{Op::Zip, ""},
    OpSyntax{Op::Unzip, ""},          OpSyntax{Op::Tuple, ""},
    OpSyntax{Op::Get, "i"},           OpSyntax{Op::AsVector, "s"},
    OpSyntax{Op::AsScalar, ""},       OpSyntax{Op::Slide, "ss"},
    OpSyntax{Op::Pad, "ssi"},         OpSyntax{Op::At, "s"},
    OpSyntax{Op::Filter, ""},         OpSyntax{Op::Id, ""},
    OpSyntax{Op::Reorder, ""},        OpSyntax{Op::ScanSeq, "f"},
    OpSyntax{Op::ReduceWhileSeq, "ff"}, OpSyntax{Op::InsertionSortSeq, "f"},
};
// clang-format on

const OpSyntax* findOp(const std::string& name) {
    for (const OpSyntax& s : kSyntax) {
        std::string n(lift::opName(s.op));
        // Lift's spelling (toGlobal, asVector) or capitalized (ToGlobal, AsVector).
        if (n == name || (!n.empty() && name.size() == n.size() && name.substr(1) == n.substr(1) &&
                          std::toupper(n[0]) == name[0])) {
            return &s;
        }
    }
    return nullptr;
}

} // namespace

bool isPatternName(const std::string& name) {
    return findOp(name) != nullptr;
}

egraph::Pattern Parser::parsePattern(bool lhs) {
    egraph::Pattern p;
    pat_ = &p;
    lhs_ = lhs;
    scope_.clear();
    p.root = parseApp();
    pat_ = nullptr;
    return p;
}

PatId Parser::addNode(PatNode n) {
    n.depth = static_cast<int32_t>(scope_.size());
    pat_->nodes.push_back(std::move(n));
    return static_cast<PatId>(pat_->nodes.size() - 1);
}

PatId Parser::parseApp() {
    SourceLoc loc = peek().loc;
    return applyArgs(parsePrim(), loc);
}

// `f $ args` when a '$' follows f, else f: the arguments are one application or a parenthesized
// list. A parenthesized single argument may itself be applied (F $ (G) $ x applies F to G $ x);
// deciding that after the ')' rather than by parsing the parentheses again keeps nested
// `F $ (G $ (H $ ...))` linear.
PatId Parser::applyArgs(PatId f, SourceLoc loc) {
    if (!is("$")) {
        return f;
    }
    take();
    std::vector<PatId> args;
    if (is("(")) {
        SourceLoc inner = peek().loc;
        take();
        args.push_back(parseApp());
        while (is(",")) {
            take();
            args.push_back(parseApp());
        }
        expect(")");
        if (args.size() == 1) {
            args[0] = applyArgs(args[0], inner);
        }
    } else {
        args.push_back(parseApp());
    }
    PatNode& fn = pat_->nodes[f];
    if (fn.kind == PatNode::Kind::Node && (fn.op == Op::Zip || fn.op == Op::Tuple)) {
        fn.ival = static_cast<int32_t>(args.size());
    }
    PatNode app;
    app.op = Op::Apply;
    app.loc = loc;
    app.children.push_back(f);
    app.children.insert(app.children.end(), args.begin(), args.end());
    return addNode(std::move(app));
}

PatId Parser::parsePrim() {
    const Token& t = take();
    if (t.text == "(" && t.kind == Token::Kind::Punct) {
        PatId inner = parseApp();
        expect(")");
        return inner;
    }
    if (t.text == "?" && t.kind == Token::Kind::Punct) {
        const Token& name = take();
        if (name.kind != Token::Kind::Ident) {
            fail("expected a variable name after '?'", name.loc);
        }
        std::string var = "?" + name.text;
        auto it = std::find(vars_.names.begin(), vars_.names.end(), var);
        if (it == vars_.names.end()) {
            if (!lhs_) {
                pendingVars_.emplace_back(var, name.loc); // bound by `where` or an error
            }
            vars_.names.push_back(var);
            it = vars_.names.end() - 1;
        }
        PatNode n;
        n.kind = PatNode::Kind::ClassVar;
        n.slot = static_cast<uint32_t>(it - vars_.names.begin());
        n.loc = t.loc;
        return addNode(std::move(n));
    }
    if (t.kind != Token::Kind::Ident) {
        fail("expected a pattern, found '" + t.text + "'", t.loc);
    }
    if (t.text == "fun") {
        return parseLambda(t.loc);
    }
    for (size_t i = scope_.size(); i-- > 0;) {
        if (scope_[i] == t.text) {
            PatNode n;
            n.kind = PatNode::Kind::BoundVar;
            n.ival = static_cast<int32_t>(scope_.size() - 1 - i);
            n.loc = t.loc;
            return addNode(std::move(n));
        }
    }
    return parseOp(t);
}

PatId Parser::parseLambda(SourceLoc loc) {
    expect("(");
    std::vector<std::string> names;
    bool parens = is("(");
    if (parens) {
        take();
    }
    do {
        if (!names.empty()) {
            take(); // ','
        }
        const Token& n = take();
        if (n.kind != Token::Kind::Ident) {
            fail("expected a parameter name", n.loc);
        }
        names.push_back(n.text);
    } while (parens && is(","));
    if (parens) {
        expect(")");
    }
    expect("=>");
    scope_.insert(scope_.end(), names.begin(), names.end());
    PatId body = parseApp();
    scope_.resize(scope_.size() - names.size());
    expect(")");
    PatNode n;
    n.op = Op::Lambda;
    n.ival = static_cast<int32_t>(names.size());
    n.children = {body};
    n.loc = loc;
    return addNode(std::move(n));
}

PatId Parser::parseOp(const Token& name) {
    const OpSyntax* syn = findOp(name.text);
    if (!syn) {
        fail("unknown pattern or variable '" + name.text + "'", name.loc);
    }
    PatNode n;
    n.op = syn->op;
    n.loc = name.loc;
    std::string kinds = syn->kinds;
    if (!is("(")) {
        if (!kinds.empty()) {
            fail(name.text + " needs " + std::to_string(kinds.size()) + " argument(s)", name.loc);
        }
        return addNode(std::move(n));
    }
    take();
    for (size_t i = 0; i < kinds.size(); ++i) {
        if (i > 0) {
            expect(",");
        }
        if (kinds[i] == 'f') {
            n.children.push_back(parseApp());
        } else if (kinds[i] == 's') {
            n.sizes.push_back(parseSize());
        } else {
            const Token& num = take();
            if (num.kind != Token::Kind::Number) {
                fail(name.text + " expects an integer here", num.loc);
            }
            n.ival = static_cast<int32_t>(number(num, INT32_MAX));
        }
    }
    if (!is(")")) {
        failHere(name.text + " takes " + std::to_string(kinds.size()) + " argument(s)");
    }
    take();
    return addNode(std::move(n));
}

arith::Size Parser::parseSize() {
    arith::Size s = parseSizeProduct();
    while (is("+") || is("-")) {
        bool plus = take().text == "+";
        arith::Size r = parseSizeProduct();
        s = plus ? s + r : s - r;
    }
    return s;
}

arith::Size Parser::parseSizeProduct() {
    arith::Size s = parseSizeAtom();
    while (is("*") || is("/^")) {
        bool times = take().text == "*";
        arith::Size r = parseSizeAtom();
        s = times ? s * r : exactDiv(s, r);
    }
    return s;
}

arith::Size Parser::parseSizeAtom() {
    const Token& t = take();
    if (t.kind == Token::Kind::Number) {
        return arith::Size(number(t));
    }
    if (t.text == "(") {
        arith::Size s = parseSize();
        expect(")");
        return s;
    }
    if (t.text == "#") {
        const Token& name = take();
        if (name.kind != Token::Kind::Ident) {
            fail("expected a size variable name after '#'", name.loc);
        }
        std::string var = "#" + name.text;
        if (lhs_) {
            boundSizes_.insert(var);
        } else if (!boundSizes_.count(var)) {
            usedSizes_.emplace_back(var, name.loc); // a generator may bind it: checked later
        }
        return arith::Size::var(var);
    }
    if (t.kind == Token::Kind::Ident) {
        return arith::Size::var(t.text); // a program size variable such as N
    }
    fail("expected a size, found '" + t.text + "'", t.loc);
}

} // namespace egopt::rules::detail
