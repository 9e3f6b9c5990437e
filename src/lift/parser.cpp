// Recursive-descent parser for the .lift Scala subset (docs/design.md §3); the facts about Scala's
// words and operators it relies on are in scala_words.cpp.
#include "lexer.hpp"
#include "syntax.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace egopt::lift::detail {

namespace {

// Deeper nesting than this is rejected so that no later recursive pass can overflow the stack.
constexpr uint32_t kMaxDepth = 400;

class Parser {
public:
    Parser(const std::string& source, const std::string& file)
        : toks_(tokenize(source, file)), file_(file) {
        for (const Token& t : toks_) {
            auto newlines = std::count(t.text.begin(), t.text.end(), '\n');
            lastLine_.push_back(t.loc.line +
                                (t.kind == Tok::String ? static_cast<uint32_t>(newlines) : 0));
        }
    }

    SyntaxFile run() {
        skipSemicolons();
        for (skipImports(); isKeyword("val") || isKeyword("def"); skipImports()) {
            binding(out_.bindingNames, out_.bindingValues, &out_.bindingLocs);
        }
        if (cur().kind == Tok::End && !out_.bindingValues.empty()) {
            // A file of definitions only: the last one is the program (Lift's test files bind
            // the program to a name).
            out_.program = out_.bindingValues.back();
            return std::move(out_);
        }
        out_.program = expr();
        skipSemicolons();
        if (cur().kind != Tok::End) {
            rejectScalaKeyword();
            fail("expected end of file after the program expression, found " +
                 describeToken(cur()));
        }
        return std::move(out_);
    }

private:
    const Token& cur() const { return toks_[pos_]; }
    const Token& ahead(size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
    bool isKeyword(const char* kw) const { return cur().kind == Tok::Ident && cur().text == kw; }
    [[noreturn]] void fail(const std::string& msg) const { badInput(msg, file_, cur().loc); }
    void bump() {
        if (cur().kind != Tok::End) {
            ++pos_;
        }
    }
    Token expect(Tok kind, const char* context) {
        if (cur().kind != kind) {
            fail("expected " + std::string(tokenKindName(kind)) + " " + context + ", found " +
                 describeToken(cur()));
        }
        Token t = cur();
        bump();
        return t;
    }
    // `package a.b` and `import a.b._` / `import a.b.{C, D}` lines, as Lift's Scala sources begin:
    // the names they bring in are egopt's built-in vocabulary already.
    void skipImports() {
        while (isKeyword("import") || isKeyword("package")) {
            uint32_t line = cur().loc.line;
            while (cur().kind != Tok::End && cur().loc.line == line &&
                   !(cur().kind == Tok::Operator && cur().text == ";")) {
                bump();
            }
            skipSemicolons();
        }
    }

    // Scala constructs outside the Lift language that egopt reads: an error that names them.
    void rejectScalaKeyword() const {
        if (cur().kind != Tok::Ident || !isScalaOutsideLift(cur().text)) {
            return;
        }
        fail("Scala's '" + cur().text +
             "' is not part of the Lift language egopt reads (a program is val/def bindings, "
             "fun/λ lambdas, { } blocks and calls of Lift's patterns and user functions)");
    }

    void skipSemicolons() {
        while (cur().kind == Tok::Operator && cur().text == ";") {
            bump();
        }
    }

    SyntaxId add(SyntaxKind kind, std::string text, std::vector<SyntaxId> children, SourceLoc loc,
                 std::vector<std::string> names = {}) {
        uint32_t depth = 0;
        for (SyntaxId c : children) {
            depth = std::max(depth, depths_[c]);
        }
        if (depth + 1 > kMaxDepth) {
            badInput("expression nested too deeply (more than " + std::to_string(kMaxDepth) +
                         " levels)",
                     file_, loc);
        }
        out_.nodes.push_back(
            Syntax{kind, std::move(text), std::move(children), std::move(names), loc});
        depths_.push_back(depth + 1);
        return static_cast<SyntaxId>(out_.nodes.size() - 1);
    }

    // `val name [: T] = e`, `val (a, b, ...) = e`, `def name [(params)] [: T] = e`.
    void binding(std::vector<std::string>& names, std::vector<SyntaxId>& values,
                 std::vector<SourceLoc>* locs) {
        bool isDef = cur().text == "def";
        bump(); // val / def
        if (!isDef && cur().kind == Tok::LParen) {
            destructuring(names, values, locs);
            return;
        }
        Token name = expect(Tok::Ident, "after val/def");
        std::vector<std::string> params;
        bool hasParams = isDef && cur().kind == Tok::LParen;
        if (hasParams) {
            params = defParameters();
        }
        skipTypeAnnotation();
        expect(Tok::Equals, ("after the name '" + name.text + "'").c_str());
        SyntaxId value = expr();
        if (hasParams) {
            value = add(SyntaxKind::Lambda, "def", {value}, name.loc, std::move(params));
        }
        skipSemicolons();
        names.push_back(name.text);
        values.push_back(value);
        if (locs != nullptr) {
            locs->push_back(name.loc);
        }
    }

    // val (a, b, c) = e: a is e._0, b is e._1, ...
    void destructuring(std::vector<std::string>& names, std::vector<SyntaxId>& values,
                       std::vector<SourceLoc>* locs) {
        bump(); // (
        std::vector<Token> parts;
        do {
            if (cur().kind == Tok::Comma) {
                bump();
            }
            parts.push_back(expect(Tok::Ident, "in the names of a tuple pattern val (a, b) = ..."));
            skipTypeAnnotation();
        } while (cur().kind == Tok::Comma);
        expect(Tok::RParen, "to close the tuple pattern");
        expect(Tok::Equals, "after the tuple pattern");
        SyntaxId value = expr();
        skipSemicolons();
        for (size_t i = 0; i < parts.size(); ++i) {
            names.push_back(parts[i].text);
            values.push_back(
                add(SyntaxKind::Field, "_" + std::to_string(i), {value}, parts[i].loc));
            if (locs != nullptr) {
                locs->push_back(parts[i].loc);
            }
        }
    }

    // (x: Param, n: Int, ...) of a def; the types are Scala's and not needed: Lift's values carry
    // their own.
    std::vector<std::string> defParameters() {
        NewlineScope scope(*this, false);
        bump(); // (
        std::vector<std::string> params;
        while (cur().kind != Tok::RParen) {
            params.push_back(expect(Tok::Ident, "as a parameter name of the def").text);
            skipTypeAnnotation();
            if (cur().kind != Tok::Comma) {
                break;
            }
            bump();
        }
        expect(Tok::RParen, "after the def's parameters");
        return params;
    }

    // `: Type`, `: Array[Float]`, `: (Int, Int) => Float`: skipped up to the next `=`, `,` or
    // closing parenthesis at the same nesting.
    void skipTypeAnnotation() {
        if (cur().kind != Tok::Colon) {
            return;
        }
        bump();
        int depth = 0;
        while (cur().kind != Tok::End) {
            Tok k = cur().kind;
            if (depth == 0 && (k == Tok::Equals || k == Tok::Comma || k == Tok::RParen)) {
                return;
            }
            if (k == Tok::LParen || k == Tok::LBracket) {
                ++depth;
            } else if (k == Tok::RParen || k == Tok::RBracket) {
                --depth;
            }
            bump();
        }
        fail("expected '=' after the type annotation, found end of file");
    }

    // { val a = e; def f(x) = e; result }: statements separated by newlines or ';'.
    SyntaxId block() {
        SourceLoc loc = cur().loc;
        NewlineScope scope(*this, true);
        bump(); // {
        return blockRest(loc);
    }

    // A block after its '{', up to and including its '}'.
    SyntaxId blockRest(SourceLoc loc) {
        std::vector<std::string> names;
        std::vector<SyntaxId> values;
        skipSemicolons();
        for (skipImports(); isKeyword("val") || isKeyword("def"); skipImports()) {
            binding(names, values, nullptr);
        }
        if (cur().kind == Tok::RBrace) {
            fail("expected the block's result expression before '}'");
        }
        SyntaxId result = expr();
        skipSemicolons();
        if (cur().kind != Tok::RBrace) {
            if (isKeyword("val") || isKeyword("def")) {
                fail("expected '}' after the block's result expression, found " +
                     describeToken(cur()) +
                     ": only the last statement of a block may be an "
                     "expression");
            }
            rejectScalaKeyword();
            fail("expected '}' to close the block, found " + describeToken(cur()));
        }
        bump();
        if (names.empty()) {
            return result;
        }
        values.push_back(result);
        return add(SyntaxKind::Block, "", std::move(values), loc, std::move(names));
    }

    bool atInfixOperator() const {
        if (cur().kind == Tok::Operator) {
            return cur().text != ";";
        }
        // `o` and `$` are the alphanumeric infix operators of Lift; `val`/`def` start the next
        // binding when a program has no separators.
        return cur().kind == Tok::Ident && (cur().text == "o" || cur().text == "$");
    }

    SyntaxId expr(int minPrec = 0) {
        GuardDepth guard(*this);
        SyntaxId lhs = unary();
        while (atInfixOperator() && precedence(cur().text) >= minPrec) {
            Token op = cur();
            int prec = precedence(op.text);
            bump();
            SyntaxId rhs = expr(rightAssociative(op.text) ? prec : prec + 1);
            lhs = add(SyntaxKind::Binary, op.text, {lhs, rhs}, op.loc);
        }
        return lhs;
    }

    SyntaxId unary() {
        if (cur().kind == Tok::Operator && cur().text == "-") {
            SourceLoc loc = cur().loc;
            bump();
            return add(SyntaxKind::Negate, "-", {unary()}, loc);
        }
        return postfix(primary());
    }

    SyntaxId postfix(SyntaxId e) {
        while (true) {
            if (cur().kind == Tok::LParen && !newlineBefore()) {
                SourceLoc loc = cur().loc;
                std::vector<SyntaxId> parts{e};
                arguments(parts);
                noteSizeVar(parts);
                e = add(SyntaxKind::Call, "", std::move(parts), loc);
            } else if (cur().kind == Tok::LBrace && !newlineBefore()) {
                // Scala's `f { x }` for `f(x)`: Map { fun(x => e) }, fun { x => e }.
                SourceLoc loc = cur().loc;
                e = add(SyntaxKind::Call, "", {e, braceArgument()}, loc);
            } else if (cur().kind == Tok::Dot) {
                bump();
                Token field = cur();
                if (field.kind != Tok::Ident) {
                    fail("expected a field or method name after '.', found " +
                         describeToken(field));
                }
                bump();
                // IndexFunction.reverse is Lift's qualified name of reverse.
                bool qualified =
                    out_.at(e).kind == SyntaxKind::Name && out_.at(e).text == "IndexFunction";
                e = qualified ? add(SyntaxKind::Name, field.text, {}, field.loc)
                              : add(SyntaxKind::Field, field.text, {e}, field.loc);
            } else {
                return e;
            }
        }
    }

    void noteSizeVar(const std::vector<SyntaxId>& call) {
        const Syntax& callee = out_.at(call[0]);
        if (callee.kind == SyntaxKind::Name && (callee.text == "SizeVar" || callee.text == "Var") &&
            call.size() >= 2 && out_.at(call[1]).kind == SyntaxKind::String) {
            out_.noteSizeVar(out_.at(call[1]).text, out_.at(call[1]).loc);
        }
    }

    // '(' [arg {',' arg}] ')', where an argument may be a lambda.
    void arguments(std::vector<SyntaxId>& into) {
        NewlineScope scope(*this, false);
        expect(Tok::LParen, "to start the arguments");
        if (cur().kind != Tok::RParen) {
            into.push_back(argument());
            while (cur().kind == Tok::Comma) {
                bump();
                if (cur().kind == Tok::RParen) { // a trailing comma, as Scala allows
                    break;
                }
                into.push_back(argument());
            }
        }
        if (cur().kind != Tok::RParen) {
            rejectScalaKeyword();
            fail("expected ',' or ')' in the argument list, found " + describeToken(cur()));
        }
        bump();
    }

    // A brace argument: a block, or a lambda whose body is the rest of the block, as in
    // `{ x => val y = f(x); g(y) }`.
    SyntaxId braceArgument() {
        if (!lambdaAhead(1)) {
            return block();
        }
        NewlineScope scope(*this, true);
        bump(); // {
        SourceLoc loc = cur().loc;
        std::vector<std::string> params = lambdaParams();
        SyntaxId body = blockRest(cur().loc);
        return add(SyntaxKind::Lambda, "", {body}, loc, std::move(params));
    }

    // Does a lambda start `from` tokens ahead (lexer.hpp)?
    bool lambdaAhead(size_t from = 0) const { return lambdaStartsAt(toks_, pos_ + from); }

    SyntaxId argument() { return lambdaAhead() ? lambda() : expr(); }

    SyntaxId lambda() {
        SourceLoc loc = cur().loc;
        std::vector<std::string> params = lambdaParams();
        SyntaxId body = expr();
        return add(SyntaxKind::Lambda, "", {body}, loc, std::move(params));
    }

    // `x =>`, `(a, b) =>` or `() =>`: the parameter names.
    std::vector<std::string> lambdaParams() {
        std::vector<std::string> params;
        if (cur().kind == Tok::Ident) {
            params.push_back(cur().text);
            bump();
        } else {
            bump(); // (
            while (cur().kind == Tok::Ident) {
                params.push_back(cur().text);
                bump();
                skipTypeAnnotation(); // (x: Param, y: Param) => ...
                if (cur().kind == Tok::Comma) {
                    bump();
                }
            }
            expect(Tok::RParen, "after the lambda's parameters");
        }
        expect(Tok::Arrow, "after the lambda's parameters");
        return params;
    }

    SyntaxId primary() {
        const Token t = cur();
        switch (t.kind) {
        case Tok::Ident:
            rejectScalaKeyword();
            bump();
            if (std::string v = printedSizeVariable(t.text); !v.empty()) {
                out_.noteSizeVar(v, t.loc);
            }
            return add(SyntaxKind::Name, t.text, {}, t.loc);
        case Tok::Int:
            bump();
            return add(SyntaxKind::Int, t.text, {}, t.loc);
        case Tok::Float:
            bump();
            return add(SyntaxKind::Float, t.text, {}, t.loc);
        case Tok::String:
            bump();
            return add(SyntaxKind::String, t.text, {}, t.loc);
        case Tok::LParen:
            return parenthesised();
        case Tok::LBrace:
            return block();
        case Tok::Lambda:
            return backslashLambda();
        default:
            fail("expected an expression, found " + describeToken(t));
        }
    }

    // (e), or a tuple (a, b, ...), which is Tuple(a, b, ...).
    SyntaxId parenthesised() {
        if (lambdaAhead()) {
            return lambda();
        }
        NewlineScope scope(*this, false);
        SourceLoc loc = cur().loc;
        bump();
        SyntaxId inner = expr();
        if (cur().kind != Tok::Comma) {
            expect(Tok::RParen, "to close the parenthesis");
            return inner;
        }
        std::vector<SyntaxId> parts{add(SyntaxKind::Name, "Tuple", {}, loc), inner};
        while (cur().kind == Tok::Comma) {
            bump();
            if (cur().kind == Tok::RParen) {
                break;
            }
            parts.push_back(expr());
        }
        expect(Tok::RParen, "to close the tuple");
        return add(SyntaxKind::Call, "", std::move(parts), loc);
    }

    // \(x => e), λ(x => e) and the typed λ(T, x => e): the same as fun(...).
    SyntaxId backslashLambda() {
        SourceLoc loc = cur().loc;
        bump();
        if (cur().kind != Tok::LParen) {
            fail("expected '(' after the lambda sign, found " + describeToken(cur()));
        }
        std::vector<SyntaxId> parts{add(SyntaxKind::Name, "fun", {}, loc)};
        arguments(parts);
        return add(SyntaxKind::Call, "", std::move(parts), loc);
    }

    // Scala separates statements by newlines in blocks and at the top level, but not inside
    // parentheses: `f\n(x)` is two statements in a block and one call in an argument list.
    struct NewlineScope {
        NewlineScope(Parser& p, bool enabled) : parser(p) { parser.newlines_.push_back(enabled); }
        ~NewlineScope() { parser.newlines_.pop_back(); }
        NewlineScope(const NewlineScope&) = delete;
        NewlineScope& operator=(const NewlineScope&) = delete;
        Parser& parser;
    };
    bool newlineBefore() const {
        return newlines_.back() && pos_ > 0 && cur().loc.line > lastLine_[pos_ - 1];
    }

    struct GuardDepth {
        explicit GuardDepth(Parser& p) : parser(p) {
            if (++parser.recursion_ > kMaxDepth) {
                parser.fail("expression nested too deeply (more than " + std::to_string(kMaxDepth) +
                            " levels)");
            }
        }
        ~GuardDepth() { --parser.recursion_; }
        GuardDepth(const GuardDepth&) = delete;
        GuardDepth& operator=(const GuardDepth&) = delete;
        Parser& parser;
    };

    std::vector<Token> toks_;
    const std::string& file_;
    size_t pos_ = 0;
    uint32_t recursion_ = 0;
    std::vector<uint32_t> depths_;
    std::vector<bool> newlines_{true};
    std::vector<uint32_t> lastLine_; // the line each token ends on (strings span lines)
    SyntaxFile out_;
};

} // namespace

SyntaxFile parseSyntax(const std::string& source, const std::string& fileName) {
    return Parser(source, fileName).run();
}

} // namespace egopt::lift::detail
