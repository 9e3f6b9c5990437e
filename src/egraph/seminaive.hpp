// Internal: what the apply phase records for the matches that a semi-naive search deferred
// (docs/egraph.md, "Unchanged matches"). Such a match is unchanged, so at the start of the
// phase its right-hand side was in the hashcons and in the matched class; applying it can
// change something only once a merge of the phase has made a class it goes through a non-root.
// The journal keeps, for each class the search saw, how far below it such a class is:
// `absorbed`, a class merged into another, and `anchor`, a child of an e-node of such a class
// (a right-hand inner e-node found at the start is in a class that became a non-root only if
// its anchor child, a class variable, is one of those). A deferred range whose matches can
// reach neither is skipped whole; otherwise its matches are enumerated on the classes as the
// search saw them (the journal copies a class's members before the first merge changes them)
// and applied, or skipped, one by one as any unchanged match.
#pragma once

#include "egopt/egraph/rewrite.hpp"

#include <limits>

namespace egopt::egraph::detail {

// Per rule: what a deferred range of its matches needs the journal for.
struct DeferredRule {
    std::vector<int32_t> varDepth;    // by left-hand node: the deepest class variable below (-1)
    std::vector<int32_t> anchorDepth; // by left-hand node: the deepest anchor variable (-1)
    std::vector<bool> anchor;         // by slot: an anchor of a right-hand inner e-node
    std::vector<bool> conditionSlot;  // by slot: a condition reads it (Deferral)
    std::vector<size_t> probes;       // by condition: the journal's probe (ApplyJournal::Probe)
    explicit DeferredRule(const Rule& rule);
};

class ApplyJournal {
public:
    // A condition with one class argument, evaluated on each journaled class before it changes.
    struct Probe {
        const Condition* condition = nullptr;
        std::vector<ArgValue> args;
        size_t classArg = 0;
    };
    // Journals the merges of `g` from now on until destroyed; `depth` is the deepest variable
    // of any rule whose ranges it will be asked about.
    ApplyJournal(EGraph& g, const SizeFacts& facts, std::vector<Probe> probes, int32_t depth);
    ~ApplyJournal();
    ApplyJournal(const ApplyJournal&) = delete;
    ApplyJournal& operator=(const ApplyJournal&) = delete;

    // A class the search saw, as it was then (journaled now if no merge has changed it).
    const ClassSnapshot::Entry& entry(EClassId c);
    std::optional<bool> condition(size_t probe, EClassId c) const;
    // Whether the matches of a deferred range of `rule` (the bindings so far and the pending
    // pairs, Resumption::wanted) may change the e-graph now.
    bool mayChange(const Pattern& lhs, const DeferredRule& rule, const Subst& s,
                   std::span<const std::pair<PatId, EClassId>> pending);

private:
    static constexpr uint8_t kFar = std::numeric_limits<uint8_t>::max();
    void journal(EClassId c);
    void onMerge(EClassId root, EClassId absorbed);
    // Marks the classes above the pending ones (inline when there are none: mayChange asks at
    // every step of a resumed match).
    void settle() {
        if (!pendingAbsorbed_.empty() || !pendingAnchors_.empty()) {
            settlePending();
        }
    }
    void settlePending();
    void raise(std::vector<uint8_t>& below, EClassId c, int32_t level);
    uint8_t at(const std::vector<uint8_t>& below, EClassId c) const {
        return c < below.size() ? below[c] : kFar;
    }

    EGraph& g_;
    const SizeFacts& facts_;
    std::vector<Probe> probes_;
    int32_t depth_;
    size_t start_; // ids below were there when the search ran
    ClassSnapshot snapshot_;
    std::vector<EClassId> pendingAbsorbed_, pendingAnchors_;
    std::vector<uint8_t> absorbedBelow_, anchorBelow_; // by class id: levels (kFar: none)
};

} // namespace egopt::egraph::detail
