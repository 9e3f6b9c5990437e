// Linear probing with backward-shift deletion (no tombstones: a table that repairs thousands of
// parents per rebuild would otherwise fill up with them), load at most 13/16: a count a little
// above 3/4 of a power of two fits without doubling (12,621 e-nodes in 16,384 slots, not
// 32,768), and the hash bits in each slot keep the longer runs of a fuller table from reading
// nodes. Each slot keeps 32 bits of its node's hash next to the id: a probe compares the node
// itself (a read of the e-graph's node array, usually a cache miss) only when those bits agree,
// and growing or deleting never reads a node.
#include "egopt/egraph/node_table.hpp"

#include "table_sizes.hpp"

namespace egopt::egraph {

size_t NodeTable::home(uint32_t hash) const {
    // Fibonacci hashing, then the top 32 bits of the product scaled to the table's size (which
    // need not be a power of two): the top bits of the product mix every bit of the hash.
    auto h = static_cast<uint32_t>((static_cast<uint64_t>(hash) * 0x9e3779b97f4a7c15ULL) >> 32);
    return detail::scaledSlot(h, slots_.size());
}

uint32_t NodeTable::findPending(uint32_t hash, auto same, const Nodes& nodes) const {
    for (size_t i = hash & (kPendingSlots - 1);; i = (i + 1) & (kPendingSlots - 1)) {
        const Slot& s = pendingSlots_[i];
        if (s.id == kNone || (s.hash == hash && same(nodes[s.id].node))) {
            return s.id;
        }
    }
}

uint32_t NodeTable::find(const ENode& key, uint32_t hash, const Nodes& nodes) const {
    if (!pending_.empty()) {
        auto same = [&](const ENode& n) { return n == key; };
        if (uint32_t ref = findPending(hash, same, nodes); ref != kNone) {
            return ref;
        }
    }
    if (slots_.empty()) {
        return kNone;
    }
    for (size_t i = home(hash);; i = next(i)) {
        const Slot& s = slots_[i];
        if (s.id == kNone || (s.hash == hash && nodes[s.id].node == key)) {
            return s.id;
        }
    }
}

uint32_t NodeTable::findParts(Op op, int32_t ival, std::span<const EClassId> kids, uint32_t hash,
                              const Nodes& nodes) const {
    auto same = [&](const ENode& n) {
        if (n.op != op || n.ival != ival || n.attr != 0 || n.children.size() != kids.size()) {
            return false;
        }
        for (size_t k = 0; k < kids.size(); ++k) { // a few ids: no memcmp call
            if (n.children[k] != kids[k]) {
                return false;
            }
        }
        return true;
    };
    if (!pending_.empty()) {
        if (uint32_t ref = findPending(hash, same, nodes); ref != kNone) {
            return ref;
        }
    }
    if (slots_.empty()) {
        return kNone;
    }
    for (size_t i = home(hash);; i = next(i)) {
        const Slot& s = slots_[i];
        if (s.id == kNone || (s.hash == hash && same(nodes[s.id].node))) {
            return s.id;
        }
    }
}

void NodeTable::prefetch(uint32_t hash, const Nodes& nodes, int stage) const {
    if (slots_.empty()) {
        return;
    }
    size_t i = home(hash);
    if (stage == 0) {
        __builtin_prefetch(&slots_[i]);
        return;
    }
    for (;; i = next(i)) {
        const Slot& s = slots_[i];
        if (s.id == kNone) {
            return;
        }
        if (s.hash == hash) {
            __builtin_prefetch(&nodes[s.id]);
            return;
        }
    }
}

void NodeTable::insert(uint32_t id, uint32_t hash) {
    if (16 * (size_ + 1) > 13 * slots_.size()) {
        flush(); // the capacity grows when inserting one by one would grow it
        grow();
    }
    if (deferring_) {
        if (pending_.size() == kPendingMax) {
            flush();
        }
        pending_.push_back({id, hash});
        size_t i = hash & (kPendingSlots - 1);
        while (pendingSlots_[i].id != kNone) {
            i = (i + 1) & (kPendingSlots - 1);
        }
        pendingSlots_[i] = {id, hash};
        ++size_;
        return;
    }
    size_t i = home(hash);
    while (slots_[i].id != kNone) {
        i = next(i);
    }
    slots_[i] = {id, hash};
    ++size_;
}

void NodeTable::deferInserts(bool on) {
    if (!on) {
        flush();
        pendingSlots_ = {};
    } else if (pendingSlots_.empty()) {
        pendingSlots_.assign(kPendingSlots, Slot{kNone, 0});
    }
    deferring_ = on;
}

void NodeTable::flushPending() {
    place(pending_);
    for (const Slot& s : pending_) { // the side table is cleared where it holds entries
        size_t i = s.hash & (kPendingSlots - 1);
        while (pendingSlots_[i].id != kNone) {
            pendingSlots_[i] = {kNone, 0};
            i = (i + 1) & (kPendingSlots - 1);
        }
    }
    pending_.clear();
}

void NodeTable::place(std::span<const Slot> entries) {
    // The home slots of the entries ahead are prefetched: the misses of a batch overlap, where
    // inserting each entry among the other work of adding its node waits for its own miss.
    constexpr size_t kAhead = 16;
    for (size_t k = 0; k < entries.size(); ++k) {
        if (k + kAhead < entries.size() && entries[k + kAhead].id != kNone) {
            __builtin_prefetch(&slots_[home(entries[k + kAhead].hash)]);
        }
        const Slot& s = entries[k];
        if (s.id == kNone) {
            continue;
        }
        size_t i = home(s.hash);
        while (slots_[i].id != kNone) {
            i = next(i);
        }
        slots_[i] = s;
    }
}

void NodeTable::erase(uint32_t id, const Nodes& nodes) {
    flush();
    size_t i = home(hashOf(nodes[id].node));
    while (slots_[i].id != id) {
        i = next(i);
    }
    // Shift later entries of the run back into the hole when their home allows it.
    for (size_t j = next(i); slots_[j].id != kNone; j = next(j)) {
        size_t h = home(slots_[j].hash);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            slots_[i] = slots_[j];
            i = j;
        }
    }
    slots_[i] = {kNone, 0};
    --size_;
}

void NodeTable::remap(const std::vector<uint32_t>& moved) {
    flush();
    for (Slot& s : slots_) {
        if (s.id != kNone) {
            s.id = moved[s.id];
        }
    }
}

// The sizes of table_sizes.hpp: a table just grown is at least 13/24 used (13/32 with
// doubling).
void NodeTable::grow() {
    size_t n = slots_.size();
    rehash(n == 0 ? 64 : detail::grownSlots(n));
}

void NodeTable::shrink() {
    flush();
    size_t slots = slots_.size();
    // While the smaller size would be at most 25/32 used, under the 13/16 that grows it (so a
    // table that just grew is not shrunk back).
    while (slots > 64 && 32 * size_ <= 25 * detail::shrunkSlots(slots)) {
        slots = detail::shrunkSlots(slots);
    }
    if (slots != slots_.size()) {
        rehash(slots);
    }
}

void NodeTable::rehash(size_t count) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(count, Slot{kNone, 0});
    place(old); // in the old slots' order, as entries are placed one by one
}

} // namespace egopt::egraph
