// Conditions that name user functions and literals. Rule patterns match Lift patterns only
// (Map, Split, ...), so an arithmetic identity over user functions matches an application of
// any function class ?f and then requires ?f to be the user function of that name:
//     rule add-comm: ?f $ (?x, ?y) => ?f $ (?y, ?x) if isFun(?f, "add")
#include "egopt/egraph/rewrite.hpp"

#include <cstdlib>

namespace egopt::egraph {

namespace {

// The value of a float literal's text ("1.0f", "1", "-0.5"), if it is a number.
std::optional<double> literalValue(std::string text) {
    if (!text.empty() && (text.back() == 'f' || text.back() == 'F')) {
        text.pop_back();
    }
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
        return std::nullopt;
    }
    return v;
}

bool holdsUserFun(const EGraph& g, EClassId c, const std::string& name) {
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& node = g.node(n);
        if (node.op == Op::UserFun && g.userFuns.at(static_cast<size_t>(node.ival)).name == name) {
            return true;
        }
    }
    return false;
}

// Literals compare by value, so "1.0f" in a rule matches "1.0f", "1.0" and "1" in programs.
bool holdsLiteral(const EGraph& g, EClassId c, const std::string& text) {
    auto want = literalValue(text);
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& node = g.node(n);
        if (node.op != Op::Literal) {
            continue;
        }
        const auto& lit = g.literals.at(static_cast<size_t>(node.ival));
        auto have = literalValue(lit.text);
        if (lit.text == text || (want && have && *want == *have)) {
            return true;
        }
    }
    return false;
}

} // namespace

void addUserFunConditions(Library& lib) {
    lib.conditions["isFun"] = {
        {"ct", "the function class holds the user function of this name", true, Op::UserFun},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            return holdsUserFun(g, a[0].eclass, a[1].text);
        }};
    lib.conditions["isLiteral"] = {
        {"ct", "the class holds a literal of this value", true, Op::Literal},
        [](const EGraph& g, const SizeFacts&, std::span<const ArgValue> a) {
            return holdsLiteral(g, a[0].eclass, a[1].text);
        }};
}

} // namespace egopt::egraph
