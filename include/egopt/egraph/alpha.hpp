// Alpha-equivalent duplication under the De Bruijn encoding (docs/egraph.md, "Binders:
// duplication up to shifting"). With De Bruijn indices the same open term seen under a
// different number of binders has its free variables at other indices: `x + 1` under one more
// lambda is `Param(1) + 1` instead of `Param(0) + 1`, and the e-graph keeps both as separate
// classes with separate members (EGraph::shift creates such copies). Slotted e-graphs (PLDI'25)
// store one class for both. This measures how many classes are such copies: classes whose
// smallest term equals another class's smallest term once both are shifted so that their lowest
// free variable is index 0.
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <cstddef>

namespace egopt::egraph {

struct ShiftDuplication {
    size_t classes = 0;          // e-classes in the e-graph
    size_t nodes = 0;            // e-nodes in the e-graph (members of the classes)
    size_t openClasses = 0;      // classes whose smallest term has free variables
    size_t groups = 0;           // sets of two or more classes equal up to a shift
    size_t duplicateClasses = 0; // classes of those sets beyond one per set
    size_t duplicateNodes = 0;   // their members: a set keeps its largest class's members
};

// Reads a clean e-graph (after rebuild) through its public interface; changes nothing. Two
// classes count as shifts of each other when their smallest terms (ClassData::best) are; classes
// that are shifts of each other but whose smallest terms were chosen differently among equal-size
// members are missed, so the counts are a lower bound.
ShiftDuplication measureShiftDuplication(const EGraph& g);

} // namespace egopt::egraph
