// A Pratt parser and evaluator for the integer subset of C that generated index expressions,
// loop bounds and conditions use (arith::Size::toC plus the generator's helpers).
#include "cexpr.hpp"

#include <algorithm>
#include <cctype>

namespace egopt::costmodel::detail {

namespace {

using Kind = CExpr::Kind;

struct Tok {
    enum class T : uint8_t { Num, Ident, Punct, End } t = T::End;
    std::string text;
    int64_t num = 0;
};

std::vector<Tok> tokenize(std::string_view s) {
    std::vector<Tok> out;
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t j = i;
            while (j < s.size() &&
                   (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) {
                ++j;
            }
            std::string text(s.substr(i, j - i));
            Tok t{Tok::T::Num, text, 0};
            bool integer = text.find_first_not_of("0123456789") == std::string::npos;
            if (!integer) {
                t.t = Tok::T::Punct; // a float literal: not integer arithmetic
                t.text = "?";
            } else {
                t.num = text.size() > 18 ? 0 : std::stoll(text);
            }
            out.push_back(t);
            i = j;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t j = i;
            while (j < s.size() &&
                   (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) {
                ++j;
            }
            out.push_back({Tok::T::Ident, std::string(s.substr(i, j - i)), 0});
            i = j;
        } else {
            static const char* two[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
            std::string p(1, c);
            for (const char* t : two) {
                if (s.substr(i, 2) == t) {
                    p = t;
                }
            }
            out.push_back({Tok::T::Punct, p, 0});
            i += p.size();
        }
    }
    out.push_back({});
    return out;
}

int precedence(const std::string& op) {
    static const std::map<std::string, int, std::less<>> table{
        {"||", 1}, {"&&", 2}, {"==", 3}, {"!=", 3}, {"<", 4}, {"<=", 4}, {">", 4}, {">=", 4},
        {"<<", 5}, {">>", 5}, {"+", 6},  {"-", 6},  {"*", 7}, {"/", 7},  {"%", 7}};
    auto it = table.find(op);
    return it == table.end() ? -1 : it->second;
}

class Parser {
public:
    explicit Parser(std::vector<Tok> toks) : toks_(std::move(toks)) {}

    CExpr parse() {
        CExpr e = ternary();
        return failed_ || toks_[pos_].t != Tok::T::End ? CExpr{} : e;
    }

private:
    const Tok& peek() const { return toks_[pos_]; }
    bool accept(const std::string& p) {
        if (peek().t == Tok::T::Punct && peek().text == p) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(const std::string& p) {
        if (!accept(p)) {
            failed_ = true;
        }
    }

    CExpr ternary() {
        CExpr c = binary(1);
        if (!accept("?")) {
            return c;
        }
        CExpr a = ternary();
        expect(":");
        CExpr b = ternary();
        return CExpr{Kind::Ternary, 0, "?", {c, a, b}};
    }

    CExpr binary(int minPrec) {
        CExpr lhs = unary();
        while (!failed_ && peek().t == Tok::T::Punct) {
            std::string op = peek().text;
            int prec = precedence(op);
            if (prec < minPrec) {
                break;
            }
            ++pos_;
            CExpr rhs = binary(prec + 1);
            lhs = CExpr{Kind::Binary, 0, op, {lhs, rhs}};
        }
        return lhs;
    }

    CExpr unary() {
        if (failed_ || peek().t == Tok::T::End) {
            failed_ = true;
            return {};
        }
        if (accept("-")) {
            return CExpr{Kind::Unary, 0, "-", {unary()}};
        }
        if (accept("!")) {
            return CExpr{Kind::Unary, 0, "!", {unary()}};
        }
        if (accept("+")) {
            return unary();
        }
        if (accept("(")) {
            // A cast to an integer type is the identity here.
            if (peek().t == Tok::T::Ident && (peek().text == "int" || peek().text == "long") &&
                toks_[pos_ + 1].text == ")") {
                pos_ += 2;
                return unary();
            }
            CExpr e = ternary();
            expect(")");
            return e;
        }
        return primary();
    }

    CExpr primary() {
        Tok t = peek();
        ++pos_;
        if (t.t == Tok::T::Num) {
            return CExpr{Kind::Num, t.num, "", {}};
        }
        if (t.t != Tok::T::Ident) {
            failed_ = true;
            return {};
        }
        if (!accept("(")) {
            if (peek().text == "[" || peek().text == ".") {
                failed_ = true; // a memory read: data-dependent
            }
            return CExpr{Kind::Var, 0, t.text, {}};
        }
        CExpr call{Kind::Call, 0, t.text, {}};
        if (!accept(")")) {
            do {
                call.args.push_back(ternary());
            } while (!failed_ && accept(","));
            expect(")");
        }
        return call;
    }

    std::vector<Tok> toks_;
    size_t pos_ = 0;
    bool failed_ = false;
};

// get_global_id(0) -> "gid0", ...
std::optional<std::string> threadKey(const CExpr& call) {
    static const std::map<std::string, std::string, std::less<>> keys{
        {"get_global_id", "gid"},   {"get_local_id", "lid"},   {"get_group_id", "grp"},
        {"get_global_size", "gsz"}, {"get_local_size", "lsz"}, {"get_num_groups", "ngrp"}};
    auto it = keys.find(call.name);
    if (it == keys.end() || call.args.size() != 1 || call.args[0].kind != Kind::Num) {
        return std::nullopt;
    }
    return it->second + std::to_string(call.args[0].num);
}

std::optional<int64_t> floorMod(int64_t a, int64_t n) {
    if (n == 0) {
        return std::nullopt;
    }
    return ((a % n) + n) % n;
}

std::optional<int64_t> evalBinary(const std::string& op, int64_t a, int64_t b) {
    if ((op == "/" || op == "%") && b == 0) {
        return std::nullopt;
    }
    if (op == "+")
        return a + b;
    if (op == "-")
        return a - b;
    if (op == "*")
        return a * b;
    if (op == "/")
        return a / b;
    if (op == "%")
        return a % b;
    if (op == "<<")
        return b >= 0 && b < 62 ? a << b : 0;
    if (op == ">>")
        return b >= 0 && b < 62 ? a >> b : 0;
    if (op == "<")
        return a < b;
    if (op == "<=")
        return a <= b;
    if (op == ">")
        return a > b;
    if (op == ">=")
        return a >= b;
    if (op == "==")
        return a == b;
    if (op == "!=")
        return a != b;
    if (op == "&&")
        return a && b;
    if (op == "||")
        return a || b;
    return std::nullopt;
}

std::optional<int64_t> evalCall(const CExpr& e, const CEnv& env) {
    if (auto key = threadKey(e)) {
        auto it = env.find(*key);
        return it == env.end() ? std::optional<int64_t>{} : it->second;
    }
    std::vector<int64_t> a;
    for (const auto& arg : e.args) {
        auto v = evalCExpr(arg, env);
        if (!v) {
            return std::nullopt;
        }
        a.push_back(*v);
    }
    const std::string& f = e.name;
    if ((f == "min" || f == "max") && a.size() == 2) {
        return f == "min" ? std::min(a[0], a[1]) : std::max(a[0], a[1]);
    }
    if (f == "clamp" && a.size() == 3) {
        return std::min(std::max(a[0], a[1]), a[2]);
    }
    if (f == "egopt_wrap" && a.size() == 2) {
        return floorMod(a[0], a[1]);
    }
    if (f == "egopt_mirror" && a.size() == 2) {
        auto m = floorMod(a[0], 2 * a[1]);
        return m ? std::optional<int64_t>(*m < a[1] ? *m : 2 * a[1] - 1 - *m) : std::nullopt;
    }
    if ((f == "egopt_ipow" || f == "pow") && a.size() == 2 && a[1] >= 0 && a[1] < 63) {
        int64_t r = 1;
        for (int64_t i = 0; i < a[1]; ++i) {
            r *= a[0];
        }
        return r;
    }
    return std::nullopt;
}

} // namespace

CExpr parseCExpr(std::string_view text) {
    return Parser(tokenize(text)).parse();
}

std::optional<int64_t> evalCExpr(const CExpr& e, const CEnv& env) {
    switch (e.kind) {
    case Kind::Num:
        return e.num;
    case Kind::Var: {
        auto it = env.find(e.name);
        return it == env.end() ? std::optional<int64_t>{} : it->second;
    }
    case Kind::Unary: {
        auto v = evalCExpr(e.args[0], env);
        return v ? std::optional<int64_t>(e.name == "-" ? -*v : !*v) : std::nullopt;
    }
    case Kind::Binary: {
        auto a = evalCExpr(e.args[0], env);
        auto b = evalCExpr(e.args[1], env);
        return a && b ? evalBinary(e.name, *a, *b) : std::nullopt;
    }
    case Kind::Ternary: {
        auto c = evalCExpr(e.args[0], env);
        return c ? evalCExpr(e.args[*c ? 1 : 2], env) : std::nullopt;
    }
    case Kind::Call:
        return evalCall(e, env);
    case Kind::Fail:
        break;
    }
    return std::nullopt;
}

bool mentions(const CExpr& e, const std::vector<std::string>& names) {
    std::string key = e.name;
    if (e.kind == Kind::Call) {
        key = threadKey(e).value_or(e.name);
    }
    if ((e.kind == Kind::Var || e.kind == Kind::Call) &&
        std::find(names.begin(), names.end(), key) != names.end()) {
        return true;
    }
    for (const auto& a : e.args) {
        if (mentions(a, names)) {
            return true;
        }
    }
    return false;
}

} // namespace egopt::costmodel::detail
