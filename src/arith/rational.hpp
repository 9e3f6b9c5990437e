// Exact rational numbers with int64 numerator and denominator, for the coefficients of size
// polynomials. Arithmetic is checked: a result that does not fit int64 throws egopt::Error
// (BadInput), because such a size cannot describe a real array.
#pragma once

#include <cstdint>
#include <optional>

namespace egopt::arith::detail {

using i128 = __int128;

// Throws egopt::Error(BadInput) describing an int64 overflow in size arithmetic.
[[noreturn]] void throwOverflow();
// v as int64, or throwOverflow().
int64_t narrow(i128 v);
// v as int64 when it fits.
std::optional<int64_t> tryNarrow(i128 v);

i128 gcd128(i128 a, i128 b);
// Floor division and the modulo consistent with it (sign of the divisor); b != 0.
i128 floorDiv128(i128 a, i128 b);
i128 floorMod128(i128 a, i128 b);

// num/den in lowest terms with den > 0.
struct Rational {
    int64_t num = 0;
    int64_t den = 1;

    Rational() = default;
    Rational(int64_t n) : num(n) {} // NOLINT(google-explicit-constructor)
    // Normalises; throws on overflow or a zero denominator.
    static Rational make(i128 n, i128 d);

    bool isZero() const { return num == 0; }
    bool isInteger() const { return den == 1; }
    bool isNegative() const { return num < 0; }
    friend bool operator==(const Rational&, const Rational&) = default;
};

Rational operator+(const Rational& a, const Rational& b);
Rational operator-(const Rational& a, const Rational& b);
Rational operator-(const Rational& a);
Rational operator*(const Rational& a, const Rational& b);
Rational operator/(const Rational& a, const Rational& b); // b != 0
int compare(const Rational& a, const Rational& b);        // -1, 0, 1

} // namespace egopt::arith::detail
