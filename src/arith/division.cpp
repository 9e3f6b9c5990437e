// Floor division and modulo: the range-free rewrites that keep the canonical form small.
//
// Semantics are floor division and the modulo with the sign of the divisor (a == b*(a/b) + a%b,
// 0 <= a%b < b for b > 0). Every rewrite here is valid for all integer values of the
// variables, and never turns an operand that is non-negative into one that might be negative, so
// that C's truncating `/` and `%` (see Size::toC) stay correct for index arithmetic.
#include "node.hpp"

namespace egopt::arith {

namespace {

using detail::i128;

// Splits a into the terms that the single-term divisor c*m divides with an integer-valued
// quotient, and the rest.
DivisorSplit splitDivisible(const Size& a, const Rational& c, Monomial m) {
    const Node& n = a.node();
    PolyBuilder quotient;
    PolyBuilder remainder;
    for (const Term& t : n.terms) {
        Rational qc = t.coeff / c;
        PolyBuilder q;
        q.addProduct(qc, n.monomial(t), m, -1);
        Size qs = q.finish();
        if (qc.isInteger() && integerPolynomial(qs)) {
            quotient.addSize(qs);
        } else {
            remainder.add(t.coeff, n.monomial(t));
        }
    }
    return {quotient.finish(), remainder.finish()};
}

std::optional<int64_t> integerConstant(const Size& s) {
    return s.constant();
}

// gcd of the (integer) coefficients of a and of c; 1 unless a is an integer polynomial: a / g
// must stay integer-valued for floor(a / c) == floor((a / g) / (c / g)) to be simplified further
// (-3 * T^-1 is an integer when T divides 3, but -T^-1 is not).
int64_t content(const Size& a, int64_t c) {
    if (!integerPolynomial(a)) {
        return 1;
    }
    i128 g = c;
    for (const Term& t : a.node().terms) {
        if (!t.coeff.isInteger()) {
            return 1;
        }
        g = detail::gcd128(g, t.coeff.num);
    }
    return static_cast<int64_t>(g);
}

Size scaleDown(const Size& a, int64_t g) {
    PolyBuilder b;
    b.addSize(a, Rational::make(1, g));
    return b.finish();
}

Size floorDivByConstant(const Size& a, int64_t c) {
    if (int64_t g = content(a, c); g > 1) {
        return floorDiv(scaleDown(a, g), Size(c / g));
    }
    DivisorSplit s = splitDivisible(a, Rational(c), {});
    if (auto r = integerConstant(s.remainder)) {
        return s.quotient + Size(detail::narrow(detail::floorDiv128(*r, c)));
    }
    // floor(floor(x / y) / c) == floor(x / (y * c)) for c > 0.
    if (const Atom* inner = soleAtom(a); inner && inner->kind == AtomKind::FloorDiv) {
        return floorDiv(inner->lhs, inner->rhs * Size(c));
    }
    return opaqueSize(AtomKind::FloorDiv, a, Size(c));
}

Size modByConstant(const Size& a, int64_t c) {
    if (int64_t g = content(a, c); g > 1) {
        return Size(g) * mod(scaleDown(a, g), Size(c / g));
    }
    DivisorSplit s = splitDivisible(a, Rational(c), {});
    if (auto r = integerConstant(s.remainder)) {
        return Size(detail::narrow(detail::floorMod128(*r, c)));
    }
    // (x % (k*c)) % c == x % c for c > 0.
    if (const Atom* inner = soleAtom(a); inner && inner->kind == AtomKind::Mod) {
        auto d = inner->rhs.constant();
        if (d && *d > 0 && *d % c == 0) {
            return mod(inner->lhs, Size(c));
        }
    }
    return opaqueSize(AtomKind::Mod, a, Size(c));
}

} // namespace

Size floorDiv(const Size& a, const Size& b) {
    if (isZero(b)) {
        return opaqueSize(AtomKind::FloorDiv, a, b);
    }
    auto ca = integerConstant(a);
    auto cb = integerConstant(b);
    if (ca && cb) {
        return Size(detail::narrow(detail::floorDiv128(*ca, *cb)));
    }
    if (isZero(a) || cb == 1) {
        return a;
    }
    if (cb == -1) {
        return -a;
    }
    Rational c;
    Monomial m;
    if (singleTerm(b, c, m)) {
        if (c.isNegative()) {
            return floorDiv(-a, -b); // floor(a / b) == floor(-a / -b)
        }
        if (cb) {
            return floorDivByConstant(a, *cb);
        }
        DivisorSplit s = splitDivisible(a, c, m);
        if (isZero(s.remainder)) {
            return s.quotient;
        }
        return opaqueSize(AtomKind::FloorDiv, a, b);
    }
    auto q = exactDiv(a, b);
    if (integerPolynomial(q) && q * b == a) {
        return q;
    }
    return opaqueSize(AtomKind::FloorDiv, a, b);
}

Size mod(const Size& a, const Size& b) {
    if (isZero(b)) {
        return opaqueSize(AtomKind::Mod, a, b);
    }
    auto ca = integerConstant(a);
    auto cb = integerConstant(b);
    if (ca && cb) {
        return Size(detail::narrow(detail::floorMod128(*ca, *cb)));
    }
    if (isZero(a) || cb == 1 || cb == -1) {
        return Size();
    }
    Rational c;
    Monomial m;
    if (singleTerm(b, c, m)) {
        if (cb && *cb > 0) {
            return modByConstant(a, *cb);
        }
        if (isZero(splitDivisible(a, c, m).remainder)) {
            return Size();
        }
        return opaqueSize(AtomKind::Mod, a, b);
    }
    auto q = exactDiv(a, b);
    if (integerPolynomial(q) && q * b == a) {
        return Size();
    }
    return opaqueSize(AtomKind::Mod, a, b);
}

} // namespace egopt::arith
