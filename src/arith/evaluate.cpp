// Evaluation under concrete bindings, substitution and variable collection.
#include "node.hpp"

#include <set>

namespace egopt::arith {

namespace {

using detail::i128;

// An exact rational during evaluation; operations return nullopt on 128-bit overflow.
struct Q {
    i128 num;
    i128 den;
};

std::optional<i128> mul(i128 a, i128 b) {
    i128 r;
    if (__builtin_mul_overflow(a, b, &r)) {
        return std::nullopt;
    }
    return r;
}

std::optional<i128> add(i128 a, i128 b) {
    i128 r;
    if (__builtin_add_overflow(a, b, &r)) {
        return std::nullopt;
    }
    return r;
}

Q normalise(i128 num, i128 den) {
    i128 g = detail::gcd128(num, den);
    if (g > 1) {
        num /= g;
        den /= g;
    }
    return {num, den};
}

std::optional<Q> mulQ(Q a, Q b) {
    auto n = mul(a.num, b.num);
    auto d = mul(a.den, b.den);
    if (!n || !d) {
        return std::nullopt;
    }
    return normalise(*n, *d);
}

std::optional<Q> addQ(Q a, Q b) {
    auto x = mul(a.num, b.den);
    auto y = mul(b.num, a.den);
    auto d = mul(a.den, b.den);
    if (!x || !y || !d) {
        return std::nullopt;
    }
    auto n = add(*x, *y);
    if (!n) {
        return std::nullopt;
    }
    return normalise(*n, *d);
}

std::optional<i128> fitInt64(i128 v) {
    if (!detail::tryNarrow(v)) {
        return std::nullopt;
    }
    return v;
}

// Integer power; nullopt on overflow of int64 or a non-integer result (negative exponent).
std::optional<i128> intPow(i128 base, i128 e) {
    if (e < 0) {
        if (base == 1 || base == -1) {
            return (e % 2 == 0) ? i128(1) : base;
        }
        return std::nullopt;
    }
    if (base == 0 || base == 1) {
        return e == 0 ? i128(1) : base;
    }
    if (base == -1) {
        return e % 2 == 0 ? i128(1) : i128(-1);
    }
    i128 r = 1;
    for (i128 i = 0; i < e; ++i) { // |base| >= 2: at most 63 steps before overflow
        auto next = mul(r, base);
        if (!next || !fitInt64(*next)) {
            return std::nullopt;
        }
        r = *next;
    }
    return r;
}

class Evaluator {
public:
    explicit Evaluator(const Bindings& b) : bindings_(b) {}

    std::optional<i128> integer(const Size& s) {
        auto q = rational(s);
        if (!q || q->den != 1) {
            return std::nullopt;
        }
        return fitInt64(q->num);
    }

    std::optional<Q> rational(const Size& s) {
        const Node& n = s.node();
        Q sum{0, 1};
        for (const Term& t : n.terms) {
            Q term{t.coeff.num, t.coeff.den};
            for (const Factor& f : n.monomial(t)) {
                auto v = atom(*f.atom);
                if (!v) {
                    return std::nullopt;
                }
                auto p = power(*v, f.exp);
                if (!p) {
                    return std::nullopt;
                }
                auto next = mulQ(term, *p);
                if (!next) {
                    return std::nullopt;
                }
                term = *next;
            }
            auto next = addQ(sum, term);
            if (!next) {
                return std::nullopt;
            }
            sum = *next;
        }
        return sum;
    }

private:
    static std::optional<Q> power(i128 v, int32_t exp) {
        if (exp < 0 && v == 0) {
            return std::nullopt;
        }
        Q r{1, 1};
        Q base = exp > 0 ? Q{v, 1} : (v < 0 ? Q{-1, -v} : Q{1, v});
        for (int32_t i = 0; i < (exp > 0 ? exp : -exp); ++i) {
            auto next = mulQ(r, base);
            if (!next) {
                return std::nullopt;
            }
            r = *next;
        }
        return r;
    }

    std::optional<i128> atom(const Atom& a) {
        if (a.kind == AtomKind::Var) {
            auto it = bindings_.find(a.name);
            if (it == bindings_.end()) {
                return std::nullopt;
            }
            return it->second;
        }
        auto x = integer(a.lhs);
        auto y = integer(a.rhs);
        if (!x || !y) {
            return std::nullopt;
        }
        switch (a.kind) {
        case AtomKind::FloorDiv:
            return *y == 0 ? std::nullopt : fitInt64(detail::floorDiv128(*x, *y));
        case AtomKind::Mod:
            return *y == 0 ? std::nullopt : std::optional<i128>(detail::floorMod128(*x, *y));
        case AtomKind::ExactDiv:
            if (*y == 0 || *x % *y != 0) {
                return std::nullopt;
            }
            return fitInt64(*x / *y);
        case AtomKind::Pow:
            return intPow(*x, *y);
        case AtomKind::Var:
            break;
        }
        return std::nullopt;
    }

    const Bindings& bindings_;
};

void collectVariables(const Size& s, std::set<std::string, std::less<>>& out) {
    for (const Factor& f : s.node().factors) {
        const Atom& a = *f.atom;
        if (a.kind == AtomKind::Var) {
            out.insert(a.name);
        } else {
            collectVariables(a.lhs, out);
            collectVariables(a.rhs, out);
        }
    }
}

bool mentionsAny(const Size& s, const std::map<std::string, Size, std::less<>>& names) {
    for (const Factor& f : s.node().factors) {
        const Atom& a = *f.atom;
        if (a.kind == AtomKind::Var ? names.count(a.name) > 0
                                    : mentionsAny(a.lhs, names) || mentionsAny(a.rhs, names)) {
            return true;
        }
    }
    return false;
}

Size rebuildAtom(const Atom& a, const std::map<std::string, Size, std::less<>>& repl) {
    if (a.kind == AtomKind::Var) {
        auto it = repl.find(a.name);
        return it != repl.end() ? it->second : Size::var(a.name);
    }
    Size x = a.lhs.substitute(repl);
    Size y = a.rhs.substitute(repl);
    switch (a.kind) {
    case AtomKind::FloorDiv:
        return floorDiv(x, y);
    case AtomKind::Mod:
        return mod(x, y);
    case AtomKind::ExactDiv:
        return exactDiv(x, y);
    case AtomKind::Pow:
        return pow(x, y);
    case AtomKind::Var:
        break;
    }
    return Size();
}

} // namespace

std::optional<int64_t> Size::evaluate(const Bindings& bindings) const {
    Evaluator ev(bindings);
    auto v = ev.integer(*this);
    if (!v) {
        return std::nullopt;
    }
    return static_cast<int64_t>(*v);
}

std::vector<std::string> Size::variables() const {
    std::set<std::string, std::less<>> names;
    collectVariables(*this, names);
    return {names.begin(), names.end()};
}

Size Size::substitute(const std::map<std::string, Size, std::less<>>& replacements) const {
    if (!mentionsAny(*this, replacements)) {
        return *this;
    }
    const Node& n = node();
    Size sum;
    for (const Term& t : n.terms) {
        Size term = rationalSize(t.coeff);
        for (const Factor& f : n.monomial(t)) {
            Size value = rebuildAtom(*f.atom, replacements);
            if (f.exp > 0) {
                term = term * pow(value, Size(f.exp));
            } else {
                term = exactDiv(term, pow(value, Size(-int64_t(f.exp))));
            }
        }
        sum = sum + term;
    }
    return sum;
}

} // namespace egopt::arith
