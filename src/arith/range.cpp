// Value ranges: the environment, symbolic bounds, and the proofs that simplification relies on.
//
// Bounds are symbolic Sizes over "kept" atoms: variables without a range, size variables (whose
// upper bound is themselves) and atoms that cannot be bounded better (powers, opaque exact
// divisions). A variable whose range is in terms of other variables (a loop index i in
// [0, N-1]) is replaced by its bounds. A bound over kept atoms is then proved non-negative by
// shifting every kept atom with a constant minimum m (N >= 1) to m + N' with N' >= 0, expanding,
// and checking that every coefficient is non-negative: a sum of products of non-negative values
// with non-negative coefficients is non-negative.
#include "egopt/support/diagnostic.hpp"
#include "node.hpp"

#include <algorithm>

namespace egopt::arith {

namespace {

// Ranges may refer to each other (i in [0, j], j in [0, i]); give up past this depth.
constexpr int kMaxDepth = 12;

bool mentions(const Size& s, const std::string& var) {
    auto vars = s.variables();
    return std::find(vars.begin(), vars.end(), var) != vars.end();
}

} // namespace

// ---- RangeEnv ----

RangeEnv::RangeEnv() : facts_(std::make_shared<const Facts>()) {}

void RangeEnv::adopt(std::shared_ptr<Facts> f) {
    size_t h = 0;
    for (const auto& [var, r] : f->ranges) {
        h = hashMix(hashMix(hashMix(h, std::hash<std::string>{}(var)), r.min.hash()), r.max.hash());
    }
    for (const auto& [divisor, dividend] : f->divides) {
        h = hashMix(hashMix(h, divisor.hash()), dividend.hash());
    }
    f->hash = h;
    facts_ = std::move(f);
}

void RangeEnv::declareSize(const std::string& var) {
    setRange(var, 1, Size::var(var));
}

void RangeEnv::setRange(const std::string& var, Size min, Size max) {
    std::shared_ptr<Facts> f = copyFacts();
    f->ranges[var] = Range{std::move(min), std::move(max)};
    adopt(std::move(f));
}

void RangeEnv::addDivides(const Size& divisor, const Size& dividend) {
    std::shared_ptr<Facts> f = copyFacts();
    f->divides.emplace_back(divisor, dividend);
    adopt(std::move(f));
}

std::optional<Range> RangeEnv::range(const std::string& var) const {
    auto it = facts_->ranges.find(var);
    if (it == facts_->ranges.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool RangeEnv::knownDivides(const Size& divisor, const Size& dividend) const {
    auto c = divisor.constant();
    if (isZero(dividend) || c == 1 || c == -1) {
        return true;
    }
    for (const auto& [fact, target] : facts_->divides) {
        if (target != dividend) {
            continue;
        }
        if (fact == divisor) {
            return true;
        }
        // divisor | fact | dividend when fact / divisor is an integer polynomial (2 | 128).
        Size q = exactDiv(fact, divisor);
        if (integerPolynomial(q) && q * divisor == fact) {
            return true;
        }
    }
    return false;
}

// ---- bounds ----

namespace {

// Symbolic bounds and non-negativity proofs under one environment. `depth` bounds the
// mutual recursion between bounds and proofs.
class BoundsFinder {
public:
    explicit BoundsFinder(const RangeEnv& env) : env_(env) {}

    std::optional<Range> bounds(const Size& e, int depth) const;
    bool nonNegative(const Size& e, int depth) const;

private:
    std::optional<int64_t> atomMin(const Atom& a, int depth) const;
    Range atomBounds(const AtomPtr& a, int depth) const;
    std::optional<Range> varBounds(const Atom& a, int depth) const;
    std::optional<Range> floorDivBounds(const Atom& a, int depth) const;
    std::optional<Range> termBounds(const Rational& coeff, Monomial m, int depth) const;
    std::optional<Size> lower(const Size& e, int depth) const;
    std::optional<Size> upper(const Size& e, int depth) const;
    bool nonNegativeOverKept(const Size& e, int depth) const;

    const RangeEnv& env_;
};

std::optional<int64_t> BoundsFinder::atomMin(const Atom& a, int depth) const {
    if (depth > kMaxDepth) {
        return std::nullopt;
    }
    switch (a.kind) {
    case AtomKind::Var: {
        auto r = env_.range(a.name);
        return r ? r->min.constant() : std::nullopt;
    }
    case AtomKind::Pow:
        if (nonNegative(a.rhs, depth + 1)) {
            if (nonNegative(a.lhs - 1, depth + 1)) {
                return 1;
            }
            if (nonNegative(a.lhs, depth + 1)) {
                return 0;
            }
        }
        return std::nullopt;
    case AtomKind::FloorDiv:
    case AtomKind::ExactDiv:
        if (nonNegative(a.lhs, depth + 1) && nonNegative(a.rhs - 1, depth + 1)) {
            return 0;
        }
        return std::nullopt;
    case AtomKind::Mod:
        if (nonNegative(a.rhs - 1, depth + 1)) {
            return 0;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

// Every atom lies in [atom, atom]: when nothing better is known the atom is kept symbolic.
Range BoundsFinder::atomBounds(const AtomPtr& a, int depth) const {
    Size self = atomSize(a);
    std::optional<Range> r;
    if (depth > kMaxDepth) {
        return Range{self, self};
    }
    if (a->kind == AtomKind::Var) {
        r = varBounds(*a, depth);
    } else if (a->kind == AtomKind::Mod && nonNegative(a->rhs - 1, depth + 1)) {
        if (auto hi = upper(a->rhs, depth + 1)) {
            r = Range{0, *hi - 1};
        }
    } else if (a->kind == AtomKind::FloorDiv) {
        r = floorDivBounds(*a, depth);
    }
    return r ? *r : Range{self, self}; // powers and opaque exact divisions are kept
}

// A variable with a range in terms of other variables is replaced by its bounds; a size
// variable (its upper bound is itself) is kept, or bounded below by a symbolic minimum.
std::optional<Range> BoundsFinder::varBounds(const Atom& a, int depth) const {
    auto r = env_.range(a.name);
    if (!r || mentions(r->min, a.name)) {
        return std::nullopt;
    }
    Size self = Size::var(a.name);
    if (mentions(r->max, a.name)) {
        if (r->min.isConstant()) {
            return std::nullopt; // kept, with atomMin() as its constant lower bound
        }
        auto lo = lower(r->min, depth + 1);
        return lo ? std::optional<Range>(Range{*lo, self}) : std::nullopt;
    }
    auto lo = lower(r->min, depth + 1);
    auto hi = upper(r->max, depth + 1);
    if (!lo || !hi) {
        return std::nullopt;
    }
    return Range{*lo, *hi};
}

// floor(x / c) lies in [(x - c + 1) / c, x / c] for a constant c > 0, and in [0, x] for a
// symbolic divisor >= 1 and x >= 0.
std::optional<Range> BoundsFinder::floorDivBounds(const Atom& a, int depth) const {
    auto lo = lower(a.lhs, depth + 1);
    auto hi = upper(a.lhs, depth + 1);
    if (!lo || !hi) {
        return std::nullopt;
    }
    auto c = a.rhs.constant();
    if (c && *c > 0) {
        Size scale = exactDiv(Size(1), Size(*c));
        Size low = (*lo - (*c - 1)) * scale;
        if (!nonNegative(low, depth + 1) && nonNegative(*lo, depth + 1)) {
            low = 0; // the tighter proof: floor of a non-negative value
        }
        return Range{low, *hi * scale};
    }
    if (nonNegative(*lo, depth + 1) && nonNegative(a.rhs - 1, depth + 1)) {
        return Range{0, *hi};
    }
    return std::nullopt;
}

// Bounds of coeff * monomial.
std::optional<Range> BoundsFinder::termBounds(const Rational& coeff, Monomial m, int depth) const {
    Size lo = 1;
    Size hi = 1;
    bool linear = m.size() == 1 && m[0].exp == 1;
    for (const Factor& f : m) {
        auto r = atomBounds(f.atom, depth + 1);
        bool kept = r.min == r.max && r.min == atomSize(f.atom);
        if (f.exp < 0 || kept) {
            // Kept atoms stay symbolic; a divisor must be kept and positive for monotonicity.
            auto m0 = kept ? atomMin(*f.atom, depth + 1) : std::nullopt;
            if (!linear && (!m0 || *m0 < (f.exp < 0 ? 1 : 0))) {
                return std::nullopt;
            }
            Size p = pow(r.min, f.exp);
            lo = lo * p;
            hi = hi * p;
            continue;
        }
        // A product is monotone in each factor only when all factors are non-negative.
        if (!linear && !nonNegative(r.min, depth + 1)) {
            return std::nullopt;
        }
        lo = lo * pow(r.min, f.exp);
        hi = hi * pow(r.max, f.exp);
    }
    Size c = rationalSize(coeff);
    if (coeff.isNegative()) {
        return Range{c * hi, c * lo};
    }
    return Range{c * lo, c * hi};
}

std::optional<Range> BoundsFinder::bounds(const Size& e, int depth) const {
    if (depth > kMaxDepth) {
        return std::nullopt;
    }
    const Node& n = e.node();
    Size lo;
    Size hi;
    for (const Term& t : n.terms) {
        auto r = termBounds(t.coeff, n.monomial(t), depth + 1);
        if (!r) {
            return std::nullopt;
        }
        lo = lo + r->min;
        hi = hi + r->max;
    }
    return Range{lo, hi};
}

std::optional<Size> BoundsFinder::lower(const Size& e, int depth) const {
    auto r = bounds(e, depth);
    return r ? std::optional<Size>(r->min) : std::nullopt;
}

std::optional<Size> BoundsFinder::upper(const Size& e, int depth) const {
    auto r = bounds(e, depth);
    return r ? std::optional<Size>(r->max) : std::nullopt;
}

bool BoundsFinder::nonNegative(const Size& e, int depth) const {
    if (auto c = rationalConstant(e)) {
        return !c->isNegative();
    }
    if (depth > kMaxDepth) {
        return false;
    }
    auto lo = lower(e, depth + 1);
    return lo && nonNegativeOverKept(*lo, depth + 1);
}

// Shifts each kept atom with constant minimum m to m + a' (a' >= 0) and checks the signs of
// the expanded coefficients. Atoms used as divisors are not shifted (the result would not be a
// polynomial) but must be positive.
bool BoundsFinder::nonNegativeOverKept(const Size& e, int depth) const {
    const Node& n = e.node();
    std::vector<std::pair<AtomPtr, int64_t>> mins;
    std::vector<AtomPtr> divisors;
    for (const Factor& f : n.factors) {
        auto m = atomMin(*f.atom, depth + 1);
        if (!m || (f.exp < 0 && *m < 1)) {
            return false;
        }
        mins.emplace_back(f.atom, *m);
        if (f.exp < 0) {
            divisors.push_back(f.atom);
        }
    }
    auto isDivisor = [&](const AtomPtr& a) {
        return std::any_of(divisors.begin(), divisors.end(),
                           [&](const AtomPtr& d) { return sameAtom(a, d); });
    };
    Size shifted;
    for (const Term& t : n.terms) {
        Size term = rationalSize(t.coeff);
        for (const Factor& f : n.monomial(t)) {
            Size a = atomSize(f.atom);
            if (!isDivisor(f.atom)) {
                auto it = std::find_if(mins.begin(), mins.end(),
                                       [&](const auto& p) { return sameAtom(p.first, f.atom); });
                a = a + it->second;
            }
            term = term * pow(a, f.exp);
        }
        shifted = shifted + term;
    }
    // Every atom must be an original one (now >= 0): a power of a shifted sum that stayed
    // opaque says nothing about its sign.
    const Node& s = shifted.node();
    bool known = std::all_of(s.factors.begin(), s.factors.end(), [&](const Factor& f) {
        return std::any_of(mins.begin(), mins.end(),
                           [&](const auto& p) { return sameAtom(p.first, f.atom); });
    });
    return known && std::all_of(s.terms.begin(), s.terms.end(),
                                [](const Term& t) { return !t.coeff.isNegative(); });
}

} // namespace

// Size arithmetic throws on int64 overflow; a bound or proof that overflows is simply not found.
std::optional<Range> bounds(const Size& e, const RangeEnv& env) {
    try {
        return BoundsFinder(env).bounds(e, 0);
    } catch (const Error&) {
        return std::nullopt;
    }
}

bool provablyNonNegative(const Size& e, const RangeEnv& env) {
    try {
        return BoundsFinder(env).nonNegative(e, 0);
    } catch (const Error&) {
        return false;
    }
}

bool provablyLess(const Size& a, const Size& b, const RangeEnv& env) {
    return provablyNonNegative(b - a - 1, env);
}

} // namespace egopt::arith
