#include "rational.hpp"

#include "egopt/support/diagnostic.hpp"

#include <limits>

namespace egopt::arith::detail {

void throwOverflow() {
    throw Error(ErrorKind::BadInput, "size expression overflows 64-bit integers");
}

std::optional<int64_t> tryNarrow(i128 v) {
    if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
        return std::nullopt;
    }
    return static_cast<int64_t>(v);
}

int64_t narrow(i128 v) {
    auto r = tryNarrow(v);
    if (!r) {
        throwOverflow();
    }
    return *r;
}

i128 gcd128(i128 a, i128 b) {
    if (a < 0) {
        a = -a;
    }
    if (b < 0) {
        b = -b;
    }
    while (b != 0) {
        i128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

i128 floorDiv128(i128 a, i128 b) {
    i128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) {
        --q;
    }
    return q;
}

i128 floorMod128(i128 a, i128 b) {
    return a - b * floorDiv128(a, b);
}

Rational Rational::make(i128 n, i128 d) {
    if (d == 0) {
        throw Error(ErrorKind::Internal, "rational with zero denominator");
    }
    if (d < 0) {
        n = -n;
        d = -d;
    }
    i128 g = gcd128(n, d);
    if (g > 1) {
        n /= g;
        d /= g;
    }
    Rational r;
    r.num = narrow(n);
    r.den = narrow(d);
    return r;
}

Rational operator+(const Rational& a, const Rational& b) {
    if (a.den == 1 && b.den == 1) {
        return Rational::make(i128(a.num) + b.num, 1);
    }
    return Rational::make(i128(a.num) * b.den + i128(b.num) * a.den, i128(a.den) * b.den);
}

Rational operator-(const Rational& a) {
    return Rational::make(-i128(a.num), a.den);
}

Rational operator-(const Rational& a, const Rational& b) {
    return a + (-b);
}

Rational operator*(const Rational& a, const Rational& b) {
    return Rational::make(i128(a.num) * b.num, i128(a.den) * b.den);
}

Rational operator/(const Rational& a, const Rational& b) {
    return Rational::make(i128(a.num) * b.den, i128(a.den) * b.num);
}

int compare(const Rational& a, const Rational& b) {
    i128 l = i128(a.num) * b.den;
    i128 r = i128(b.num) * a.den;
    return l < r ? -1 : (l > r ? 1 : 0);
}

} // namespace egopt::arith::detail
