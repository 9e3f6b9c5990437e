// Internals of the soundness checker: random instances of left-hand sides (soundness_instance),
// the pool of functions and values they are built from (soundness_pool) and the comparison of
// interpreter results (soundness_compare).
#pragma once

#include "egopt/egraph/rewrite.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/lift/ir.hpp"

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace egopt::rules::detail {

using Rng = std::mt19937_64;
using lift::NodeId;
using lift::TypeId;

// A uniform index in [0, n) (n > 0); our own, so results do not depend on the standard library.
size_t pick(Rng& rng, size_t n);
template <class T>
const T& pickOf(Rng& rng, const std::vector<T>& xs) {
    return xs[pick(rng, xs.size())];
}

// A program under construction: user functions declared once, top-level parameters, the
// parameters of the pattern lambdas enclosing the current position (innermost last), the sizes
// of this instance and the monoid its reductions use.
struct Builder {
    explicit Builder(Rng& r);
    Rng& rng;
    lift::Program p;
    std::vector<NodeId> top;
    std::vector<NodeId> env;
    int64_t n = 4, m = 2, k = 2;              // lengths of this instance's array types
    TypeId elem = lift::kNoType;              // element type of its arrays
    size_t monoid = 0;                        // index into monoids()
    std::map<std::string, uint32_t> declared; // user function name -> index in p.userFuns
    std::vector<TypeId> used;                 // types given to parameters so far
    bool rank4 = false;                       // parameters may also be arrays of rank 4
    // A readsInMap condition: the unary functions also hold a lambda that reads its parameter in
    // a map of its own (the other rules' instances draw from the pool without it).
    bool sharedOperand = false;
    // A tileSlices condition: data under two binders (a fold's step over pairs of matrices) may
    // also be the accumulator plus one element of each half of the pair (stage-fold-slices).
    bool sliceFold = false;

    NodeId userFun(const std::string& name);
    NodeId topParam(TypeId type);
    NodeId lambda(size_t arity, const std::function<NodeId(const std::vector<NodeId>&)>& body);
    NodeId apply(NodeId fun, std::vector<NodeId> args) { return p.apply(fun, args); }
    NodeId op(lift::Op op, int32_t ival = 0, std::vector<NodeId> children = {},
              std::vector<arith::Size> sizes = {});
    TypeId randomType();
};

struct Monoid {
    const char* fun;     // user function
    const char* neutral; // literal text
    char type;           // 'f' Float, '4' Float4
};
const std::vector<Monoid>& monoids();

// Builds one variable's instantiation at each of its occurrences, with the random choices made
// once: occurrences under different lambdas refer to their own bound variables by De Bruijn
// index, and every occurrence gets fresh function nodes (the type checker types a function at
// its single application site).
using Recipe = std::function<NodeId(Builder&)>;

Recipe randomFunction(Builder& b, size_t arity, int32_t depth);
Recipe randomReducer(Builder& b);       // the instance's monoid operator
Recipe neutralElement(Builder& b);      // its neutral element
Recipe randomIndexFunction(Builder& b); // for Gather and Scatter
Recipe randomScalarUserFun(Builder& b); // for VectorizeUserFun
Recipe randomData(Builder& b, int32_t depth);

// A random instance of a rule's left-hand side: a program fun(p0, ...) => LHS, or, when the
// left-hand side is a function, fun(p0, ...) => LHS $ (p0, ...). nullopt when this random
// choice is ill-typed.
struct Instance {
    lift::Program program;
    std::string sizes; // values of the #-variables: "#n=2, #m=3"
    bool wrapped = false;
    int64_t n = 0, m = 0; // the instance's outer and inner array lengths
};
// `rank4`: parameters may also be arrays of rank 4 (a rule whose left side flattens twice
// inside a map needs them; every other rule draws from the usual ranks, up to 3).
std::optional<Instance> randomInstance(const egraph::Rule& rule, Rng& rng, bool rank4 = false);
// The divisors in a rule's divisibility conditions beyond the lengths instances usually get
// (up to 16): instances of such a rule take the large lengths (fitLengths) and cost about a
// second each to interpret (SoundnessOptions::largeInstances).
constexpr int64_t kLargestSmallLength = 16;
std::vector<int64_t> largeDivisors(const egraph::Rule& rule);

// Structural comparison; floats exactly (tolerance 0, NaN equal to NaN) or within a relative
// tolerance. `where` is the path of the first mismatch or of the largest difference.
struct Difference {
    bool equal = true;
    double largest = 0;
    std::string where;
};
Difference compareValues(const interp::Value& a, const interp::Value& b, double tolerance);

} // namespace egopt::rules::detail
