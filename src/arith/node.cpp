// Canonical nodes: construction, structural order, hashing, and the basic Size accessors.
#include "node.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace egopt::arith {

namespace {

int32_t degree(Monomial m) {
    int64_t d = 0;
    for (const Factor& f : m) {
        d += f.exp;
    }
    return static_cast<int32_t>(std::clamp<int64_t>(d, INT32_MIN, INT32_MAX));
}

template <typename T>
int cmp(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

size_t hashNode(const Node& n) {
    size_t h = hashMix(0x9e3779b97f4a7c15ull, n.terms.size());
    for (const Term& t : n.terms) {
        h = hashMix(h, static_cast<size_t>(t.coeff.num));
        h = hashMix(h, static_cast<size_t>(t.coeff.den));
        for (const Factor& f : n.monomial(t)) {
            h = hashMix(h, f.atom->hash);
            h = hashMix(h, static_cast<size_t>(static_cast<int64_t>(f.exp)));
        }
    }
    return h;
}

std::shared_ptr<const Node> constantNode(int64_t c) {
    auto n = std::make_shared<Node>();
    if (c != 0) {
        n->terms.push_back(Term{Rational(c), 0, 0});
    }
    n->hash = hashNode(*n);
    return n;
}

// Small constants are created constantly (type checking, indices): share their nodes. One
// table per thread: a node shared by every thread would have its reference count written by
// all of them at once (the e-graph's search and planning threads make and drop sizes such as
// 0 and 1 at every step), and equality does not need the nodes to be the same (it compares
// hashes, then structure).
constexpr int64_t kCachedMin = -1;
constexpr int64_t kCachedMax = 64;

const std::shared_ptr<const Node>& cachedConstant(int64_t c) {
    thread_local const auto table = [] {
        std::array<std::shared_ptr<const Node>, kCachedMax - kCachedMin + 1> t;
        for (int64_t v = kCachedMin; v <= kCachedMax; ++v) {
            t[static_cast<size_t>(v - kCachedMin)] = constantNode(v);
        }
        return t;
    }();
    return table[static_cast<size_t>(c - kCachedMin)];
}

} // namespace

size_t hashMix(size_t seed, size_t value) {
    uint64_t x = seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    return static_cast<size_t>(x);
}

int compareAtoms(const Atom& a, const Atom& b) {
    if (&a == &b) {
        return 0;
    }
    if (a.kind != b.kind) {
        return cmp(a.kind, b.kind);
    }
    if (a.kind == AtomKind::Var) {
        return a.name.compare(b.name) < 0 ? -1 : (a.name == b.name ? 0 : 1);
    }
    if (int c = compareSizes(a.lhs, b.lhs)) {
        return c;
    }
    return compareSizes(a.rhs, b.rhs);
}

bool sameAtom(const AtomPtr& a, const AtomPtr& b) {
    return a == b || (a->hash == b->hash && compareAtoms(*a, *b) == 0);
}

int compareMonomials(Monomial a, Monomial b) {
    if (a.empty() != b.empty()) {
        return a.empty() ? 1 : -1; // the constant term last
    }
    if (int c = cmp(degree(b), degree(a))) {
        return c; // higher degree first
    }
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        if (int c = compareAtoms(*a[i].atom, *b[i].atom)) {
            return c;
        }
        if (int c = cmp(b[i].exp, a[i].exp)) {
            return c;
        }
    }
    return cmp(a.size(), b.size());
}

int compareSizes(const Size& a, const Size& b) {
    const Node& x = a.node();
    const Node& y = b.node();
    if (&x == &y) {
        return 0;
    }
    size_t n = std::min(x.terms.size(), y.terms.size());
    for (size_t i = 0; i < n; ++i) {
        if (int c = compareMonomials(x.monomial(x.terms[i]), y.monomial(y.terms[i]))) {
            return c;
        }
        if (int c = detail::compare(x.terms[i].coeff, y.terms[i].coeff)) {
            return c;
        }
    }
    return cmp(x.terms.size(), y.terms.size());
}

// ---- PolyBuilder ----

void PolyBuilder::add(const Rational& coeff, Monomial m) {
    if (coeff.isZero()) {
        return;
    }
    auto first = static_cast<uint32_t>(factors_.size());
    factors_.insert(factors_.end(), m.begin(), m.end());
    terms_.push_back(Term{coeff, first, static_cast<uint32_t>(m.size())});
}

void PolyBuilder::addProduct(const Rational& coeff, Monomial a, Monomial b, int bSign) {
    if (coeff.isZero()) {
        return;
    }
    auto first = static_cast<uint32_t>(factors_.size());
    size_t i = 0;
    size_t j = 0;
    auto push = [&](const AtomPtr& atom, int64_t exp) {
        if (exp == 0) {
            return;
        }
        if (exp > INT32_MAX || exp < INT32_MIN) {
            detail::throwOverflow();
        }
        factors_.push_back(Factor{atom, static_cast<int32_t>(exp)});
    };
    while (i < a.size() || j < b.size()) {
        int c = i == a.size() ? 1 : (j == b.size() ? -1 : compareAtoms(*a[i].atom, *b[j].atom));
        if (c < 0) {
            push(a[i].atom, a[i].exp);
            ++i;
        } else if (c > 0) {
            push(b[j].atom, int64_t(bSign) * b[j].exp);
            ++j;
        } else {
            push(a[i].atom, int64_t(a[i].exp) + int64_t(bSign) * b[j].exp);
            ++i;
            ++j;
        }
    }
    terms_.push_back(Term{coeff, first, static_cast<uint32_t>(factors_.size() - first)});
}

