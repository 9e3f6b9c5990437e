// Internal to extraction: candidate terms as a hash-consed DAG over e-nodes. A term is an
// e-node with one term per child; terms are immutable once built, so a K-best list can refer
// to its children's terms even after their lists have changed.
#pragma once

#include "egopt/egraph/egraph.hpp"

#include <array>
#include <span>
#include <unordered_map>
#include <vector>

namespace egopt::extract::detail {

using TermRef = uint32_t;

class TermStore {
public:
    explicit TermStore(const egraph::EGraph& g) : g_(g) {}

    // The term node(children), shared with an equal term built before.
    TermRef make(egraph::ENodeId node, std::span<const TermRef> children);
    // Whether e-node `n` is the root of `t` or of one of its subterms (a cycle would repeat it).
    bool contains(std::span<const TermRef> terms, egraph::ENodeId n) const;

    egraph::ENodeId node(TermRef t) const { return recs_[t].node; }
    std::span<const TermRef> children(TermRef t) const {
        return {kids_.data() + recs_[t].first, recs_[t].count};
    }
    // A total order on structure that does not depend on e-class or e-node ids (user
    // functions by name, literals by text, sizes and types by their printed form).
    bool structurallyLess(TermRef a, TermRef b) const;
    size_t size() const { return recs_.size(); }

    // Copies the term into an e-graph term arena (for conversion to a lift::Program).
    egraph::TermId toTerm(TermRef t, egraph::TermArena& out) const;

private:
    using Bloom = std::array<uint64_t, 4>;
    struct Rec {
        egraph::ENodeId node;
        uint32_t first;
        uint32_t count;
        uint64_t shash; // structural hash (id-independent)
        Bloom nodes;    // e-nodes of the term, for contains()
        uint64_t key;   // hash of (node, children), for the index
    };
    uint64_t nodeHash(egraph::ENodeId n);
    static Bloom bit(egraph::ENodeId n);
    void grow();

    const egraph::EGraph& g_;
    std::vector<Rec> recs_;
    std::vector<TermRef> kids_;
    // Open addressing (linear probing) over hashes of (node, children): each slot holds a
    // term in its low 32 bits and the high half of its key, so most probes compare without
    // touching the term; hash-consing is the search's hottest lookup.
    std::vector<uint64_t> slots_ = std::vector<uint64_t>(1024, kEmpty);
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    std::unordered_map<egraph::ENodeId, uint64_t> nodeHashes_;
};

} // namespace egopt::extract::detail
