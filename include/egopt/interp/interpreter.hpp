// The reference interpreter (ICFP'15 denotational semantics): evaluates any well-typed program,
// high- or low-level, on concrete inputs. Low-level patterns mean what the high-level ones they
// implement mean (MapGlb = Map, ReduceSeq = Reduce, toLocal(f) = f, ...). It is the oracle for
// rule soundness and for confirming generated kernels.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/interp/value.hpp"
#include "egopt/lift/ir.hpp"
#include "egopt/lift/typecheck.hpp"

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace egopt::interp {

// Whether and when the interpreter uses several threads. Results never depend on it: a Map's
// elements are independent and each lands in its own place, a Reduce runs in order, and an
// error is the one the first failing element (in index order) gives.
struct InterpreterOptions {
    // A Map with at least 2 elements runs them on TBB's threads when it has at least
    // parallelMinElements elements or its input holds at least parallelMinScalars scalars.
    bool parallel = true;
    int64_t parallelMinElements = 1024;
    int64_t parallelMinScalars = 32768;
};

class Interpreter {
public:
    // Compiles the program's user functions once. `sizes` binds every size variable (and tuning
    // variable) that appears in the program; a missing one is BadInput.
    Interpreter(const lift::Program& program, const lift::TypeInfo& types, arith::Bindings sizes,
                InterpreterOptions options = {});
    ~Interpreter();

    // Applies the top-level lambda to the arguments (one per parameter, shapes as declared).
    // Errors (a split that does not divide, an out-of-range index) are egopt::Error (BadInput).
    // Several threads may run the same Interpreter at once.
    Value run(std::span<const Value> args) const;

    struct State; // the program, its sizes and compiled user functions (interpreter.cpp)

private:
    std::unique_ptr<State> state_;
};

// Reproducible random inputs for every top-level parameter: floats uniform in [-1, 1), ints in
// [0, 16), shapes from the declared types under `sizes`. They are drawn from one
// std::mt19937_64(seed), parameter after parameter, each value's scalars in row-major order
// through randomScalar, so that a caller laying out large inputs itself
// (codegen::randomHostInputs) draws the same numbers.
std::vector<Value> randomInputs(lift::Program& program, const arith::Bindings& sizes,
                                uint64_t seed);
// One random scalar of kind k: floats and doubles uniform in [-1, 1), booleans 0 or 1, other
// integers in [0, 16).
double randomScalar(lift::ScalarKind k, std::mt19937_64& rng);
// The floats' distribution: uniform in [-1, 1), the numbers std::uniform_real_distribution<double>
// draws from the same engine, computed faster.
double uniformMinusOneToOne(std::mt19937_64& rng);
// One random value of `type` (lengths under `sizes`), drawn as randomInputs draws a parameter.
Value randomValue(const lift::TypeArena& types, lift::TypeId type, const arith::Bindings& sizes,
                  std::mt19937_64& rng);

// Inputs from JSON text {"xs": [1, 2], "alpha": 0.5} keyed by parameter name; a parameter that is
// missing gets a random value from `seed`. Shape mismatches are BadInput naming the parameter
// and the expected type.
std::vector<Value> inputsFromJson(lift::Program& program, const arith::Bindings& sizes,
                                  const std::string& jsonText, uint64_t seed);

} // namespace egopt::interp
