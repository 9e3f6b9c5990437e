// Internal representation of canonical sizes (see docs/arith.md).
//
// A Node is a sum of terms sorted by monomial order, with no two terms on the same monomial and
// no zero coefficient. A term is a rational coefficient times a monomial: a product of atoms with
// non-zero integer exponents, sorted by atom order. The factors of all terms live in one vector
// per node (two allocations per size). Nodes and atoms are immutable and shared; their hashes
// are computed once at construction.
#pragma once

#include "egopt/arith/size.hpp"
#include "rational.hpp"

#include <span>

namespace egopt::arith {

using detail::Rational;

enum class AtomKind : uint8_t { Var, FloorDiv, Mod, Pow, ExactDiv };

// A variable (name) or an opaque operation on two canonical sizes (lhs op rhs).
struct Atom {
    AtomKind kind = AtomKind::Var;
    std::string name;
    Size lhs;
    Size rhs;
    size_t hash = 0;
};
using AtomPtr = std::shared_ptr<const Atom>;

struct Factor {
    AtomPtr atom;
    int32_t exp = 1;
};

struct Term {
    Rational coeff;
    uint32_t first = 0; // index of the first factor in Node::factors
    uint32_t count = 0;
};

using Monomial = std::span<const Factor>;

struct Node {
    std::vector<Term> terms;
    std::vector<Factor> factors;
    size_t hash = 0;

    Monomial monomial(const Term& t) const { return {factors.data() + t.first, t.count}; }
};

// Orders: -1, 0, 1. Atoms by kind, then name or operands; monomials with the constant monomial
// last, then by descending degree, then lexicographically by (atom, exponent).
int compareAtoms(const Atom& a, const Atom& b);
int compareMonomials(Monomial a, Monomial b);
int compareSizes(const Size& a, const Size& b);
bool sameAtom(const AtomPtr& a, const AtomPtr& b);

size_t hashMix(size_t seed, size_t value);

// Collects terms in any order and produces the canonical Size.
class PolyBuilder {
public:
    void add(const Rational& coeff, Monomial m);
    // coeff * a * b^bSign (bSign is 1 or -1: multiply or divide by the monomial b).
    void addProduct(const Rational& coeff, Monomial a, Monomial b, int bSign = 1);
    void addSize(const Size& s, const Rational& scale = Rational(1));
    Size finish();

private:
    std::vector<Term> terms_;
    std::vector<Factor> factors_;
};

struct SizeBuilder {
    static Size fromNode(std::shared_ptr<const Node> node) { return Size(std::move(node)); }
    static const std::shared_ptr<const Node>& ptr(const Size& s) { return s.node_; }
};

// A size that is the single atom.
Size atomSize(AtomPtr atom);
// The atom kind(lhs, rhs) as a size: what division and powers leave when they cannot simplify.
Size opaqueSize(AtomKind kind, const Size& lhs, const Size& rhs);

// a split by a divisor d into a == d * quotient + remainder (quotient integer-valued).
struct DivisorSplit {
    Size quotient;
    Size remainder;
};
AtomPtr makeAtom(AtomKind kind, Size lhs, Size rhs);
// The size c * m.
Size termSize(const Rational& c, Monomial m);
// The size of a rational constant.
Size rationalSize(const Rational& c);

// Views of a canonical size.
inline bool isZero(const Size& s) {
    return s.node().terms.empty();
}
// The single term's coefficient and monomial, if s has exactly one term.
bool singleTerm(const Size& s, Rational& coeff, Monomial& m);
// The rational value if s is a (possibly non-integer) constant.
std::optional<Rational> rationalConstant(const Size& s);
// The atom if s is exactly one atom (coefficient 1, exponent 1).
const Atom* soleAtom(const Size& s);
// Every coefficient an integer and every exponent positive: the value is an integer whenever
// the atoms are (variables, floor divisions, modulos, powers are).
bool integerPolynomial(const Size& s);

} // namespace egopt::arith
