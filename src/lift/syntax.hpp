// Internal to the front end: the surface syntax tree of a .lift file, before elaboration.
//
// The parser knows the grammar of the Scala subset (calls, lambdas, infix operators, field
// access, val/def bindings) but nothing about Lift: which names are patterns, types or sizes is
// decided by the elaborator. Nodes live in one arena and refer to each other by index.
#pragma once

#include "egopt/support/diagnostic.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace egopt::lift::detail {

using SyntaxId = uint32_t;

enum class SyntaxKind : uint8_t {
    Name,   // text = identifier
    Int,    // text = digits
    Float,  // text = literal as written
    String, // text = contents
    Call,   // children = {callee, args...}; f(a, b) and curried f(a)(b)
    Lambda, // names = parameters; children = {body}. `fun(T1, x => e)` is a Call of fun;
            // text = "def" for `def f(x: T) = e` (applied by substitution, like Scala's host code)
    Field,  // children = {object}; text = field name (x._0, x.at, s.stripMargin)
    Binary, // children = {lhs, rhs}; text = operator (o $ :>> <<: + - * / /^ %)
    Negate, // children = {operand}
    Block,  // { val a = e1; def f(x) = e2; result }: names = binding names, children = their
            // values then the result (a `val (a, b) = e` binds a to e._0 and b to e._1)
};

struct Syntax {
    SyntaxKind kind = SyntaxKind::Name;
    std::string text;
    std::vector<SyntaxId> children;
    std::vector<std::string> names;
    SourceLoc loc;
};

// A whole file: `val`/`def` bindings in order, then the program expression.
struct SyntaxFile {
    std::vector<Syntax> nodes;
    std::vector<std::string> bindingNames;
    std::vector<SyntaxId> bindingValues;
    std::vector<SourceLoc> bindingLocs;
    SyntaxId program = 0;
    // Size variable names in order of first textual appearance (SizeVar("N"), v_N_0, ...).
    std::vector<std::string> sizeVarOrder;
    std::vector<SourceLoc> sizeVarLocs; // where each first appears

    // Records a size variable's first appearance (later ones change nothing).
    void noteSizeVar(const std::string& name, SourceLoc loc) {
        if (std::find(sizeVarOrder.begin(), sizeVarOrder.end(), name) == sizeVarOrder.end()) {
            sizeVarOrder.push_back(name);
            sizeVarLocs.push_back(loc);
        }
    }

    const Syntax& at(SyntaxId id) const { return nodes.at(id); }
};

SyntaxFile parseSyntax(const std::string& source, const std::string& fileName);

// The size variable an identifier of the printed form stands for: v_M_0 -> "M", v__3 -> "v__3"
// (a tuning variable); empty for other identifiers.
std::string printedSizeVariable(const std::string& ident);

// scala_words.cpp: an infix operator's precedence (higher binds tighter) and associativity, and
// whether a word is Scala outside the Lift language egopt reads (if, match, class, var, ...).
int precedence(const std::string& op);
bool rightAssociative(const std::string& op);
bool isScalaOutsideLift(const std::string& word);

} // namespace egopt::lift::detail
