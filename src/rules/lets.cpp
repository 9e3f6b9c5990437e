// Named sub-patterns: `let NAME = (...)` and `let NAME(a, b) = (...)` (right after `if` or
// `where` a let's body, without its parentheses, is a list of clauses; in a `by` clause a let
// `(a; b; ...)` is a named sequence of steps), and rule families
// `rule NAME(W in 2, 4, 8)SUFFIX: ...` (one rule per value, named NAME + value + SUFFIX, W
// replaced by the value: vector widths, docs/rules.md, "Named sub-patterns and families"; a
// SUFFIX may be a family again, `NAME(R in 4, 8)x(W in 4)`). Both
// are expanded on tokens before parsing, so a let may stand anywhere a parenthesized pattern or
// size may, and the rules that use them are the same rules as if the text were written out:
// matching, soundness checking and derivations see no difference.
#include "lexer.hpp"
#include "parser.hpp"

#include <map>
#include <set>

namespace egopt::rules::detail {

namespace {

struct Let {
    std::vector<std::string> params;
    std::vector<Token> body; // with its outer parentheses; earlier lets already expanded
};

bool isPunct(const Token& t, const char* text) {
    return t.kind == Token::Kind::Punct && t.text == text;
}

bool isKeyword(const std::string& word) {
    static const std::set<std::string> kKeywords{"rule",  "include", "let", "if",
                                                 "where", "by",      "fun", "group"};
    return kKeywords.count(word) > 0;
}

class Expander {
public:
    Expander(std::vector<Token> in, const std::string& file) : in_(std::move(in)), file_(file) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        bool inComposition = false; // `by a; b`: rule names, never expanded
        while (pos_ < in_.size()) {
            const Token& t = in_[pos_];
            if (t.kind == Token::Kind::Ident &&
                (t.text == "let" || t.text == "rule" || t.text == "include" || t.text == "group")) {
                inComposition = false;
            }
            if (t.kind == Token::Kind::Ident && t.text == "let") {
                define();
                continue;
            }
            if (t.kind == Token::Kind::Ident && t.text == "rule" &&
                at(pos_ + 1).kind == Token::Kind::Ident && isPunct(at(pos_ + 2), "(")) {
                instantiateFamily();
                continue;
            }
            if (t.kind == Token::Kind::Ident && (t.text == "by" || t.text == "group")) {
                inComposition = true; // a group's members are rule names too
            }
            if (inComposition ? useSteps(out) : use(out)) {
                continue;
            }
            out.push_back(t);
            ++pos_;
        }
        return out;
    }

private:
    const Token& at(size_t i) const { return in_[std::min(i, in_.size() - 1)]; }

    // A token list in balanced parentheses starting at pos_ (which must be '('), consumed.
    std::vector<Token> balanced(const char* what) {
        if (!isPunct(at(pos_), "(")) {
            badInput(std::string("expected '(' to start ") + what + ", found '" + at(pos_).text +
                         "'",
                     file_, at(pos_).loc);
        }
        std::vector<Token> out;
        int depth = 0;
        do {
            const Token& t = at(pos_);
            if (t.kind == Token::Kind::End) {
                badInput(std::string("unbalanced parentheses in ") + what, file_, t.loc);
            }
            depth += isPunct(t, "(") ? 1 : isPunct(t, ")") ? -1 : 0;
            out.push_back(t);
            ++pos_;
        } while (depth > 0);
        return out;
    }

