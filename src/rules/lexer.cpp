#include "lexer.hpp"

#include <cctype>

namespace egopt::rules::detail {

namespace {

class Lexer {
public:
    Lexer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        while (skipSpace(), pos_ < s_.size()) {
            out.push_back(next());
        }
        out.push_back({Token::Kind::End, "end of file", loc()});
        return out;
    }

private:
    SourceLoc loc() const { return {line_, col_}; }
    char peek(size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }
    void advance() {
        if (s_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }

    void skipSpace() {
        while (pos_ < s_.size()) {
            if (std::isspace(static_cast<unsigned char>(peek()))) {
                advance();
            } else if (peek() == '/' && peek(1) == '/') {
                while (pos_ < s_.size() && peek() != '\n') {
                    advance();
                }
            } else if (peek() == '/' && peek(1) == '*') {
                SourceLoc start = loc();
                advance();
                advance();
                while (pos_ < s_.size() && !(peek() == '*' && peek(1) == '/')) {
                    advance();
                }
                if (pos_ >= s_.size()) {
                    badInput("unterminated comment", file_, start);
                }
                advance();
                advance();
            } else {
                return;
            }
        }
    }

    static bool identChar(char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    }

    Token next() {
        Token t;
        t.loc = loc();
        char c = peek();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            t.kind = Token::Kind::Ident;
            while (identChar(peek()) ||
                   (peek() == '-' && std::isalpha(static_cast<unsigned char>(peek(1))))) {
                t.text += peek();
                advance();
            }
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            t.kind = Token::Kind::Number;
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                t.text += peek();
                advance();
            }
        } else if (c == '"') {
            t.kind = Token::Kind::String;
            advance();
            while (pos_ < s_.size() && peek() != '"' && peek() != '\n') {
                t.text += peek();
                advance();
            }
            if (peek() != '"') {
                badInput("unterminated string", file_, t.loc);
            }
            advance();
        } else {
            t.kind = Token::Kind::Punct;
            for (const char* p : {"<=>", "=>", "/^"}) {
                std::string op(p);
                if (s_.compare(pos_, op.size(), op) == 0) {
                    t.text = op;
                    for (size_t i = 0; i < op.size(); ++i) {
                        advance();
                    }
                    return t;
                }
            }
            if (std::string("?#@(),$:=*+-;").find(c) == std::string::npos) {
                badInput(std::string("unexpected character '") + c + "'", file_, t.loc);
            }
            t.text = std::string(1, c);
            advance();
        }
        return t;
    }

    const std::string& s_;
    const std::string& file_;
    size_t pos_ = 0;
    uint32_t line_ = 1;
    uint32_t col_ = 1;
};

} // namespace

std::vector<Token> lex(const std::string& text, const std::string& file) {
    return Lexer(text, file).run();
}

} // namespace egopt::rules::detail
