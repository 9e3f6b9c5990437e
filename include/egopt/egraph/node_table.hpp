// The hashcons of the e-graph: a flat open-addressing set of e-node ids keyed by the e-node each
// id denotes (its canonical form, kept by the e-graph), 4 bytes a slot. An unordered_map from a
// copy of the node to its id took about 70 bytes an entry (node, id, list pointer, bucket,
// allocation); this stores the id alone and reads the node from the e-graph's array.
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
    size_t size() const { return size_; }
    size_t bytes() const { return slots_.capacity() * sizeof(ENodeId); }

private:
    size_t home(const ENode& n) const;
    void grow(const Nodes& nodes);

    std::vector<ENodeId> slots_; // a power of two of them, kNone where empty
    size_t size_ = 0;
};

} // namespace egopt::egraph
