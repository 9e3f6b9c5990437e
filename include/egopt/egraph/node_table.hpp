// The hashcons of the e-graph: a flat open-addressing set of e-node ids keyed by the e-node each
// id denotes (its canonical form, kept by the e-graph), 8 bytes a slot: the id and 32 bits of the
// node's hash. An unordered_map from a copy of the node to its id took about 70 bytes an entry
// (node, id, list pointer, bucket, allocation); this stores the id and reads the node from the
// e-graph's array, only for the slots whose hash bits agree with the key's.
#pragma once

#include "egopt/egraph/chunked.hpp"
#include "egopt/egraph/enode.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace egopt::egraph {

class NodeTable {
public:
    using Nodes = Chunked<ENode, 12>;
    static constexpr ENodeId kNone = UINT32_MAX;

    // The id whose node in `nodes` equals `key`, or kNone.
    ENodeId find(const ENode& key, const Nodes& nodes) const;
    // Adds `id` (whose node `nodes[id]` must not be present yet).
    void insert(ENodeId id, const Nodes& nodes);
    // Removes `id`, found by its node `nodes[id]` as it was when inserted.
    void erase(ENodeId id, const Nodes& nodes);
    // Prefetches (a hint, no effect on results) what find(key) will read: stage 0 the key's first
    // slot; stage 1, once that slot is in cache, the node of the first slot whose hash agrees.
    void prefetch(const ENode& key, const Nodes& nodes, int stage) const;
    size_t size() const { return size_; }
    // Halves the slots while at most a quarter are used (after a rebuild erased many entries).
    void shrink();
    size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        ENodeId id;
        uint32_t hash; // hashOf the node
    };
    static uint32_t hashOf(const ENode& n);
    size_t home(uint32_t hash) const;
    void grow();
    void rehash(size_t slots);

    std::vector<Slot> slots_; // a power of two of them, id kNone where empty
    size_t size_ = 0;
};

} // namespace egopt::egraph
