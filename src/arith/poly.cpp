// Ring operations on canonical sizes: + - *, exact division and powers.
#include "node.hpp"

#include <cstdlib>

namespace egopt::arith {

namespace {

// Polynomial bases are expanded up to this power so that pow(N+1, 2) == (N+1)*(N+1); larger
// powers of sums stay opaque atoms.
constexpr int64_t kMaxExpandedPower = 8;
// Long division by a sum gives up after this many steps (it only has to find exact quotients).
constexpr int kMaxDivisionSteps = 64;

Rational powRational(const Rational& c, int64_t k) {
    if (c == Rational(1) || k == 0) {
        return Rational(1);
    }
    if (c == Rational(-1)) {
        return Rational(k % 2 == 0 ? 1 : -1);
    }
    if (c.isZero()) {
        return Rational(0);
    }
    if (k > 126) {
        detail::throwOverflow(); // |c| >= 2 or a denominator >= 2: cannot fit
    }
    Rational r(1);
    for (int64_t i = 0; i < k; ++i) {
        r = r * c;
    }
    return r;
}

// The product of a single term (c * m) with itself k times.
Size powTerm(const Rational& c, Monomial m, int64_t k) {
    std::vector<Factor> fs(m.begin(), m.end());
    for (Factor& f : fs) {
        int64_t e = int64_t(f.exp) * k;
        if (e > INT32_MAX || e < INT32_MIN) {
            detail::throwOverflow();
        }
        f.exp = static_cast<int32_t>(e);
    }
    return termSize(powRational(c, k), fs);
}

// q with a == q * b exactly as polynomials, found by long division on leading terms.
std::optional<Size> divideExactly(const Size& a, const Size& b) {
    const Node& bn = b.node();
    const Term& lead = bn.terms.front();
    Size remainder = a;
    PolyBuilder quotient;
    for (int step = 0; step < kMaxDivisionSteps; ++step) {
        const Node& rn = remainder.node();
        if (rn.terms.empty()) {
            return quotient.finish();
        }
        const Term& top = rn.terms.front();
        PolyBuilder t;
        t.addProduct(top.coeff / lead.coeff, rn.monomial(top), bn.monomial(lead), -1);
        Size ts = t.finish();
        quotient.addSize(ts);
        remainder = remainder - ts * b;
    }
    return std::nullopt;
}

} // namespace

Size opaqueSize(AtomKind kind, const Size& a, const Size& b) {
    return atomSize(makeAtom(kind, a, b));
}

Size operator+(const Size& a, const Size& b) {
    if (isZero(a)) {
        return b;
    }
    if (isZero(b)) {
        return a;
    }
    PolyBuilder builder;
    builder.addSize(a);
    builder.addSize(b);
    return builder.finish();
}

Size operator-(const Size& a) {
    PolyBuilder builder;
    builder.addSize(a, Rational(-1));
    return builder.finish();
}

Size operator-(const Size& a, const Size& b) {
    if (isZero(b)) {
        return a;
    }
    PolyBuilder builder;
    builder.addSize(a);
    builder.addSize(b, Rational(-1));
    return builder.finish();
}

Size operator*(const Size& a, const Size& b) {
    if (isZero(a) || isZero(b)) {
        return Size();
    }
    if (a.constant() == 1) {
        return b;
    }
    if (b.constant() == 1) {
        return a;
    }
    const Node& x = a.node();
    const Node& y = b.node();
    PolyBuilder builder;
    for (const Term& s : x.terms) {
        for (const Term& t : y.terms) {
            builder.addProduct(s.coeff * t.coeff, x.monomial(s), y.monomial(t));
        }
    }
    return builder.finish();
}

Size exactDiv(const Size& a, const Size& b) {
    if (isZero(b)) {
        return opaqueSize(AtomKind::ExactDiv, a, b);
    }
    if (isZero(a)) {
        return a;
    }
    Rational c;
    Monomial m;
    if (singleTerm(b, c, m)) {
        const Node& x = a.node();
        PolyBuilder builder;
        for (const Term& t : x.terms) {
            builder.addProduct(t.coeff / c, x.monomial(t), m, -1);
        }
        return builder.finish();
    }
    if (auto q = divideExactly(a, b)) {
        return *q;
    }
    // Normalise the sign so that a /^ b and (-a) /^ (-b) are the same atom.
    if (b.node().terms.front().coeff.isNegative()) {
        return opaqueSize(AtomKind::ExactDiv, -a, -b);
    }
    return opaqueSize(AtomKind::ExactDiv, a, b);
}

Size pow(const Size& base, const Size& exponent) {
    auto k = exponent.constant();
    if (!k) {
        if (base.constant() == 1) {
            return base;
        }
        return opaqueSize(AtomKind::Pow, base, exponent);
    }
    if (*k == 0) {
        return Size(1); // including pow(0, 0), as in the Lift compiler
    }
    if (*k < 0) {
        if (*k == INT64_MIN) {
            detail::throwOverflow();
        }
        return exactDiv(Size(1), pow(base, Size(-*k)));
    }
    Rational c;
    Monomial m;
    if (isZero(base)) {
        return base;
    }
    if (singleTerm(base, c, m)) {
        return powTerm(c, m, *k);
    }
    if (*k <= kMaxExpandedPower) {
        Size r = base;
        for (int64_t i = 1; i < *k; ++i) {
            r = r * base;
        }
        return r;
    }
    return opaqueSize(AtomKind::Pow, base, exponent);
}

} // namespace egopt::arith
