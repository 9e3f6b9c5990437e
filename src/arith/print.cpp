// Printing sizes in Lift syntax (toString) and as C / OpenCL integer expressions (toC).
//
// Terms with integer coefficients and positive exponents print as they are. The other terms
// (rational coefficients, negative exponents: exact divisions) are put over one common
// denominator and printed as a single division, so that N/^2 + M/^2 prints as (N+M)/^2. This
// matters for C: the sum of the fractional terms is an integer whenever the whole size is (the
// integer part is), so a truncating `/` of the grouped numerator is exact, while N/2 + M/2 is
// not when N and M are odd.
#include "node.hpp"

#include <algorithm>
#include <numeric>

namespace egopt::arith {

namespace {

enum class Syntax { Lift, C };

// Lift keeps exponents above this as pow(x,k); C has no integer pow, so it always multiplies.
constexpr int32_t kMaxRepeatedFactor = 4;

class Printer {
public:
    explicit Printer(Syntax syntax) : syntax_(syntax) {}

    std::string sum(const Size& s) const {
        const Node& n = s.node();
        if (n.terms.empty()) {
            return "0";
        }
        PolyBuilder ints;
        PolyBuilder fracs;
        for (const Term& t : n.terms) {
            bool integral = t.coeff.isInteger() && integerPolynomial(termSize(1, n.monomial(t)));
            (integral ? ints : fracs).add(t.coeff, n.monomial(t));
        }
        std::string intPart = polynomial(ints.finish());
        std::string fracPart = fraction(fracs.finish());
        const Term& first = n.terms.front();
        bool fracFirst =
            !first.coeff.isInteger() || !integerPolynomial(termSize(1, n.monomial(first)));
        return fracFirst ? join(fracPart, intPart) : join(intPart, fracPart);
    }

private:
    // a followed by b, which starts with its own sign.
    static std::string join(const std::string& a, const std::string& b) {
        if (a.empty()) {
            return b;
        }
        if (b.empty() || b[0] == '-') {
            return a + b;
        }
        return a + "+" + b;
    }

    // An integer polynomial; "" for zero.
    std::string polynomial(const Size& s) const {
        const Node& n = s.node();
        std::string out;
        for (size_t i = 0; i < n.terms.size(); ++i) {
            const Term& t = n.terms[i];
            bool negative = t.coeff.isNegative();
            bool lone = false;
            std::string body = term(negative ? -t.coeff : t.coeff, n.monomial(t), lone);
            if (negative) {
                // Unary minus binds tighter than / and %: -(i%4), not -i%4.
                out += (i == 0 && lone) ? "-(" + body + ")" : "-" + body;
            } else {
                out += (i == 0 ? "" : "+") + body;
            }
        }
        return out;
    }

    // The fractional terms over a common denominator; "" for zero.
    std::string fraction(const Size& s) const {
        const Node& n = s.node();
        if (n.terms.empty()) {
            return "";
        }
        int64_t den = 1;
        std::vector<Factor> denFactors; // each atom once, with its largest negative exponent
        for (const Term& t : n.terms) {
            den =
                detail::narrow(detail::i128(den) / detail::gcd128(den, t.coeff.den) * t.coeff.den);
            for (const Factor& f : n.monomial(t)) {
                auto it = std::find_if(denFactors.begin(), denFactors.end(),
                                       [&](const Factor& d) { return sameAtom(d.atom, f.atom); });
                if (it == denFactors.end()) {
                    it = denFactors.insert(denFactors.end(), Factor{f.atom, 0});
                }
                it->exp = std::max(it->exp, -f.exp);
            }
        }
        Size denominator = Size(den);
        for (const Factor& f : denFactors) {
            if (f.exp > 0) {
                denominator = denominator * termSize(1, Monomial(&f, 1));
            }
        }
        Size numerator = s * denominator;
        bool negative = std::all_of(numerator.node().terms.begin(), numerator.node().terms.end(),
                                    [](const Term& t) { return t.coeff.isNegative(); });
        std::string num = polynomial(negative ? -numerator : numerator);
        if (numerator.node().terms.size() > 1) {
            num = "(" + num + ")";
        }
        return (negative ? "-" : "") + num + exactDivOp() + divisor(denominator);
    }

    // |coeff| * m; `lone` is set when the term is a single division or modulo atom.
    std::string term(const Rational& coeff, Monomial m, bool& lone) const {
        int count = 0;
        for (const Factor& f : m) {
            count += f.exp;
        }
        if (m.empty()) {
            return std::to_string(coeff.num);
        }
        lone = coeff == Rational(1) && count == 1 && isDivision(*m[0].atom);
        std::string out = coeff == Rational(1) ? "" : std::to_string(coeff.num);
        bool alone = out.empty() && count == 1;
        for (const Factor& f : m) {
            std::string a = atom(*f.atom, alone);
            if (syntax_ == Syntax::Lift && f.exp > kMaxRepeatedFactor) {
                out += (out.empty() ? "" : "*") + ("pow(" + a + "," + std::to_string(f.exp) + ")");
                continue;
            }
            for (int32_t i = 0; i < f.exp; ++i) {
                out += (out.empty() ? "" : "*") + a;
            }
        }
        return out;
    }

    static bool isDivision(const Atom& a) {
        return a.kind == AtomKind::FloorDiv || a.kind == AtomKind::Mod ||
               a.kind == AtomKind::ExactDiv;
    }

    std::string exactDivOp() const { return syntax_ == Syntax::Lift ? "/^" : "/"; }

    // A divisor needs parentheses unless it is a variable or a non-negative constant.
    std::string divisor(const Size& s) const {
        auto c = s.constant();
        if ((c && *c >= 0) || s.variable()) {
            return sum(s);
        }
        return "(" + sum(s) + ")";
    }

    // A dividend needs parentheses unless it is one term with a positive coefficient (/ * %
    // associate to the left).
    std::string dividend(const Size& s) const {
        const Node& n = s.node();
        std::string text = sum(s);
        if (n.terms.size() == 1 && !n.terms[0].coeff.isNegative() && text.find('+') == text.npos) {
            return text;
        }
        return "(" + text + ")";
    }

    std::string atom(const Atom& a, bool alone) const {
        std::string body;
        switch (a.kind) {
        case AtomKind::Var:
            return a.name;
        case AtomKind::Pow:
            return power(a);
        case AtomKind::FloorDiv:
            body = dividend(a.lhs) + "/" + divisor(a.rhs);
            break;
        case AtomKind::Mod:
            body = dividend(a.lhs) + "%" + divisor(a.rhs);
            break;
        case AtomKind::ExactDiv:
            body = dividend(a.lhs) + exactDivOp() + divisor(a.rhs);
            break;
        }
        return alone ? body : "(" + body + ")";
    }

    // C has no integer power: powers of two shift, anything else calls a helper that the
    // kernel prelude must define (see docs/arith.md).
    std::string power(const Atom& a) const {
        if (syntax_ == Syntax::Lift) {
            return "pow(" + sum(a.lhs) + "," + sum(a.rhs) + ")";
        }
        if (a.lhs.constant() == 2) {
            return "(1<<" + divisor(a.rhs) + ")";
        }
        return "egopt_ipow(" + sum(a.lhs) + "," + sum(a.rhs) + ")";
    }

    Syntax syntax_;
};

} // namespace

std::string Size::toString() const {
    return Printer(Syntax::Lift).sum(*this);
}

std::string Size::toC() const {
    return Printer(Syntax::C).sum(*this);
}

} // namespace egopt::arith
