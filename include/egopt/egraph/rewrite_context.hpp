// What rewriting knows besides the e-graph (docs/egraph.md, "Rewrite context"): the tuning
// variables that generators create, the size facts that conditions may use, and the names of
// the rules whose applications justify merges. The e-graph holds terms and their equalities
// only; these belong to whoever runs the rules (the pipeline, `prove`, `saturate`, a soundness
// check), who keeps them beside the e-graph for as long as it reads the results: extraction and
// tuning read the tuning space, explanations the rule names.
#pragma once

#include "egopt/arith/size.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

// The tuning variables of a saturation (docs/design.md §6) and the lengths each must divide.
// Memoized per key, so every match that asks for the same key (one per divided length) shares
// one variable: the number of variables, and so of distinct e-nodes, follows the lengths in the
// program rather than the number of matches.
class TuningSpace {
public:
    struct Constraint {
        std::string var;
        arith::Size divides; // var divides this length
    };
    // The variable of `key`, named v__1, v__2, ... in creation order; a new one divides
    // `dividesLength`, an existing one keeps the length it was created with.
    arith::Size variable(const std::string& key, const arith::Size& dividesLength);
    // The same for a variable that must divide every one of the lengths (a size that several
    // splits share): one constraint per length.
    arith::Size variable(const std::string& key, std::span<const arith::Size> dividesLengths);
    // The variable of key "split LENGTH" (a split of that length, shared by every split of it).
    // Remembered by the length's structure: printing a size is a normalising walk, and tuning
    // generators ask for the same lengths at every match.
    arith::Size splitVariable(const arith::Size& length);
    // In creation order, so a constraint's length mentions only earlier variables. Of a
    // scratch space (over), its own only.
    const std::vector<Constraint>& constraints() const { return constraints_; }
    // A scratch space on top of `base`, which must outlive it unchanged: it finds base's
    // variables and numbers new ones after them, as a copy of base would, keeping only those.
    // Planning threads draw from one each instead of copying the whole space (every entry's
    // size shared with the other threads' copies).
    static TuningSpace over(const TuningSpace& base);
    // The constraints of the base and its own.
    size_t numConstraints() const {
        return constraints_.size() + (base_ ? base_->constraints_.size() : 0);
    }

private:
    const TuningSpace* base_ = nullptr;
    std::unordered_map<std::string, arith::Size> byKey_;
    std::unordered_map<arith::Size, arith::Size> splitByLength_;
    std::vector<Constraint> constraints_;
};

// Facts about the program's size variables that conditions such as `divides` may use, e.g.
// 16 divides N because every size the caller will instantiate is a multiple of 16. Whoever
// states them must check them where it binds sizes (the pipeline rejects sizes that violate
// them, pipeline::checkAssumptions). State them before saturating: a fact stated later does not
// revisit matches already rejected.
class SizeFacts {
public:
    SizeFacts();
    void assumeDivides(const arith::Size& divisor, const arith::Size& dividend);
    // `divisor` divides `dividend` for every binding that satisfies the facts: decided from the
    // constants when both are constant, else proven from the facts. Answers are remembered per
    // thread (DividesMemo): the search asks the same few questions millions of times from every
    // thread, and proving copies sizes, whose shared reference counts the threads would
    // contend for.
    bool divides(const arith::Size& divisor, const arith::Size& dividend) const;

private:
    struct DividesMemo;
    arith::RangeEnv env_;
    // Shared by copies (their facts are the same); a new fact starts a new one.
    std::shared_ptr<DividesMemo> memo_;
};

// Rule names interned to small ids: a merge's justification stores the id (a name per merge
// would cost a string per e-graph union), and explanations name it back. One table serves every
// rule set run on the e-graph (the phases of a saturation load different rule lists).
using RuleId = uint32_t;
class RuleNames {
public:
    RuleId id(const std::string& name); // the same id for the same name
    const std::string& name(RuleId id) const { return names_.at(id); }

private:
    std::vector<std::string> names_;
    std::unordered_map<std::string, RuleId> ids_;
};

// The three together, as the runner and the rule functions receive them. Conditions read the
// facts only (the search runs in parallel), generators draw from the tuning space, and every
// applied rule is named in `rules`.
struct RewriteContext {
    TuningSpace tuning;
    SizeFacts facts;
    RuleNames rules;
};

} // namespace egopt::egraph
