// The hashcons of the e-graph: a flat open-addressing set of the e-graph's stored nodes (their
// indices in its node store) keyed by the node (its canonical form), 8 bytes a slot: the index
// and 32 bits of the node's hash. An unordered_map from a copy of the node to its id took about
// 70 bytes an entry (node, id, list pointer, bucket, allocation); this stores the index and
// reads the node (and its id, beside it) from the e-graph's store, only for the slots whose hash
// bits agree with the key's.
#pragma once

#include "egopt/egraph/chunked.hpp"
#include "egopt/egraph/enode.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace egopt::egraph {

// A node of the e-graph's store with its id (32 bytes: two to a cache line, so a probe that
// compares the node has its id too).
struct StoredNode {
    ENode node;
    ENodeId id = 0;
};

class NodeTable {
public:
    using Nodes = Chunked<StoredNode, 10>;
    static constexpr uint32_t kNone = UINT32_MAX;
    static uint32_t fold(size_t h) {
        auto w = static_cast<uint64_t>(h);
        return static_cast<uint32_t>(w ^ (w >> 32));
    }

    // The index in `nodes` of the node that equals `key`, or kNone.
    uint32_t find(const ENode& key, const Nodes& nodes) const {
        return find(key, hashOf(key), nodes);
    }
    // find() with the key's hashOf computed already.
    uint32_t find(const ENode& key, uint32_t hash, const Nodes& nodes) const;
    // find() of the node (op, ival, the empty attribute, kids) without building it.
    uint32_t findParts(Op op, int32_t ival, std::span<const EClassId> kids, uint32_t hash,
                       const Nodes& nodes) const;
    // The hash the table keeps of a (canonical) node; of the node findParts looks for.
    static uint32_t hashOf(const ENode& n) { return fold(ENodeHash{}(n)); }
    static uint32_t hashOfParts(Op op, int32_t ival, std::span<const EClassId> kids) {
        return fold(ENodeHash::parts(op, ival, 0, kids));
    }
    // Adds `ref` (whose node `nodes[ref]` must not be present yet).
    void insert(uint32_t ref, const Nodes& nodes) { insert(ref, hashOf(nodes[ref].node)); }
    // insert() with the node's hashOf computed already. While deferring (below) the entry waits
    // in a small table of its own, which find() reads too.
    void insert(uint32_t ref, uint32_t hash);
    // Deferred inserts (docs/egraph.md, "Parallel apply"): the in-order part of an apply phase
    // adds its entries to a small side table, which stays in cache, and they move into the slots
    // in batches (`flush`) whose cache misses overlap. The entries, the size, the capacity and
    // where each entry lies are at every moment, or once flushed, those of inserting one by one.
    // Turning deferring off flushes.
    void deferInserts(bool on);
    // Moves the deferred entries into the slots, in their order.
    void flush() {
        if (!pending_.empty()) {
            flushPending();
        }
    }
    // Removes `ref`, found by its node `nodes[ref]` as it was when inserted.
    void erase(uint32_t ref, const Nodes& nodes);
    // Every node moved: the one at i is now at moved[i] (its slot stays where its hash puts it).
    void remap(const std::vector<uint32_t>& moved);
    // Prefetches (a hint, no effect on results) what find(key) will read: stage 0 the key's first
    // slot; stage 1, once that slot is in cache, the node of the first slot whose hash agrees.
    void prefetch(const ENode& key, const Nodes& nodes, int stage) const {
        prefetch(hashOf(key), nodes, stage);
    }
    void prefetch(uint32_t hash, const Nodes& nodes, int stage) const;
    size_t size() const { return size_; }
    // Steps down grow's sizes while the smaller one would be at most 25/32 used (after a rebuild
    // erased many entries).
    void shrink();
    size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        uint32_t id;   // the index in the store
        uint32_t hash; // hashOf the node
    };
    // Deferred entries: at most kPendingMax, in a table of kPendingSlots (linear probing).
    static constexpr size_t kPendingMax = 4096;
    static constexpr size_t kPendingSlots = 2 * kPendingMax;
    size_t home(uint32_t hash) const;
    size_t next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
    void grow();
    void rehash(size_t slots);
    void flushPending();
    // Places `entries` (skipping empty ones) in the slots, which have room for them, in order.
    void place(std::span<const Slot> entries);
    uint32_t findPending(uint32_t hash, auto same, const Nodes& nodes) const;

    std::vector<Slot> slots_; // 2^k or 3·2^(k-1) of them (at least 64), id kNone where empty
    size_t size_ = 0;         // with the deferred entries
    bool deferring_ = false;
    std::vector<Slot> pending_;      // deferred entries, in insertion order
    std::vector<Slot> pendingSlots_; // kPendingSlots while deferring, their table
};

} // namespace egopt::egraph
