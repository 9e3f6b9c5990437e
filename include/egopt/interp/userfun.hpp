// C user functions (docs/design.md §3): an interpreter for the C subset Lift user functions are
// written in, with float32 arithmetic as on an OpenCL device.
//
// Supported: declarations with initialisers (scalars, floatN, Tuple), brace initialisers,
// #define constants, blocks, if/else, for, while, do/while, break, continue, return, the
// operators of C with compound assignment and ++/--, the ternary operator, casts, math builtins
// (sqrt exp log fabs pow sin cos tan fmin fmax floor ceil min max clamp mad dot length ...),
// float2/3/4/8/16 with swizzles (.x .xyz .s0 .lo .hi) and element-wise arithmetic, Tuple
// results with fields _0 _1 ....
#pragma once

#include "egopt/interp/value.hpp"
#include "egopt/lift/ir.hpp"

#include <memory>
#include <span>

namespace egopt::interp {

class CompiledUserFun {
public:
    // Parses and checks the body against the declared parameter and return types. An unsupported
    // construct is egopt::Error (BadInput) naming the user function and the line within the
    // .lift file (decl.loc + line within the body). A function whose parameters, variables,
    // result and expressions are all scalars runs on a faster evaluator of scalars, which gives
    // the same results and errors; scalarFastPath = false keeps it on the general one (to
    // compare the two).
    static CompiledUserFun compile(const lift::UserFunDecl& decl, const lift::TypeArena& types,
                                   bool scalarFastPath = true);

    // Runs the function. Arguments must match the declared types (vectors for VectorizeUserFun
    // are handled by the caller, lane by lane). Runtime faults (e.g. an infinite loop hitting the
    // step limit) throw egopt::Error naming the function.
    Value call(std::span<const Value> args) const;

    const std::string& name() const;
    // Whether calls run on the evaluator of scalars.
    bool runsOnScalars() const;

    CompiledUserFun(CompiledUserFun&&) noexcept;
    CompiledUserFun& operator=(CompiledUserFun&&) noexcept;
    ~CompiledUserFun();

    struct Impl;

private:
    explicit CompiledUserFun(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// CompiledUserFun::compile for a user function of `program`, its errors located in the program's
// file.
CompiledUserFun compileUserFun(const lift::Program& program, const lift::UserFunDecl& decl);
// Compiles every user function of the program, so that a body the interpreter cannot run is
// reported (BadInput, at the function's line) when the program is loaded, not as every
// candidate's failed validation.
void checkUserFuns(const lift::Program& program);

} // namespace egopt::interp
