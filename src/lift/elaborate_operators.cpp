// Elaboration of operators (composition, application, size and literal arithmetic, string
// concatenation), negation, and member calls (t._0, .stripMargin, .toFloat, .length, .apply).
#include "elaborate.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>

namespace egopt::lift::detail {

// A scalar literal's C text as a Float (`2.0f`) or a Double (`2.0`): Scala's .toFloat and
// .toDouble. Named constants (FLT_MAX, INFINITY) keep their text.
NodeId Elaborator::numberLiteral(std::string text, bool single, SourceLoc loc) {
    size_t digits = text.find_first_not_of("+-");
    bool numeric = digits < text.size() &&
                   (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.');
    if (numeric) {
        if (text.back() == 'f' || text.back() == 'F') {
            text.pop_back();
        }
        if (text.find_first_of(".eExX") == std::string::npos) {
            text += ".0";
        }
        if (single) {
            text += "f";
        }
    }
    TypeId t = program_.types.scalar(single ? ScalarKind::Float : ScalarKind::Double);
    return program_.addLiteral(t, text, loc);
}

// outer o inner, flattened into one composition.
Val Elaborator::compose(Val outer, Val inner, SourceLoc loc) {
    outer = asFunctionValue(outer);
    inner = asFunctionValue(inner);
    Callable c;
    c.kind = Callable::Kind::Compose;
    for (const Val* part : {&outer, &inner}) {
        if (part->kind != Val::Kind::Fun) {
            asFunction(*part, part->loc, "as an operand of 'o' (function composition)");
        }
        if (part->fun.kind == Callable::Kind::Compose) {
            c.parts.insert(c.parts.end(), part->fun.parts.begin(), part->fun.parts.end());
        } else {
            c.parts.push_back(part->fun);
        }
    }
    Val v = outer;
    v.fun = std::move(c);
    v.loc = loc;
    return v;
}

Val Elaborator::binary(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    const std::string& op = s.text;
    static constexpr std::string_view kOperators[] = {"o", "$", "<<:", ":>>", ">>>", "+",
                                                      "-", "*", "/",   "/^",  "%"};
    if (std::find(std::begin(kOperators), std::end(kOperators), op) == std::end(kOperators)) {
        failAt(id,
               "unknown operator '" + op + "': expected o, >>>, $, :>>, <<:, +, -, *, /, /^ or %");
    }
    Val lhs = eval(s.children[0], env);
    Val rhs = eval(s.children[1], env);
    if (op == ">>>") { // Lift's reverse composition: f >>> g is g o f
        std::swap(lhs, rhs);
        return compose(lhs, rhs, s.loc);
    }
    if (op == "o" || op == "$" || op == "<<:" || op == ":>>") {
        (op == ":>>" ? rhs : lhs) = asFunctionValue(op == ":>>" ? rhs : lhs);
        if (op == "o") {
            rhs = asFunctionValue(rhs);
        }
    }
    if (op == "+" && lhs.kind == Val::Kind::String && rhs.kind == Val::Kind::String) {
        lhs.text += rhs.text; // "{" + "return x;" + "}": a C body split over several strings
        return lhs;
    }
    bool arithmetic = op != "o" && op != "$" && op != "<<:" && op != ":>>";
    if (arithmetic && (lhs.kind == Val::Kind::Expr || rhs.kind == Val::Kind::Expr)) {
        return foldLiterals(id, lhs, rhs);
    }
    if (op == "o") {
        return compose(lhs, rhs, s.loc);
    }
    if (op == "$" || op == "<<:" || op == ":>>") {
        const Val& f = op == ":>>" ? rhs : lhs;
        const Val& x = op == ":>>" ? lhs : rhs;
        if (f.kind != Val::Kind::Fun) {
            asFunction(f, f.loc, ("on the function side of '" + op + "'").c_str());
        }
        NodeId arg = asExpr(x, x.loc, ("on the data side of '" + op + "'").c_str());
        return exprVal(applyCallable(f.fun, {arg}, s.loc), s.loc);
    }
    arith::Size a = asSize(lhs, lhs.loc, ("as an operand of '" + op + "'").c_str());
    arith::Size b = asSize(rhs, rhs.loc, ("as an operand of '" + op + "'").c_str());
    auto divisor = [&]() -> const arith::Size& {
        if (b.constant() == 0) {
            failAt(s.children[1], "division by zero in a size expression");
        }
        return b;
    };
    if (op == "+") {
        return sizeVal(a + b, s.loc);
    }
    if (op == "-") {
        return sizeVal(a - b, s.loc);
    }
    if (op == "*") {
        return sizeVal(a * b, s.loc);
    }
    if (op == "/") {
        return sizeVal(floorDiv(a, divisor()), s.loc);
    }
    if (op == "/^") {
        return sizeVal(exactDiv(a, divisor()), s.loc);
    }
    if (op == "%") {
        return sizeVal(mod(a, divisor()), s.loc);
    }
    failAt(id, "unknown operator '" + op + "': expected o, $, :>>, <<:, +, -, *, /, /^ or %");
}

// Scala arithmetic on number literals (1.0f / 9.0f, 2 * 0.5f) in constants of a program.
Val Elaborator::foldLiterals(SyntaxId id, const Val& lhs, const Val& rhs) {
    const Syntax& s = file_.at(id);
    auto number = [&](const Val& v) -> std::optional<double> {
        if (v.kind == Val::Kind::Size && v.size.constant()) {
            return static_cast<double>(*v.size.constant());
        }
        if (v.kind != Val::Kind::Expr || program_.op(v.node) != Op::Literal) {
            return std::nullopt;
        }
        const LiteralDecl& lit = program_.literals[static_cast<size_t>(program_.node(v.node).ival)];
        if (lit.type != program_.types.floatType() &&
            lit.type != program_.types.scalar(ScalarKind::Double)) {
            return std::nullopt;
        }
        std::string text = lit.text;
        if (!text.empty() && (text.back() == 'f' || text.back() == 'F')) {
            text.pop_back();
        }
        char* end = nullptr;
        double d = std::strtod(text.c_str(), &end);
        return end == text.c_str() + text.size() && !text.empty() ? std::optional(d) : std::nullopt;
    };
    // Scala's widening: a Double on either side makes a Double, otherwise a Float.
    auto isDouble = [&](const Val& v) {
        return v.kind == Val::Kind::Expr &&
               program_.literals[static_cast<size_t>(program_.node(v.node).ival)].type ==
                   program_.types.scalar(ScalarKind::Double);
    };
    auto a = number(lhs);
    auto b = number(rhs);
    if (!a || !b || s.text == "%" || s.text == "/^") {
        failAt(id, "expected number literals on both sides of '" + s.text +
                       "' (arithmetic on data is written with user functions)");
    }
    double r = s.text == "+"   ? *a + *b
               : s.text == "-" ? *a - *b
               : s.text == "*" ? *a * *b
                               : *a / *b;
    bool wide = isDouble(lhs) || isDouble(rhs);
    char buf[64];
    std::snprintf(buf, sizeof buf, wide ? "%.17g" : "%.9gf", r);
    std::string text = buf;
    if (text.find_first_of(".e") == std::string::npos) {
        text.insert(wide ? text.size() : text.size() - 1, ".0");
    }
    TypeId t = wide ? program_.types.scalar(ScalarKind::Double) : program_.types.floatType();
    return exprVal(program_.addLiteral(t, text, s.loc), s.loc);
}

Val Elaborator::negate(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    Val v = eval(s.children[0], env);
    if (v.kind == Val::Kind::Size) {
        return sizeVal(-v.size, s.loc);
    }
    if (v.kind == Val::Kind::Expr && program_.op(v.node) == Op::Literal) {
        const LiteralDecl& lit = program_.literals[static_cast<size_t>(program_.node(v.node).ival)];
        std::string text = lit.text.starts_with('-') ? lit.text.substr(1) : "-" + lit.text;
        return exprVal(program_.addLiteral(lit.type, text, s.loc), s.loc);
    }
    failAt(id, "expected a number or a size after '-'");
}

Val Elaborator::field(SyntaxId id, const EnvPtr& env) {
    const Syntax& s = file_.at(id);
    Val obj = eval(s.children[0], env);
    if (s.text == "stripMargin" && obj.kind == Val::Kind::String) {
        std::string out;
        size_t pos = 0;
        while (pos <= obj.text.size()) {
            size_t end = obj.text.find('\n', pos);
            std::string line = obj.text.substr(pos, end == std::string::npos ? end : end - pos);
            size_t first = line.find_first_not_of(" \t");
            if (first != std::string::npos && line[first] == '|') {
                line = line.substr(first + 1);
            }
            out += line;
            if (end == std::string::npos) {
                break;
            }
            out += '\n';
            pos = end + 1;
        }
        obj.text = std::move(out);
        return obj;
    }
    if (obj.kind == Val::Kind::Partial && (obj.text == "Pad" || obj.text == "Boundary")) {
        if (obj.text == "Pad" && s.text == "Boundary") {
            obj.text = "Boundary";
            return obj;
        }
        // Lift's *Unsafe variants skip its own bounds handling for paddings shorter than the
        // array; on such paddings they mean the same, and longer ones are well defined here.
        static constexpr std::pair<const char*, PadBoundary> kBoundaries[] = {
            {"Clamp", PadBoundary::Clamp},         {"Mirror", PadBoundary::Mirror},
            {"Wrap", PadBoundary::Wrap},           {"ClampUnsafe", PadBoundary::Clamp},
            {"MirrorUnsafe", PadBoundary::Mirror}, {"WrapUnsafe", PadBoundary::Wrap}};
        for (auto [n, b] : kBoundaries) {
            if (obj.text == "Boundary" && s.text == n) {
                Val v;
                v.kind = Val::Kind::Boundary;
                v.ival = static_cast<int32_t>(b);
                v.loc = s.loc;
                return v;
            }
        }
        failAt(id, "expected Pad.Boundary.Clamp, Pad.Boundary.Mirror or Pad.Boundary.Wrap");
    }
    if (obj.kind == Val::Kind::Type) {
        if (auto limit = scalarLimit(obj.type, s.text, s.loc)) {
            return *limit;
        }
    }
    if (s.text == "toFloat" || s.text == "toDouble") {
        bool single = s.text == "toFloat";
        if (obj.kind == Val::Kind::Size && obj.size.constant()) {
            return exprVal(numberLiteral(std::to_string(*obj.size.constant()), single, s.loc),
                           s.loc);
        }
        if (obj.kind == Val::Kind::Expr && program_.op(obj.node) == Op::Literal) {
            const LiteralDecl& lit =
                program_.literals[static_cast<size_t>(program_.node(obj.node).ival)];
            if (program_.types.kind(lit.type) == TypeKind::Scalar) {
                return exprVal(numberLiteral(lit.text, single, s.loc), s.loc);
            }
        }
        failAt(id, "expected a number before ." + s.text);
    }
    if (s.text == "apply" && (obj.kind == Val::Kind::Fun || obj.kind == Val::Kind::Macro ||
                              obj.kind == Val::Kind::Partial)) {
        return obj; // f.apply(a, b) is Scala's spelling of f(a, b)
    }
    if ((s.text == "length" || s.text == "size") && obj.kind == Val::Kind::List) {
        return sizeVal(arith::Size(static_cast<int64_t>(obj.list.size())), s.loc);
    }
    if (s.text.size() >= 2 && s.text[0] == '_' &&
        s.text.find_first_not_of("0123456789", 1) == std::string::npos) {
        NodeId t = asExpr(obj, obj.loc, ("before ." + s.text).c_str());
        int32_t index = s.text.size() > 6 ? INT32_MAX : std::stoi(s.text.substr(1));
        return exprVal(program_.apply(node(Op::Get, index, {}, {}, s.loc), std::vector{t}, s.loc),
                       s.loc);
    }
    failAt(id, "unknown field or method '." + s.text +
                   "': expected ._0, ._1, ..., .at(i), .apply(...), .vectorize(n), .stripMargin, "
                   ".toFloat or .length");
}

} // namespace egopt::lift::detail