    void define() {
        ++pos_;
        const Token& name = at(pos_++);
        if (name.kind != Token::Kind::Ident || isKeyword(name.text) || isPatternName(name.text)) {
            badInput("expected a new name after 'let' (not a keyword or pattern name), found '" +
                         name.text + "'",
                     file_, name.loc);
        }
        if (lets_.count(name.text)) {
            badInput("let '" + name.text + "' is defined twice", file_, name.loc);
        }
        Let let;
        if (isPunct(at(pos_), "(")) {
            ++pos_;
            while (!isPunct(at(pos_), ")")) {
                if (!let.params.empty()) {
                    expectPunct(",");
                }
                const Token& p = at(pos_++);
                if (p.kind != Token::Kind::Ident) {
                    badInput("expected a parameter name, found '" + p.text + "'", file_, p.loc);
                }
                let.params.push_back(p.text);
            }
            ++pos_;
        }
        expectPunct("=");
        std::vector<Token> body = balanced("a let's body");
        // Earlier lets in the body are expanded now; the let itself is not defined yet, so
        // it cannot refer to itself.
        let.body = expanded(std::move(body));
        lets_[name.text] = std::move(let);
    }

    // `rule NAME(P in v1, v2, ...)SUFFIX: rest` at pos_ becomes one rule per value, spliced
    // into the input in its place (so lets in `rest` are expanded as usual). A SUFFIX followed
    // by `(Q in ...)` leaves instances that are families again: one rule per combination.
    void instantiateFamily() {
        size_t start = pos_;
        pos_ += 2;
        const Token name = at(pos_ - 1);
        ++pos_;
        const Token param = at(pos_++);
        if (param.kind != Token::Kind::Ident || at(pos_).text != "in") {
            badInput("expected 'NAME in v1, v2, ...' after the family's name", file_, param.loc);
        }
        ++pos_;
        std::vector<Token> values;
        do {
            if (!values.empty()) {
                ++pos_;
            }
            if (at(pos_).kind != Token::Kind::Number) {
                badInput("expected a number among the family's values, found '" + at(pos_).text +
                             "'",
                         file_, at(pos_).loc);
            }
            values.push_back(at(pos_++));
        } while (isPunct(at(pos_), ","));
        expectPunct(")");
        std::string suffix;
        if (at(pos_).kind == Token::Kind::Ident) {
            suffix = at(pos_++).text;
        }
        size_t restBegin = pos_;
        while (
            at(pos_).kind != Token::Kind::End &&
            !(at(pos_).kind == Token::Kind::Ident &&
              (at(pos_).text == "rule" || at(pos_).text == "let" || at(pos_).text == "include"))) {
            ++pos_;
        }
        std::vector<Token> rules;
        for (const Token& v : values) {
            rules.push_back({Token::Kind::Ident, "rule", in_[start].loc});
            rules.push_back({Token::Kind::Ident, name.text + v.text + suffix, name.loc});
            for (size_t i = restBegin; i < pos_; ++i) {
                const Token& t = in_[i];
                bool plain = !(isPunct(in_[i - 1], "?") || isPunct(in_[i - 1], "#"));
                rules.push_back(t.kind == Token::Kind::Ident && plain && t.text == param.text
                                    ? Token{Token::Kind::Number, v.text, t.loc}
                                    : t);
            }
        }
        in_.erase(in_.begin() + long(start), in_.begin() + long(pos_));
        in_.insert(in_.begin() + long(start), rules.begin(), rules.end());
        pos_ = start; // the instances' names are followed by ':', so this does not recur
    }

    // Tokens with the lets defined so far expanded.
    std::vector<Token> expanded(std::vector<Token> tokens) const {
        SourceLoc end = tokens.empty() ? SourceLoc{} : tokens.back().loc;
        tokens.push_back({Token::Kind::End, "", end});
        Expander inner(std::move(tokens), file_);
        inner.lets_ = lets_;
        std::vector<Token> out = inner.run();
        out.pop_back(); // the End token
        return out;
    }

    void expectPunct(const char* p) {
        if (!isPunct(at(pos_), p)) {
            badInput(std::string("expected '") + p + "', found '" + at(pos_).text + "'", file_,
                     at(pos_).loc);
        }
        ++pos_;
    }

