// Internal to the code generator: type inference on concrete sizes. The generator needs the
// result type of a function before generating it (to allocate its output), at types that may
// differ from the type checker's (concrete sizes; iterate bodies at a symbolic length).
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <map>
#include <span>
#include <string>
#include <vector>

namespace egopt::codegen::detail {

using SizeMap = std::map<std::string, arith::Size, std::less<>>;

[[noreturn]] void failAt(const lift::Program& p, lift::NodeId node, const std::string& msg);

class TypeInference {
public:
    TypeInference(lift::Program& program, SizeMap sizes);

    // The i-th numeric argument of a pattern with the concrete sizes substituted.
    arith::Size size(lift::NodeId fun, size_t i) const;
    lift::TypeId concrete(lift::TypeId t) { return program_.types.substitute(t, sizes_); }

    // Result type of applying `fun` to arguments of these types; parameters of enclosing
    // lambdas are looked up in `paramTypes` (by parameter index).
    lift::TypeId apply(lift::NodeId fun, std::span<const lift::TypeId> args,
                       std::vector<lift::TypeId>& paramTypes);
    lift::TypeId expr(lift::NodeId e, std::vector<lift::TypeId>& paramTypes);

    // Result type of a data-layout pattern (Split, Join, Zip, Get, Pad, ...).
    lift::TypeId layout(lift::NodeId fun, std::span<const lift::TypeId> args);
    // The w-wide vector version of a lane type (tuples field-wise).
    lift::TypeId vectorize(lift::TypeId lane, uint32_t width);

    lift::Program& program() { return program_; }

    // The type of an expression computed by an earlier kernel (its parameters may be unbound).
    void setKnown(lift::NodeId e, lift::TypeId t) { known_.emplace_back(e, t); }

private:
    class Site;
    // A pattern by the shared rule; `env` is null for a layout pattern typed on its own.
    lift::TypeId pattern(lift::NodeId fun, std::span<const lift::TypeId> args,
                         std::vector<lift::TypeId>* env);

    lift::Program& program_;
    SizeMap sizes_;
    std::vector<std::pair<lift::NodeId, lift::TypeId>> known_;
};

} // namespace egopt::codegen::detail
