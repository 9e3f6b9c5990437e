// The lexer of the .lift front end.
#include "lexer.hpp"

#include <cctype>

namespace egopt::lift::detail {

namespace {

bool isIdentStart(unsigned char c) {
    return std::isalpha(c) || c == '_' || c == '$';
}
bool isIdentChar(unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '$';
}
bool isOperatorChar(char c) {
    return std::string_view("+-*/%^<>:!&|~?#@").find(c) != std::string_view::npos;
}

class Lexer {
public:
    Lexer(std::string_view src, const std::string& file) : src_(src), file_(file) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        while (true) {
            skipSpaceAndComments();
            Token t = next();
            bool end = t.kind == Tok::End;
            out.push_back(std::move(t));
            if (end) {
                return out;
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string& msg, SourceLoc loc) const {
        badInput(msg, file_, loc);
    }

    char peek(size_t ahead = 0) const {
        return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
    }
    bool atEnd() const { return pos_ >= src_.size(); }
    SourceLoc here() const { return {line_, col_}; }

    void advance() {
        if (src_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else if ((static_cast<unsigned char>(src_[pos_]) & 0xC0) != 0x80) {
            ++col_; // count UTF-8 code points, not bytes, so carets line up
        }
        ++pos_;
    }

    void skipSpaceAndComments() {
        while (!atEnd()) {
            char c = peek();
            if (std::isspace(static_cast<unsigned char>(c))) {
                advance();
            } else if (c == '/' && peek(1) == '/') {
                while (!atEnd() && peek() != '\n') {
                    advance();
                }
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
            } else {
                return;
            }
        }
    }

    void skipBlockComment() {
        SourceLoc start = here();
        advance();
        advance();
        while (!(peek() == '*' && peek(1) == '/')) {
            if (atEnd()) {
                fail("unterminated comment: expected */", start);
            }
            advance();
        }
        advance();
        advance();
    }

    Token make(Tok kind, size_t begin, SourceLoc loc) const {
        return Token{kind, std::string(src_.substr(begin, pos_ - begin)), loc};
    }

    Token next() {
        SourceLoc loc = here();
        size_t begin = pos_;
        if (atEnd()) {
            return Token{Tok::End, "", loc};
        }
        unsigned char c = static_cast<unsigned char>(peek());
        if (c == 0xCE && static_cast<unsigned char>(peek(1)) == 0xBB) { // λ in UTF-8
            advance();
            advance();
            return Token{Tok::Lambda, "λ", loc};
        }
        if (isIdentStart(c)) {
            while (!atEnd() && isIdentChar(static_cast<unsigned char>(peek()))) {
                advance();
            }
            return make(Tok::Ident, begin, loc);
        }
        if (std::isdigit(c)) {
            return number(begin, loc);
        }
        if (c == '"') {
            return string(loc);
        }
        if (c == '=' && peek(1) == '>') {
            advance();
            advance();
            return make(Tok::Arrow, begin, loc);
        }
        return punctuation(c, begin, loc);
    }

    Token punctuation(unsigned char c, size_t begin, SourceLoc loc) {
        static constexpr std::pair<char, Tok> kSingle[] = {
            {'(', Tok::LParen},   {')', Tok::RParen},   {'{', Tok::LBrace},   {'}', Tok::RBrace},
            {',', Tok::Comma},    {'.', Tok::Dot},      {'=', Tok::Equals},   {'\\', Tok::Lambda},
            {';', Tok::Operator}, {'[', Tok::LBracket}, {']', Tok::RBracket},
        };
        for (auto [ch, kind] : kSingle) {
            if (c == static_cast<unsigned char>(ch)) {
                advance();
                return make(kind, begin, loc);
            }
        }
        if (isOperatorChar(static_cast<char>(c))) {
            while (!atEnd() && isOperatorChar(peek())) {
                advance();
            }
            Token t = make(Tok::Operator, begin, loc);
            if (t.text == ":") {
                t.kind = Tok::Colon;
            }
            return t;
        }
        std::string shown = std::isprint(c) ? std::string(1, static_cast<char>(c))
                                            : "byte " + std::to_string(static_cast<int>(c));
        fail("unexpected character '" + shown + "'", loc);
    }

    Token number(size_t begin, SourceLoc loc) {
        bool isFloat = false;
        auto digits = [&] {
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                advance();
            }
        };
        digits();
        if (peek() == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
            isFloat = true;
            advance();
            digits();
        }
        if ((peek() == 'e' || peek() == 'E') &&
            (std::isdigit(static_cast<unsigned char>(peek(1))) ||
             ((peek(1) == '-' || peek(1) == '+') &&
              std::isdigit(static_cast<unsigned char>(peek(2)))))) {
            isFloat = true;
            advance();
            advance();
            digits();
        }
        if (peek() == 'f' || peek() == 'F' || peek() == 'd' || peek() == 'D') {
            isFloat = true;
            advance();
        } else if (peek() == 'L' || peek() == 'l') {
            advance();
        }
        if (isIdentChar(static_cast<unsigned char>(peek()))) {
            fail("malformed number: expected a digit, 'f' or a separator after '" +
                     std::string(src_.substr(begin, pos_ - begin)) + "'",
                 here());
        }
        return make(isFloat ? Tok::Float : Tok::Int, begin, loc);
    }

    Token string(SourceLoc loc) {
        if (peek(1) == '"' && peek(2) == '"') {
            return rawString(loc);
        }
        advance();
        std::string text;
        while (peek() != '"') {
            if (atEnd() || peek() == '\n') {
                fail("unterminated string: expected a closing \"", loc);
            }
            if (peek() == '\\') {
                advance();
                text += escape(loc);
                continue;
            }
            text += peek();
            advance();
        }
        advance();
        return Token{Tok::String, std::move(text), loc};
    }

    char escape(SourceLoc loc) {
        char c = peek();
        if (atEnd()) {
            fail("unterminated string: expected a closing \"", loc);
        }
        advance();
        switch (c) {
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case '"':
        case '\\':
        case '\'':
            return c;
        default:
            fail(std::string("unknown escape sequence '\\") + c + "'", here());
        }
    }

    Token rawString(SourceLoc loc) {
        advance();
        advance();
        advance();
        size_t begin = pos_;
        while (!(peek() == '"' && peek(1) == '"' && peek(2) == '"')) {
            if (atEnd()) {
                fail("unterminated string: expected a closing \"\"\"", loc);
            }
            advance();
        }
        std::string text(src_.substr(begin, pos_ - begin));
        advance();
        advance();
        advance();
        return Token{Tok::String, std::move(text), loc};
    }

    std::string_view src_;
    const std::string& file_;
    size_t pos_ = 0;
    uint32_t line_ = 1;
    uint32_t col_ = 1;
};

} // namespace

std::string_view tokenKindName(Tok kind) {
    switch (kind) {
    case Tok::End:
        return "end of file";
    case Tok::Ident:
        return "a name";
    case Tok::Int:
        return "an integer";
    case Tok::Float:
        return "a floating-point number";
    case Tok::String:
        return "a string";
    case Tok::LParen:
        return "'('";
    case Tok::RParen:
        return "')'";
    case Tok::LBrace:
        return "'{'";
    case Tok::RBrace:
        return "'}'";
    case Tok::LBracket:
        return "'['";
    case Tok::RBracket:
        return "']'";
    case Tok::Comma:
        return "','";
    case Tok::Dot:
        return "'.'";
    case Tok::Arrow:
        return "'=>'";
    case Tok::Equals:
        return "'='";
    case Tok::Colon:
        return "':'";
    case Tok::Lambda:
        return "a lambda";
    case Tok::Operator:
        return "an operator";
    }
    return "a token";
}

std::string describeToken(const Token& token) {
    switch (token.kind) {
    case Tok::End:
        return "end of file";
    case Tok::String:
        return "a string";
    case Tok::Ident:
    case Tok::Int:
    case Tok::Float:
    case Tok::Operator:
        return "'" + token.text + "'";
    default:
        return std::string(tokenKindName(token.kind));
    }
}

namespace {

// UserFun(...).setScalaFun(xs => ...) or .setScalaFun { xs => ... }: Scala code for Lift's own
// interpreter, not Lift; egopt runs the C body, so `.setScalaFun` and its argument are dropped as
// balanced tokens.
std::vector<Token> withoutScalaFunctions(std::vector<Token> toks, const std::string& fileName) {
    std::vector<Token> out;
    for (size_t i = 0; i < toks.size(); ++i) {
        if (toks[i].kind != Tok::Dot || i + 2 >= toks.size() || toks[i + 1].kind != Tok::Ident ||
            toks[i + 1].text != "setScalaFun" ||
            (toks[i + 2].kind != Tok::LParen && toks[i + 2].kind != Tok::LBrace)) {
            out.push_back(std::move(toks[i]));
            continue;
        }
        SourceLoc open = toks[i + 2].loc;
        Tok opening = toks[i + 2].kind;
        Tok closing = opening == Tok::LParen ? Tok::RParen : Tok::RBrace;
        int depth = 0;
        for (i += 2;; ++i) {
            if (toks[i].kind == Tok::End) {
                badInput(std::string("expected '") + (opening == Tok::LParen ? ')' : '}') +
                             "' closing setScalaFun's argument, found end of file",
                         fileName, open);
            }
            depth += toks[i].kind == opening ? 1 : toks[i].kind == closing ? -1 : 0;
            if (depth == 0) {
                break;
            }
        }
    }
    return out;
}

} // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& fileName) {
    return withoutScalaFunctions(Lexer(source, fileName).run(), fileName);
}

} // namespace egopt::lift::detail