void PolyBuilder::addSize(const Size& s, const Rational& scale) {
    const Node& n = s.node();
    for (const Term& t : n.terms) {
        add(t.coeff * scale, n.monomial(t));
    }
}

Size PolyBuilder::finish() {
    auto mono = [&](const Term& t) { return Monomial(factors_.data() + t.first, t.count); };
    std::sort(terms_.begin(), terms_.end(),
              [&](const Term& a, const Term& b) { return compareMonomials(mono(a), mono(b)) < 0; });
    auto node = std::make_shared<Node>();
    node->terms.reserve(terms_.size());
    for (size_t i = 0; i < terms_.size();) {
        Rational sum = terms_[i].coeff;
        size_t j = i + 1;
        while (j < terms_.size() && compareMonomials(mono(terms_[i]), mono(terms_[j])) == 0) {
            sum = sum + terms_[j].coeff;
            ++j;
        }
        if (!sum.isZero()) {
            Monomial m = mono(terms_[i]);
            auto first = static_cast<uint32_t>(node->factors.size());
            node->factors.insert(node->factors.end(), m.begin(), m.end());
            node->terms.push_back(Term{sum, first, static_cast<uint32_t>(m.size())});
        }
        i = j;
    }
    if (node->factors.empty() && node->terms.size() <= 1) {
        int64_t c = node->terms.empty() ? 0 : node->terms[0].coeff.num;
        bool integer = node->terms.empty() || node->terms[0].coeff.isInteger();
        if (integer && c >= kCachedMin && c <= kCachedMax) {
            return SizeBuilder::fromNode(cachedConstant(c));
        }
    }
    node->hash = hashNode(*node);
    return SizeBuilder::fromNode(std::move(node));
}

// ---- atoms and views ----

AtomPtr makeAtom(AtomKind kind, Size lhs, Size rhs) {
    auto a = std::make_shared<Atom>();
    a->kind = kind;
    a->hash = hashMix(hashMix(static_cast<size_t>(kind) + 1, lhs.hash()), rhs.hash());
    a->lhs = std::move(lhs);
    a->rhs = std::move(rhs);
    return a;
}

Size atomSize(AtomPtr atom) {
    Factor f{std::move(atom), 1};
    return termSize(Rational(1), Monomial(&f, 1));
}

Size termSize(const Rational& c, Monomial m) {
    PolyBuilder b;
    b.add(c, m);
    return b.finish();
}

Size rationalSize(const Rational& c) {
    return termSize(c, {});
}

bool singleTerm(const Size& s, Rational& coeff, Monomial& m) {
    const Node& n = s.node();
    if (n.terms.size() != 1) {
        return false;
    }
    coeff = n.terms[0].coeff;
    m = n.monomial(n.terms[0]);
    return true;
}

std::optional<Rational> rationalConstant(const Size& s) {
    const Node& n = s.node();
    if (n.terms.empty()) {
        return Rational(0);
    }
    if (n.terms.size() == 1 && n.terms[0].count == 0) {
        return n.terms[0].coeff;
    }
    return std::nullopt;
}

const Atom* soleAtom(const Size& s) {
    const Node& n = s.node();
    if (n.terms.size() != 1 || n.terms[0].count != 1 || n.terms[0].coeff != Rational(1)) {
        return nullptr;
    }
    const Factor& f = n.factors[n.terms[0].first];
    return f.exp == 1 ? f.atom.get() : nullptr;
}

bool integerPolynomial(const Size& s) {
    const Node& n = s.node();
    return std::all_of(n.terms.begin(), n.terms.end(),
                       [](const Term& t) { return t.coeff.isInteger(); }) &&
           std::all_of(n.factors.begin(), n.factors.end(),
                       [](const Factor& f) { return f.exp > 0; });
}

// ---- Size basics ----

Size::Size() : node_(cachedConstant(0)) {}

Size::Size(int64_t c)
    : node_(c >= kCachedMin && c <= kCachedMax ? cachedConstant(c) : constantNode(c)) {}

Size Size::var(const std::string& name) {
    auto a = std::make_shared<Atom>();
    a->kind = AtomKind::Var;
    a->name = name;
    a->hash = hashMix(std::hash<std::string>{}(name), 0);
    return atomSize(std::move(a));
}

bool Size::isConstant() const {
    return constant().has_value();
}

std::optional<int64_t> Size::constant() const {
    auto r = rationalConstant(*this);
    if (r && r->isInteger()) {
        return r->num;
    }
    return std::nullopt;
}

std::optional<std::string> Size::variable() const {
    const Atom* a = soleAtom(*this);
    if (a && a->kind == AtomKind::Var) {
        return a->name;
    }
    return std::nullopt;
}

bool operator==(const Size& a, const Size& b) {
    if (a.node_ == b.node_) {
        return true;
    }
    if (a.node_->hash != b.node_->hash) {
        return false;
    }
    return compareSizes(a, b) == 0;
}

bool operator<(const Size& a, const Size& b) {
    return compareSizes(a, b) < 0;
}

size_t Size::hash() const {
    return node_->hash;
}

} // namespace egopt::arith