    // A use of a let at pos_: its body (arguments substituted) goes to `out`.
    bool use(std::vector<Token>& out) {
        const Token& t = at(pos_);
        auto it = t.kind == Token::Kind::Ident ? lets_.find(t.text) : lets_.end();
        bool named =
            !out.empty() && (isPunct(out.back(), "?") || isPunct(out.back(), "#") ||
                             (out.back().kind == Token::Kind::Ident && out.back().text == "rule"));
        if (it == lets_.end() || named) {
            return false;
        }
        ++pos_;
        const Let& let = it->second;
        std::vector<std::vector<Token>> args;
        if (!let.params.empty()) {
            args = arguments(t, let.params.size());
        }
        // Right after `if` or `where` a let stands for clauses (a list of conditions): its
        // parentheses go.
        bool clauses = !out.empty() && out.back().kind == Token::Kind::Ident &&
                       (out.back().text == "if" || out.back().text == "where");
        for (size_t i = clauses ? 1 : 0; i + (clauses ? 1 : 0) < let.body.size(); ++i) {
            const Token& b = let.body[i];
            bool plain =
                i == 0 || !(isPunct(let.body[i - 1], "?") || isPunct(let.body[i - 1], "#"));
            size_t p = 0;
            while (p < let.params.size() &&
                   !(b.kind == Token::Kind::Ident && plain && b.text == let.params[p])) {
                ++p;
            }
            if (p == let.params.size()) {
                out.push_back(b);
                continue;
            }
            bool wrap = args[p].size() > 1;
            if (wrap) {
                out.push_back({Token::Kind::Punct, "(", b.loc});
            }
            out.insert(out.end(), args[p].begin(), args[p].end());
            if (wrap) {
                out.push_back({Token::Kind::Punct, ")", b.loc});
            }
        }
        return true;
    }

    // A let used as a step of a `by` clause: its body `(a; b; ...)` is a named sequence of
    // steps, spliced in without parentheses (a nested sequence was expanded at its definition,
    // so its parentheses go too). Other names are rule names, left as they are.
    bool useSteps(std::vector<Token>& out) {
        const Token& t = at(pos_);
        auto it = t.kind == Token::Kind::Ident ? lets_.find(t.text) : lets_.end();
        if (it == lets_.end()) {
            return false;
        }
        if (!it->second.params.empty()) {
            badInput("let '" + t.text + "' takes arguments: a sequence of steps in 'by' takes none",
                     file_, t.loc);
        }
        for (const Token& b : it->second.body) {
            if (isPunct(b, "(") || isPunct(b, ")")) {
                continue;
            }
            if (b.kind != Token::Kind::Ident && !isPunct(b, ";")) {
                badInput("let '" + t.text + "' is used in 'by' but is no sequence of steps " +
                             "(rule names separated by ';'): found '" + b.text + "'",
                         file_, t.loc);
            }
            out.push_back(b);
        }
        ++pos_;
        return true;
    }

    // `(a, b)` after a let's name: token lists split at the top-level commas.
    std::vector<std::vector<Token>> arguments(const Token& name, size_t count) {
        std::vector<Token> all = balanced("a let's arguments");
        std::vector<std::vector<Token>> args(1);
        int depth = 0;
        for (size_t i = 1; i + 1 < all.size(); ++i) {
            depth += isPunct(all[i], "(") ? 1 : isPunct(all[i], ")") ? -1 : 0;
            if (depth == 0 && isPunct(all[i], ",")) {
                args.emplace_back();
                continue;
            }
            args.back().push_back(all[i]);
        }
        if (args.size() != count || args.back().empty()) {
            badInput("let '" + name.text + "' takes " + std::to_string(count) +
                         " argument(s), found " +
                         std::to_string(args.back().empty() ? 0 : args.size()),
                     file_, name.loc);
        }
        for (auto& a : args) {
            a = expanded(std::move(a));
        }
        return args;
    }

    std::vector<Token> in_;
    const std::string& file_;
    size_t pos_ = 0;
    std::map<std::string, Let> lets_;
};

} // namespace

std::vector<Token> expandLets(std::vector<Token> tokens, const std::string& file) {
    return Expander(std::move(tokens), file).run();
}

} // namespace egopt::rules::detail
