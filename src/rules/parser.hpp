// The recursive-descent parser of rule files (patterns in pattern_parser.cpp, rules and
// clauses in parser.cpp).
#pragma once

#include "egopt/egraph/rewrite.hpp"
#include "egopt/rules/loader.hpp"
#include "lexer.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace egopt::rules::detail {

// Named sub-patterns (lets.cpp): `let` definitions removed, their uses replaced by their bodies.
std::vector<Token> expandLets(std::vector<Token> tokens, const std::string& file);
// Whether a name is a Lift pattern name of rule syntax (Map, toGlobal, ...).
bool isPatternName(const std::string& name);

class Parser {
public:
    Parser(std::vector<Token> tokens, std::string file, const egraph::Library& lib,
           std::vector<std::string>& includeStack)
        : t_(expandLets(std::move(tokens), file)), file_(std::move(file)), lib_(lib),
          stack_(includeStack) {}

    std::vector<egraph::Rule> parseFile();
    // The groups parseFile met, those of included files too, in file order.
    std::vector<RuleGroup> groups;

private:
    // --- tokens
    const Token& peek(size_t k = 0) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
    bool is(const char* punct) const;
    bool isIdent(const char* word) const;
    const Token& take();
    void expect(const char* punct);
    [[noreturn]] void fail(const std::string& message, SourceLoc loc) const;
    [[noreturn]] void failHere(const std::string& message) const;
    // The value of a Number token; out-of-range numbers are errors at the token.
    int64_t number(const Token& t, int64_t max = INT64_MAX) const;

    // --- rules (parser.cpp)
    void parseRule(std::vector<egraph::Rule>& out);
    void parseInclude(std::vector<egraph::Rule>& out);
    void parseGroup();
    void parseComposition(egraph::Rule& r);
    egraph::Call parseCall(const std::map<std::string, egraph::Library::Entry>& kinds,
                           const char* what);
    egraph::CallArg parseArg(char kind);
    // `shown` names the rule in errors ("a", or "a (right to left)" for the reverse of a <=>).
    void checkRule(const egraph::Rule& rule, bool bidirectional, const std::string& shown) const;

    // --- patterns (pattern_parser.cpp)
    egraph::Pattern parsePattern(bool lhs);
    egraph::PatId parseApp();
    egraph::PatId applyArgs(egraph::PatId f, SourceLoc loc);
    egraph::PatId parsePrim();
    egraph::PatId parseOp(const Token& name);
    egraph::PatId parseLambda(SourceLoc loc);
    arith::Size parseSize();
    arith::Size parseSizeProduct();
    arith::Size parseSizeAtom();
    egraph::PatId addNode(egraph::PatNode n);

    std::vector<Token> t_;
    size_t pos_ = 0;
    std::string file_;
    const egraph::Library& lib_;
    std::vector<std::string>& stack_;
    // state while parsing one rule
    egraph::Pattern* pat_ = nullptr;
    egraph::VarTable vars_;
    std::vector<std::string> scope_; // lambda binders, innermost last
    std::set<std::string> boundSizes_;
    std::vector<std::pair<std::string, SourceLoc>> usedSizes_;
    bool lhs_ = true;
    // right-hand-side variables the left does not bind: a `where ?v = @f(...)` must compute them
    std::vector<std::pair<std::string, SourceLoc>> pendingVars_;
    std::set<std::string> computedVars_;
};

} // namespace egopt::rules::detail
