// Linear probing with backward-shift deletion (no tombstones: a table that repairs thousands of
// parents per rebuild would otherwise fill up with them), load at most 3/4.
#include "egopt/egraph/node_table.hpp"

#include <bit>

namespace egopt::egraph {

size_t NodeTable::home(const ENode& n) const {
    // Fibonacci hashing: the top bits of the product mix every bit of ENodeHash's value.
    uint64_t h = static_cast<uint64_t>(ENodeHash{}(n)) * 0x9e3779b97f4a7c15ULL;
    int bits = std::countr_zero(slots_.size());
    return bits == 0 ? 0 : static_cast<size_t>(h >> (64 - bits));
}

ENodeId NodeTable::find(const ENode& key, const Nodes& nodes) const {
    if (slots_.empty()) {
        return kNone;
    }
    size_t mask = slots_.size() - 1;
    for (size_t i = home(key);; i = (i + 1) & mask) {
        ENodeId id = slots_[i];
        if (id == kNone || nodes[id] == key) {
            return id;
        }
    }
}

void NodeTable::insert(ENodeId id, const Nodes& nodes) {
    if (4 * (size_ + 1) > 3 * slots_.size()) {
        grow(nodes);
    }
    size_t mask = slots_.size() - 1;
    size_t i = home(nodes[id]);
    while (slots_[i] != kNone) {
        i = (i + 1) & mask;
    }
    slots_[i] = id;
    ++size_;
}

void NodeTable::erase(ENodeId id, const Nodes& nodes) {
    size_t mask = slots_.size() - 1;
    size_t i = home(nodes[id]);
    while (slots_[i] != id) {
        i = (i + 1) & mask;
    }
    // Shift later entries of the run back into the hole when their home allows it.
    for (size_t j = (i + 1) & mask; slots_[j] != kNone; j = (j + 1) & mask) {
        size_t h = home(nodes[slots_[j]]);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            slots_[i] = slots_[j];
            i = j;
        }
    }
    slots_[i] = kNone;
    --size_;
}

void NodeTable::grow(const Nodes& nodes) {
    std::vector<ENodeId> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), kNone);
    size_t mask = slots_.size() - 1;
    for (ENodeId id : old) {
        if (id != kNone) {
            size_t i = home(nodes[id]);
            while (slots_[i] != kNone) {
                i = (i + 1) & mask;
            }
            slots_[i] = id;
        }
    }
}

} // namespace egopt::egraph
