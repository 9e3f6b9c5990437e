#include "c_lexer.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>

namespace egopt::interp::c {

namespace {

bool identStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Bounds macro expansion (a macro can double its tokens at each level).
constexpr size_t kMaxTokens = 1'000'000;

// Longest match first.
constexpr std::string_view kPuncts[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "+",  "-",
    "*",   "/",   "%",   "<",  ">",  "=",  "!",  "~",  "&",  "|",  "^",  "?",
    ":",   ";",   ",",   ".",  "(",  ")",  "{",  "}",  "[",  "]",  "#"};

class Lexer {
public:
    Lexer(std::string_view src, const Reporter& rep) : src_(src), rep_(rep) {}

    std::vector<Token> run() {
        while (true) {
            skipSpace();
            if (pos_ >= src_.size()) {
                break;
            }
            if (src_[pos_] == '#') {
                directive();
                continue;
            }
            emit(next());
        }
        Token end;
        end.line = line_;
        out_.push_back(end);
        return std::move(out_);
    }

private:
    void skipSpace() {
        while (pos_ < src_.size()) {
            char c = src_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
            } else if (src_.substr(pos_, 2) == "//") {
                while (pos_ < src_.size() && src_[pos_] != '\n') {
                    ++pos_;
                }
            } else if (src_.substr(pos_, 2) == "/*") {
                blockComment();
            } else {
                return;
            }
        }
    }

    void blockComment() {
        uint32_t start = line_;
        size_t end = src_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) {
            rep_.fail(start, "unterminated comment");
        }
        for (size_t i = pos_; i < end; ++i) {
            line_ += src_[i] == '\n';
        }
        pos_ = end + 2;
    }

    // Skips spaces and comments on the current line only (directives end at the newline).
    bool skipLineSpace() {
        while (pos_ < src_.size() && src_[pos_] != '\n') {
            if (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\r') {
                ++pos_;
            } else if (src_.substr(pos_, 2) == "/*") {
                blockComment();
            } else if (src_.substr(pos_, 2) == "//") {
                return false;
            } else {
                return true;
            }
        }
        return false;
    }

    void directive() {
        uint32_t line = line_;
        ++pos_;
        skipLineSpace();
        std::string word = identifier();
        if (word != "define") {
            rep_.fail(line, "preprocessor directive '#" + word + "' is not supported");
        }
        skipLineSpace();
        std::string name = identifier();
        if (name.empty()) {
            rep_.fail(line, "#define needs a name");
        }
        if (pos_ < src_.size() && src_[pos_] == '(') {
            rep_.fail(line, "function-like macro '" + name + "' is not supported");
        }
        std::vector<Token> repl;
        while (skipLineSpace()) {
            if (src_[pos_] == '\\') {
                rep_.fail(line, "line continuation in #define is not supported");
            }
            repl.push_back(next());
        }
        macros_[name] = std::move(repl);
    }

    std::string identifier() {
        size_t start = pos_;
        while (pos_ < src_.size() && identChar(src_[pos_])) {
            ++pos_;
        }
        return std::string(src_.substr(start, pos_ - start));
    }

    Token next() {
        Token t;
        t.line = line_;
        char c = src_[pos_];
        if (identStart(c)) {
            t.kind = TokKind::Ident;
            t.text = identifier();
        } else if (digit(c) || (c == '.' && pos_ + 1 < src_.size() && digit(src_[pos_ + 1]))) {
            number(t);
        } else if (c == '\'') {
            character(t);
        } else {
            punct(t);
        }
        return t;
    }

