// Symbolic size expressions (CGO'17 §5.3): array lengths, split factors, indices.
//
// A Size is an immutable value in canonical form, so that sizes that are equal by the laws of
// commutative rings compare equal with operator== (2*N == N*2, (N /^ 128) * 128 == N).
// Canonical form: a sum of monomials with rational coefficients; a monomial is a product of
// atoms with integer exponents; an atom is a variable or an opaque floor division / modulo /
// power whose operands are themselves canonical. Exact division (/^, the Lift compiler's
// "divides evenly" operator) by a constant or a product of variables stays polynomial
// (rational coefficient, negative exponent), which is what makes split/join lengths cancel.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace egopt::arith {

struct Node; // canonical representation, defined in the implementation

// Concrete values for variables, by name.
using Bindings = std::map<std::string, int64_t, std::less<>>;

class Size {
public:
    Size();          // the constant 0
    Size(int64_t c); // NOLINT(google-explicit-constructor): constants convert implicitly
    static Size var(const std::string& name);

    friend Size operator+(const Size& a, const Size& b);
    friend Size operator-(const Size& a, const Size& b);
    friend Size operator-(const Size& a);
    friend Size operator*(const Size& a, const Size& b);
    // Integer (floor) division and modulo, for non-negative operands as in index arithmetic.
    friend Size floorDiv(const Size& a, const Size& b);
    friend Size mod(const Size& a, const Size& b);
    // Exact division a /^ b: the caller asserts that b divides a (split lengths).
    friend Size exactDiv(const Size& a, const Size& b);
    friend Size pow(const Size& base, const Size& exponent);

    Size& operator+=(const Size& o) { return *this = *this + o; }
    Size& operator-=(const Size& o) { return *this = *this - o; }
    Size& operator*=(const Size& o) { return *this = *this * o; }

    bool isConstant() const;
    // The value if the expression is an integer constant.
    std::optional<int64_t> constant() const;
    // The variable's name if the expression is exactly one variable.
    std::optional<std::string> variable() const;
    // Variables in the expression, sorted, without duplicates.
    std::vector<std::string> variables() const;

    // Value under concrete bindings. std::nullopt when a variable is unbound, a division is by
    // zero, an exact division does not divide, or the result overflows int64.
    std::optional<int64_t> evaluate(const Bindings& bindings) const;
    // Replace variables by sizes.
    Size substitute(const std::map<std::string, Size, std::less<>>& replacements) const;

    // Lift syntax: N, 2*N, N/^128, (i+1)/4, i%4, pow(2,N). Parseable back by the front end.
    std::string toString() const;
    // A C / OpenCL integer expression (variables by name, as kernel arguments or loop indices).
    std::string toC() const;

    friend bool operator==(const Size& a, const Size& b);
    friend bool operator!=(const Size& a, const Size& b) { return !(a == b); }
    // A total order (structural), for maps and deterministic output.
    friend bool operator<(const Size& a, const Size& b);
    size_t hash() const;

    const Node& node() const { return *node_; }

private:
    explicit Size(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
    std::shared_ptr<const Node> node_;
    friend struct SizeBuilder;
};

// What is known about variables: inclusive ranges (min and max may be symbolic, e.g. a loop
// index i in [0, N-1]) and divisibility facts (128 divides N).
struct Range {
    Size min;
    Size max;
    bool operator==(const Range&) const = default;
};

class SimplifyMemo;

class RangeEnv {
public:
    // The facts: ranges by variable and divisibility facts, with their hash. Immutable once
    // made (a change makes a new one), so a memo entry can share them.
    struct Facts {
        std::map<std::string, Range, std::less<>> ranges;
        std::vector<std::pair<Size, Size>> divides;
        size_t hash = 0;
        bool operator==(const Facts& o) const {
            return hash == o.hash && ranges == o.ranges && divides == o.divides;
        }
    };

    RangeEnv();
    // Size variables of the program: N >= 1, unbounded above.
    void declareSize(const std::string& var);
    void setRange(const std::string& var, Size min, Size max);
    // `divisor` divides `var` (e.g. from a split by a tuning variable).
    void addDivides(const Size& divisor, const Size& dividend);

    std::optional<Range> range(const std::string& var) const;
    bool knownDivides(const Size& divisor, const Size& dividend) const;

    // simplify() under this environment looks its results up in `memo` and records them there
    // (null: no memo). simplify is a function of the expression and the facts alone, so a memo
    // shared by many environments (all code generations of a pipeline run) changes no result.
    void useMemo(std::shared_ptr<SimplifyMemo> memo) { memo_ = std::move(memo); }
    SimplifyMemo* memo() const { return memo_.get(); }
    const std::shared_ptr<const Facts>& facts() const { return facts_; }

private:
    // A modified copy of the facts replaces them, with its new hash.
    std::shared_ptr<Facts> copyFacts() const { return std::make_shared<Facts>(*facts_); }
    void adopt(std::shared_ptr<Facts> facts);

    std::shared_ptr<const Facts> facts_;
    std::shared_ptr<SimplifyMemo> memo_;
};

// Results of simplify() by expression and facts, shared by threads (sharded locks). Code
// generation simplifies few distinct index expressions very often: 49,872 calls on 1,217
// distinct expressions over asum's pipeline run at N = 128M. Up to `capacity` entries are kept;
// past it, results are computed and not recorded.
class SimplifyMemo {
public:
    explicit SimplifyMemo(size_t capacity = size_t(1) << 17);
    ~SimplifyMemo();
    SimplifyMemo(const SimplifyMemo&) = delete;
    SimplifyMemo& operator=(const SimplifyMemo&) = delete;

    std::optional<Size> find(const Size& e, const RangeEnv& env) const;
    void insert(const Size& e, const RangeEnv& env, const Size& simplified);
    size_t size() const;

private:
    struct Shard;
    std::unique_ptr<Shard[]> shards_;
    size_t capacity_;
};

// Symbolic bounds of an expression from the ranges of its variables (nullopt if unknown).
std::optional<Range> bounds(const Size& e, const RangeEnv& env);
// True when e >= 0 (resp. a < b, b divides a) can be proven from the ranges.
bool provablyNonNegative(const Size& e, const RangeEnv& env);
bool provablyLess(const Size& a, const Size& b, const RangeEnv& env);
bool provablyDivides(const Size& divisor, const Size& dividend, const RangeEnv& env);

// Range-aware simplification (CGO'17 §5.3): (x*N + y) / N -> x + y / N, y / N -> 0 and
// y % N -> y when 0 <= y < N, floor division and modulo by known divisors, etc.
// The result evaluates to the same value as `e` under every binding that satisfies `env`.
Size simplify(const Size& e, const RangeEnv& env);

} // namespace egopt::arith

template <>
struct std::hash<egopt::arith::Size> {
    size_t operator()(const egopt::arith::Size& s) const noexcept { return s.hash(); }
};
