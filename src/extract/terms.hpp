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
    TermRef make(egraph::ENodeId node, std::span<const TermRef> children) {
        return make(node, children, key(node, children));
    }
    // The same with its key (`key(node, children)`), computed ahead, e.g. to prefetch its slot.
    TermRef make(egraph::ENodeId node, std::span<const TermRef> children, uint64_t key);
    // The hash-consing key of node(children); `keyStart` and `keyNext` build it child by child.
    static uint64_t keyStart(egraph::ENodeId node, size_t children);
    static uint64_t keyNext(uint64_t key, TermRef child);
    static uint64_t key(egraph::ENodeId node, std::span<const TermRef> children) {
        uint64_t k = keyStart(node, children.size());
        for (TermRef c : children) {
            k = keyNext(k, c);
        }
        return k;
    }
    // Starts loading the slot that `make` with this key probes first (a cache miss otherwise:
    // the table is megabytes and hash-consing the search's hottest lookup).
    void prefetch(uint64_t key) const {
        const uint64_t* slot = slots_.data() + slotOf(key, slots_.size());
#if defined(__x86_64__)
        // GCC 12 drops __builtin_prefetch of this address at -O2.
        asm volatile("prefetcht0 %0" : : "m"(*slot));
#else
        __builtin_prefetch(slot);
#endif
    }
    // Whether e-node `n` is the root of `t` or of one of its subterms (a cycle would repeat it).
    // One caller at a time: the walk's stack and visited stamps are reused.
    bool contains(std::span<const TermRef> terms, egraph::ENodeId n) const;
    bool contains(TermRef t, egraph::ENodeId n) const {
        return contains({&t, 1}, n);
    }

    egraph::ENodeId node(TermRef t) const {
        return heads_[t].node;
    }
    std::span<const TermRef> children(TermRef t) const {
        return {kids_.data() + heads_[t].first, heads_[t].count};
    }
    // A total order on structure that does not depend on e-class or e-node ids (user
    // functions by name, literals by text, sizes and types by their printed form).
    bool structurallyLess(TermRef a, TermRef b) const;
    size_t size() const {
        return heads_.size();
    }
    // The term's shape, a small id (docs/extraction.md, "Shapes"): its skeleton of loops,
    // thread maps, reductions, copies and user functions, without the views applied to data
    // (Split, Join, Gather, Scatter, Transpose, asVector, asScalar, Id and thread-less Maps of
    // them, which generate no loop and no store) and without thread maps' dimensions. Terms of
    // one shape differ only in how they read their data; the cost function ranks those
    // variants in their context, and lists that keep one term per shape leave room for other
    // schedules (the cheapest terms of a reduction are otherwise its one schedule read through
    // reorderings that undo each other, splits a join undoes, and so on).
    uint32_t shape(TermRef t) const {
        return shapes_[t];
    }

    // Copies the term into an e-graph term arena (for conversion to a lift::Program).
    egraph::TermId toTerm(TermRef t, egraph::TermArena& out) const;

private:
    using Bloom = std::array<uint64_t, 4>;
    // What hash-consing compares, 12 bytes a term apart from the rest (a probe that reaches a
    // term then reads a dense array: fewer cache misses).
    struct Head {
        egraph::ENodeId node;
        uint32_t first;
        uint32_t count;
    };
    struct Rec {
        Bloom nodes;  // e-nodes of the term, for contains()
        uint64_t key; // hash of (node, children), for the index
    };
    uint64_t nodeHash(egraph::ENodeId n);
    static Bloom bit(egraph::ENodeId n);
    static size_t slotOf(uint64_t key, size_t slots) {
        return (key ^ (key >> 29)) & (slots - 1);
    }
    void grow();

    const egraph::EGraph& g_;
    std::vector<Head> heads_;
    std::vector<Rec> recs_;
    std::vector<uint64_t> shash_;  // structural hashes (id-independent; the lists' tie-break)
    std::vector<uint32_t> shapes_; // per term (shape())
    std::unordered_map<uint64_t, uint32_t> shapeIds_;
    uint32_t shapeOf(egraph::ENodeId node, std::span<const TermRef> children);
    bool appliesView(TermRef function) const; // a view pattern, or a thread-less Map of one
    std::vector<TermRef> kids_;
    // contains()'s walk: a stack and the terms visited (a stamp per term), reused.
    mutable std::vector<TermRef> walk_;
    mutable std::vector<uint32_t> visited_;
    mutable uint32_t visit_ = 0;
    // Open addressing (linear probing) over hashes of (node, children): each slot holds a
    // term in its low 32 bits and the high half of its key, so most probes compare without
    // touching the term; hash-consing is the search's hottest lookup.
    std::vector<uint64_t> slots_ = std::vector<uint64_t>(1024, kEmpty);
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    std::vector<uint64_t> nodeHashes_; // per e-node, 0 until computed
};

} // namespace egopt::extract::detail