    void number(Token& t) {
        const char* begin = src_.data() + pos_;
        char* endI = nullptr;
        char* endF = nullptr;
        errno = 0;
        long long iv = std::strtoll(begin, &endI, 0);
        bool overflow = errno == ERANGE;
        double fv = std::strtod(begin, &endF);
        bool isFloat = endF > endI;
        pos_ += static_cast<size_t>((isFloat ? endF : endI) - begin);
        std::string suffix = identifier();
        t.text = std::string(begin, src_.data() + pos_);
        if (isFloat || suffix == "f" || suffix == "F") {
            floatSuffix(t, fv, suffix);
            return;
        }
        bool isLong = suffix == "l" || suffix == "L";
        bool isUnsigned = suffix == "u" || suffix == "U";
        std::string lower = suffix;
        for (char& c : lower) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (lower == "ul" || lower == "lu") { // a ulong: its bits, up to 2^64 - 1
            errno = 0;
            iv = static_cast<long long>(std::strtoull(begin, nullptr, 0));
            overflow = errno == ERANGE || *begin == '-';
            isLong = isUnsigned = true;
        }
        if (overflow || (!suffix.empty() && !isLong && !isUnsigned) ||
            (isUnsigned && !isLong && iv > UINT32_MAX)) {
            rep_.fail(t.line, "unsupported integer literal '" + t.text + "'");
        }
        t.kind = TokKind::Int;
        t.inum = iv;
        // As in C: a decimal literal too large for int is a long, a hex or octal one a uint
        // where that holds it.
        bool decimal = begin[0] != '0' || t.text.size() == 1 ||
                       (!digit(begin[1]) && begin[1] != 'x' && begin[1] != 'X');
        t.unsignedInt = isUnsigned || (!isLong && !decimal && iv > INT32_MAX && iv <= UINT32_MAX);
        t.longInt = (isUnsigned && isLong) || (!t.unsignedInt && (isLong || iv > INT32_MAX));
    }

    // 'a', '\n', '\0', '\'', '\\': an int, as C types a character constant.
    void character(Token& t) {
        static constexpr std::pair<char, char> kEscapes[] = {
            {'n', '\n'},  {'t', '\t'},  {'r', '\r'}, {'0', '\0'},
            {'\\', '\\'}, {'\'', '\''}, {'"', '"'}};
        size_t start = pos_++;
        std::optional<char> value;
        if (pos_ < src_.size() && src_[pos_] == '\\' && pos_ + 1 < src_.size()) {
            for (auto [name, v] : kEscapes) {
                value = src_[pos_ + 1] == name ? std::optional(v) : value;
            }
            pos_ += 2;
        } else if (pos_ < src_.size() && src_[pos_] != '\'' && src_[pos_] != '\n') {
            value = src_[pos_++];
        }
        if (!value || pos_ >= src_.size() || src_[pos_] != '\'') {
            rep_.fail(t.line, "unsupported character constant");
        }
        ++pos_;
        t.kind = TokKind::Int;
        t.text = std::string(src_.substr(start, pos_ - start));
        t.inum = static_cast<signed char>(*value);
    }

    void floatSuffix(Token& t, double v, const std::string& suffix) {
        if (!suffix.empty() && suffix != "f" && suffix != "F") {
            rep_.fail(t.line, "unsupported number '" + t.text + "'");
        }
        t.kind = TokKind::Float;
        t.fnum = v;
        t.singleFloat = !suffix.empty();
    }

    void punct(Token& t) {
        for (std::string_view p : kPuncts) {
            if (src_.substr(pos_, p.size()) == p) {
                t.kind = TokKind::Punct;
                t.text = std::string(p);
                pos_ += p.size();
                return;
            }
        }
        rep_.fail(t.line, std::string("unexpected character '") + src_[pos_] + "'");
    }

    // Expands macros recursively; a macro does not expand inside itself (as in C).
    void emit(Token t, int depth = 0) {
        auto it = t.kind == TokKind::Ident ? macros_.find(t.text) : macros_.end();
        if (out_.size() > kMaxTokens) {
            rep_.fail(t.line, "the body is too long after macro expansion");
        }
        if (it == macros_.end() || depth > 32) {
            out_.push_back(std::move(t));
            return;
        }
        for (Token r : it->second) {
            r.line = t.line;
            if (r.kind == TokKind::Ident && r.text == t.text) {
                out_.push_back(std::move(r));
            } else {
                emit(std::move(r), depth + 1);
            }
        }
    }

    std::string_view src_;
    const Reporter& rep_;
    size_t pos_ = 0;
    uint32_t line_ = 0;
    std::map<std::string, std::vector<Token>, std::less<>> macros_;
    std::vector<Token> out_;
};

} // namespace

std::vector<Token> lex(std::string_view body, const Reporter& rep) {
    return Lexer(body, rep).run();
}

} // namespace egopt::interp::c
