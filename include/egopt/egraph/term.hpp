// Terms outside the e-graph: what is inserted (a converted program, an instantiated right-hand
// side) and what is extracted. A term lives in an id-based arena; a leaf can also refer to an
// existing e-class (shifted by `shift` free-variable levels), which is how pattern variables
// are substituted without copying the classes they stand for.
#pragma once

#include "egopt/egraph/enode.hpp"

#include <span>
#include <string>
#include <vector>

namespace egopt::egraph {

using TermId = uint32_t;

struct TermNode {
    Op op = Op::Id;
    int32_t ival = 0;
    std::vector<arith::Size> sizes;
    // Param: {its type} when known; Lambda: the parameter types when known (else inferred from
    // the arguments the lambda is applied to).
    std::vector<TypeId> types;
    std::vector<TermId> children;
    EClassId eclass = kNoClass; // != kNoClass: a reference to this class, shifted by `shift`
    int32_t shift = 0;
};

class TermArena {
public:
    TermId add(TermNode node);
    TermId ref(EClassId eclass, int32_t shift = 0);
    TermId var(int32_t index, TypeId type = lift::kNoType);
    TermId apply(TermId fun, std::span<const TermId> args);
    TermId lambda(std::vector<TypeId> paramTypes, int32_t arity, TermId body);

    const TermNode& at(TermId id) const { return nodes_.at(id); }
    size_t size() const { return nodes_.size(); }
    // Empties the arena and keeps its memory, for an arena reused term after term (planning).
    void clear() { nodes_.clear(); }

private:
    std::vector<TermNode> nodes_;
};

// Copies `id` into `out` with its free variables (index >= cutoff at depth 0) shifted by `by`.
TermId shiftTerm(const TermArena& in, TermId id, int32_t by, int32_t cutoff, TermArena& out);

} // namespace egopt::egraph
