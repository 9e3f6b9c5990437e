// The type rule of every pattern, written once (src/lift/pattern_typing.cpp) and used by the
// front end's type checker, the e-graph's typing and the code generator's type inference. What
// differs between them is where the facts come from: the front end types nested functions by
// walking the program and reports located errors, the e-graph reads e-class data and throws
// TypeErrors, the code generator works on concrete sizes. Each gives the rule a TypingSite.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"
#include "egopt/lift/type.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace egopt::lift {

// A pattern node being applied: its op, ival and numeric arguments (sizes as the caller wants
// them, e.g. with concrete values substituted) and how many children it has.
struct PatternUse {
    Op op = Op::Id;
    int32_t ival = 0;
    std::span<const arith::Size> sizes;
    size_t numChildren = 0;
};

// What the rule asks of its caller.
class TypingSite {
public:
    virtual ~TypingSite() = default;
    virtual TypeArena& types() = 0;
    // The result type of the pattern's child `i` (a function) applied to `args`.
    virtual TypeId applyChild(size_t i, std::span<const TypeId> args) = 0;
    // The type of child `i` as a value (PadConstant's padding value).
    virtual TypeId childValueType(size_t i) = 0;
    // Whether child `i` is a function rather than data (Gather's index function).
    virtual bool childIsFunction(size_t i) const = 0;
    // How messages name the pattern and its child `i`: "Split(3)", "user function add".
    virtual std::string describe() const = 0;
    virtual std::string describeChild(size_t i) const = 0;
    [[noreturn]] virtual void fail(const std::string& message) const = 0;
    // The e-graph types each lambda at one signature, so Iterate must keep its type there.
    virtual bool iterateMayResize() const { return true; }
    // Whether constant sizes are checked against one another (a split that does not divide, an
    // index out of bounds). The code generator types a program already checked at its symbolic
    // sizes at whatever values it is given; whether they fit is its caller's concern.
    virtual bool checksSizeValues() const { return true; }
};

// The result type of applying the pattern to arguments of types `args`; fails through the site
// when the pattern does not apply (with the front end's messages).
TypeId typePattern(TypingSite& site, const PatternUse& use, std::span<const TypeId> args);

// The argument types the pattern passes to its nested function for arguments of types `args`
// (Map: the element type; Reduce: accumulator and element; Iterate, toLocal, ...: the arguments;
// lane-wise functions: the lanes); empty for patterns without nested functions, nullopt when
// the arguments do not fit.
std::optional<std::vector<TypeId>> nestedArgTypes(TypeArena& types, const PatternUse& use,
                                                  std::span<const TypeId> args);

} // namespace egopt::lift
