// The parser's lookahead for a lambda's start, on the token list.
#include "lexer.hpp"

#include <algorithm>

namespace egopt::lift::detail {

namespace {

const Token& at(const std::vector<Token>& toks, size_t i) {
    return toks[std::min(i, toks.size() - 1)]; // the last token is End
}

// The token index after a parameter's `: Type` annotation starting at i (i itself when there is
// none): up to a ',' or ')' outside brackets.
size_t afterAnnotation(const std::vector<Token>& toks, size_t i) {
    if (at(toks, i).kind != Tok::Colon) {
        return i;
    }
    int depth = 0;
    for (++i; at(toks, i).kind != Tok::End; ++i) {
        Tok k = at(toks, i).kind;
        if (depth == 0 && (k == Tok::Comma || k == Tok::RParen)) {
            return i;
        }
        if (k == Tok::Arrow || k == Tok::Equals || k == Tok::LBrace) {
            return i; // not an annotation of a lambda parameter
        }
        depth += (k == Tok::LParen || k == Tok::LBracket) ? 1 : 0;
        depth -= (k == Tok::RParen || k == Tok::RBracket) ? 1 : 0;
    }
    return i;
}

} // namespace

bool lambdaStartsAt(const std::vector<Token>& toks, size_t pos) {
    if (at(toks, pos).kind == Tok::Ident && at(toks, pos + 1).kind == Tok::Arrow) {
        return true;
    }
    if (at(toks, pos).kind != Tok::LParen) {
        return false;
    }
    size_t i = pos + 1;
    if (at(toks, i).kind == Tok::RParen) {
        return at(toks, i + 1).kind == Tok::Arrow;
    }
    while (at(toks, i).kind == Tok::Ident) {
        i = afterAnnotation(toks, i + 1);
        if (at(toks, i).kind == Tok::RParen) {
            return at(toks, i + 1).kind == Tok::Arrow;
        }
        if (at(toks, i).kind != Tok::Comma) {
            return false;
        }
        ++i;
    }
    return false;
}

} // namespace egopt::lift::detail
