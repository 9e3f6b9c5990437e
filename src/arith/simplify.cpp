// Range-aware simplification (CGO'17 §5.3) and divisibility proofs.
//
// simplify() rebuilds a size bottom-up, simplifying the operands of every floor division and
// modulo before the operation itself, with these rules (b provably >= 1):
//   b | a                         a / b -> a /^ b        a % b -> 0
//   a = x*b + y, b | x*b, y >= 0  a / b -> x + y / b     a % b -> y % b
//   0 <= y < b                    y / b -> 0             y % b -> y
//   v in [c, c]                   v -> c
//   c >= 1 (in a sum)             k*c*(x/c) + k*(x%c) -> k*x
//   c >= 1 constant (in a sum)    k*c*(x/c) + k*r -> k*x, r being x%c simplified
// The split requires y >= 0 (unless a itself is not provably >= 0) so that an operand that was
// non-negative stays so: toC() prints C's truncating / and %, which agree with floor division
// only on non-negative operands.
#include "egopt/support/diagnostic.hpp"
#include "node.hpp"

#include <algorithm>

namespace egopt::arith {

namespace {

using detail::i128;

// Trial division stops here: a larger constant may miss some of its divisors (never itself).
constexpr i128 kMaxTrialDivisor = 1 << 16;

// The divisors of n > 0 (n itself always included), largest first.
std::vector<i128> divisorsOf(i128 n) {
    std::vector<i128> small;
    std::vector<i128> large;
    for (i128 k = 1; k * k <= n && k <= kMaxTrialDivisor; ++k) {
        if (n % k == 0) {
            small.push_back(k);
            if (k * k != n) {
                large.push_back(n / k);
            }
        }
    }
    std::vector<i128> all(large.begin(), large.end());
    all.insert(all.end(), small.rbegin(), small.rend());
    return all;
}

// d | c * m for a constant d > 0, an integer coefficient c and a monomial with positive
// exponents: divide d by what c and each factor are known to be multiples of.
bool constantDividesTerm(int64_t d, const Rational& c, Monomial m, const RangeEnv& env) {
    i128 rest = d / detail::gcd128(d, c.num);
    for (const Factor& f : m) {
        Size a = atomSize(f.atom);
        for (int32_t i = 0; i < f.exp && rest > 1; ++i) {
            for (i128 g : divisorsOf(rest)) {
                if (g > 1 && env.knownDivides(Size(static_cast<int64_t>(g)), a)) {
                    rest /= g;
                    break;
                }
            }
        }
    }
    return rest == 1;
}

bool dividesTerm(const Size& d, const Rational& c, Monomial m, const RangeEnv& env) {
    Size term = termSize(c, m);
    if (isZero(mod(term, d)) || env.knownDivides(d, term)) {
        return true;
    }
    if (!c.isInteger() || !integerPolynomial(term)) {
        return false;
    }
    if (auto k = d.constant(); k && *k != INT64_MIN) {
        return constantDividesTerm(*k < 0 ? -*k : *k, c, m, env);
    }
    // d divides one integer factor, hence the product.
    return std::any_of(m.begin(), m.end(),
                       [&](const Factor& f) { return env.knownDivides(d, atomSize(f.atom)); });
}

DivisorSplit splitByDivisor(const Size& a, const Size& b, const RangeEnv& env) {
    const Node& n = a.node();
    Size quotient;
    PolyBuilder remainder;
    for (const Term& t : n.terms) {
        if (dividesTerm(b, t.coeff, n.monomial(t), env)) {
            quotient = quotient + exactDiv(termSize(t.coeff, n.monomial(t)), b);
        } else {
            remainder.add(t.coeff, n.monomial(t));
        }
    }
    return {quotient, remainder.finish()};
}

bool positive(const Size& b, const RangeEnv& env) {
    return provablyNonNegative(b - 1, env);
}

// The split is allowed when it keeps non-negative operands non-negative (see the file comment).
std::optional<DivisorSplit> usableSplit(const Size& a, const Size& b, const RangeEnv& env) {
    DivisorSplit s = splitByDivisor(a, b, env);
    if (isZero(s.quotient)) {
        return std::nullopt;
    }
    if (provablyNonNegative(s.remainder, env) || !provablyNonNegative(a, env)) {
        return s;
    }
    return std::nullopt;
}

bool inRange(const Size& y, const Size& b, const RangeEnv& env) {
    return provablyNonNegative(y, env) && provablyLess(y, b, env);
}

Size simplifyFloorDiv(const Size& a, const Size& b, const RangeEnv& env) {
    if (!positive(b, env)) {
        return floorDiv(a, b);
    }
    if (provablyDivides(b, a, env)) {
        return exactDiv(a, b);
    }
    if (inRange(a, b, env)) {
        return Size();
    }
    if (auto s = usableSplit(a, b, env)) {
        return s->quotient + (inRange(s->remainder, b, env) ? Size() : floorDiv(s->remainder, b));
    }
    return floorDiv(a, b);
}

Size simplifyMod(const Size& a, const Size& b, const RangeEnv& env) {
    if (!positive(b, env)) {
        return mod(a, b);
    }
    if (provablyDivides(b, a, env)) {
        return Size();
    }
    if (inRange(a, b, env)) {
        return a;
    }
    if (auto s = usableSplit(a, b, env)) {
        return inRange(s->remainder, b, env) ? s->remainder : mod(s->remainder, b);
    }
    return mod(a, b);
}

Size simplifyOnce(const Size& e, const RangeEnv& env);

// The term of a fold's pair beside k*x/c's or k*(x%c)'s own, and the factor k of k*x; nullopt
// when this factor of the term starts no pair of that kind.
struct PairPart {
    Size k;
    Size partner;
};

// Two pairs of the sum fold into k*x:
//  - k*c*(x/c) + k*(x%c), keyed on the modulo (any c >= 1): x == c*(x/c) + x%c holds for every
//    x and c != 0, for floor division with the divisor's modulo and for C's truncating / and %
//    alike; c >= 1 is required so that no division by zero (an undefined value) disappears.
//    Reading through Join gives such pairs: 4*(i/4) + i%4 -> i.
//  - k*c*(x/c) + k*r where r is x%c as simplification leaves it, keyed on the division (a
//    constant c dividing the coefficient): x%c often simplifies to a plain index (lid when
//    x = 16*i + lid and lid < 16), and then the pair no longer shows its modulo. Reading a tile
//    through Split(c) of a Join gives these: lid + 16*((32*i + lid)%64/16) -> (32*i + lid)%64.
std::optional<PairPart> pairPart(AtomKind kind, const Term& t, const Atom& a,
                                 const std::vector<Factor>& others, const RangeEnv& env) {
    if (kind == AtomKind::Mod) {
        Size k = termSize(t.coeff, others);
        return PairPart{k, k * a.rhs * floorDiv(a.lhs, a.rhs)};
    }
    std::optional<i128> c = a.rhs.constant();
    if (!c || termSize(t.coeff, {}).constant().value_or(0) % *c != 0) {
        return std::nullopt;
    }
    Size k = exactDiv(termSize(t.coeff, others), a.rhs);
    return PairPart{k, k * simplifyOnce(mod(a.lhs, a.rhs), env)};
}

// Folds one pair of the sum e keyed on an atom of `kind` (Mod or FloorDiv) into k*x; nullopt
// if there is none.
std::optional<Size> foldPair(const Size& e, AtomKind kind, const RangeEnv& env) {
    const Node& n = e.node();
    for (const Term& t : n.terms) {
        Monomial m = n.monomial(t);
        for (size_t f = 0; f < m.size(); ++f) {
            const Atom& a = *m[f].atom;
            if (a.kind != kind || m[f].exp != 1 || !positive(a.rhs, env)) {
                continue;
            }
            std::vector<Factor> others(m.begin(), m.end());
            others.erase(others.begin() + static_cast<std::ptrdiff_t>(f));
            std::optional<PairPart> part = pairPart(kind, t, a, others, env);
            if (!part) {
                continue;
            }
            Size rest = e - termSize(t.coeff, m) - part->partner;
            // Every term of the partner occurs in e with its exact coefficient iff subtracting
            // it removes as many terms as it has (a differing or missing term removes none).
            if (rest.node().terms.size() + part->partner.node().terms.size() + 1 ==
                n.terms.size()) {
                return rest + part->k * a.lhs;
            }
        }
    }
    return std::nullopt;
}

// Each fold removes a modulo atom from the sum and may only bring in those of its (smaller)
// operand, so this terminates; the cap bounds the work on very large sums.
Size foldDivMod(Size e, const RangeEnv& env) {
    for (size_t i = 0, cap = 2 * e.node().terms.size(); i < cap; ++i) {
        auto folded = foldPair(e, AtomKind::Mod, env);
        if (!folded) {
            folded = foldPair(e, AtomKind::FloorDiv, env);
        }
        if (!folded) {
            break;
        }
        e = *folded;
    }
    return e;
}

Size simplifyAtom(const Atom& a, const RangeEnv& env) {
    if (a.kind == AtomKind::Var) {
        auto r = env.range(a.name);
        if (r && r->min == r->max && r->min.isConstant()) {
            return r->min;
        }
        return Size::var(a.name);
    }
    Size x = simplifyOnce(a.lhs, env);
    Size y = simplifyOnce(a.rhs, env);
    switch (a.kind) {
    case AtomKind::FloorDiv:
        return simplifyFloorDiv(x, y, env);
    case AtomKind::Mod:
        return simplifyMod(x, y, env);
    case AtomKind::ExactDiv:
        return exactDiv(x, y);
    case AtomKind::Pow:
        return pow(x, y);
    case AtomKind::Var:
        break;
    }
    return Size();
}

Size simplifyOnce(const Size& e, const RangeEnv& env) {
    const Node& n = e.node();
    if (n.factors.empty()) {
        return e;
    }
    Size sum;
    for (const Term& t : n.terms) {
        Size term = rationalSize(t.coeff);
        for (const Factor& f : n.monomial(t)) {
            Size value = simplifyAtom(*f.atom, env);
            term = f.exp > 0 ? term * pow(value, Size(f.exp))
                             : exactDiv(term, pow(value, Size(-int64_t(f.exp))));
        }
        sum = sum + term;
    }
    return foldDivMod(sum, env);
}

// A rewrite can enable another one level up (a quotient that became exact); a few rounds
// reach the fixed point in practice.
constexpr int kMaxRounds = 4;

} // namespace

namespace {

bool dividesUnchecked(const Size& divisor, const Size& dividend, const RangeEnv& env) {
    if (isZero(divisor)) {
        return isZero(dividend);
    }
    if (isZero(dividend) || isZero(mod(dividend, divisor)) || env.knownDivides(divisor, dividend)) {
        return true;
    }
    const Node& n = dividend.node();
    return std::all_of(n.terms.begin(), n.terms.end(), [&](const Term& t) {
        return dividesTerm(divisor, t.coeff, n.monomial(t), env);
    });
}

} // namespace

// Size arithmetic throws on int64 overflow: a proof that overflows is not found, and a round
// of simplification that overflows is dropped.
bool provablyDivides(const Size& divisor, const Size& dividend, const RangeEnv& env) {
    try {
        return dividesUnchecked(divisor, dividend, env);
    } catch (const Error&) {
        return false;
    }
}

namespace {

Size simplifyUncached(const Size& e, const RangeEnv& env) {
    Size current = e;
    for (int round = 0; round < kMaxRounds; ++round) {
        Size next;
        try {
            next = simplifyOnce(current, env);
        } catch (const Error&) {
            break;
        }
        if (next == current) {
            break;
        }
        current = next;
    }
    return current;
}

} // namespace

Size simplify(const Size& e, const RangeEnv& env) {
    SimplifyMemo* memo = env.memo();
    if (!memo || e.node().factors.empty()) {
        return simplifyUncached(e, env);
    }
    if (std::optional<Size> known = memo->find(e, env)) {
        return *known;
    }
    Size simplified = simplifyUncached(e, env);
    memo->insert(e, env, simplified);
    return simplified;
}

} // namespace egopt::arith
