// Linear probing with backward-shift deletion (no tombstones: a table that repairs thousands of
// parents per rebuild would otherwise fill up with them), load at most 3/4. Each slot keeps 32
// bits of its node's hash next to the id: a probe compares the node itself (a read of the
// e-graph's node array, usually a cache miss) only when those bits agree, and growing or
// deleting never reads a node.
#include "egopt/egraph/node_table.hpp"

#include <algorithm>
#include <bit>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

uint32_t NodeTable::hashOf(const ENode& n) {
    auto h = static_cast<uint64_t>(ENodeHash{}(n));
    return static_cast<uint32_t>(h ^ (h >> 32));
}

size_t NodeTable::home(uint32_t hash) const {
    // Fibonacci hashing: the top bits of the product mix every bit of the hash.
    uint64_t h = static_cast<uint64_t>(hash) * 0x9e3779b97f4a7c15ULL;
    int bits = std::countr_zero(slots_.size());
    return bits == 0 ? 0 : static_cast<size_t>(h >> (64 - bits));
}

uint32_t NodeTable::find(const ENode& key, uint32_t hash, const Nodes& nodes) const {
    if (slots_.empty()) {
        return kNone;
    }
    size_t mask = slots_.size() - 1;
    for (size_t i = home(hash);; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.id == kNone || (s.hash == hash && nodes[s.id].node == key)) {
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
    size_t mask = slots_.size() - 1;
    for (;; i = (i + 1) & mask) {
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
    if (4 * (size_ + 1) > 3 * slots_.size()) {
        grow();
    }
    place({id, hash});
    ++size_;
}

void NodeTable::erase(uint32_t id, const Nodes& nodes) {
    size_t mask = slots_.size() - 1;
    size_t i = home(hashOf(nodes[id].node));
    while (slots_[i].id != id) {
        i = (i + 1) & mask;
    }
    // Shift later entries of the run back into the hole when their home allows it.
    for (size_t j = (i + 1) & mask; slots_[j].id != kNone; j = (j + 1) & mask) {
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
    tbb::parallel_for(tbb::blocked_range<size_t>(0, slots_.size(), 1 << 14),
                      [&](const tbb::blocked_range<size_t>& range) {
                          for (size_t i = range.begin(); i < range.end(); ++i) {
                              Slot& s = slots_[i];
                              if (s.id != kNone) {
                                  s.id = moved[s.id];
                              }
                          }
                      });
}

void NodeTable::grow() {
    rehash(slots_.empty() ? 64 : 2 * slots_.size());
}

void NodeTable::shrink() {
    size_t slots = slots_.size();
    // Below 5/16 used: halved, the load is at most 5/8, under the 3/4 that grows it, and a table
    // that just grew (3/8 used) is not halved back.
    while (slots > 64 && 16 * size_ <= 5 * slots) {
        slots /= 2;
    }
    if (slots != slots_.size()) {
        rehash(slots);
    }
}

void NodeTable::rehash(size_t count) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(count, Slot{kNone, 0});
    if (count < 2 * kSegment) {
        for (const Slot& s : old) {
            if (s.id != kNone) {
                place(s);
            }
        }
        return;
    }
    rehashInSegments(old);
}

void NodeTable::place(Slot s) {
    size_t mask = slots_.size() - 1;
    size_t i = home(s.hash);
    while (slots_[i].id != kNone) {
        i = (i + 1) & mask;
    }
    slots_[i] = s;
}

// place() without probing up to `end` or past it (nor wrapping around): false if no slot before
// `end` was free.
bool NodeTable::placeBefore(Slot s, size_t end) {
    for (size_t i = home(s.hash); i < end; ++i) {
        if (slots_[i].id == kNone) {
            slots_[i] = s;
            return true;
        }
    }
    return false;
}

void NodeTable::rehashInSegments(const std::vector<Slot>& old) {
    // The new table is cut into segments of kSegment slots (a count that depends only on its
    // size, not on the thread count). The old entries are sorted by the segment of their home in
    // parallel chunks (a counting sort, stable: chunk order, then slot order), each segment
    // places its entries in that order without probing past its end (in parallel: a segment of
    // 256 KB stays in cache), and the entries that would run past it are placed last, in
    // segment order, probing on. The layout is the same for every thread count; the entries are
    // the table's, however placed.
    const size_t segments = slots_.size() / kSegment;
    const int shift = std::countr_zero(kSegment);
    constexpr size_t kChunk = 1 << 16;
    const size_t chunks = (old.size() + kChunk - 1) / kChunk;
    std::vector<uint32_t> counts(chunks * segments, 0); // by chunk, then segment
    tbb::parallel_for(size_t(0), chunks, [&](size_t c) {
        uint32_t* row = &counts[c * segments];
        size_t end = std::min(old.size(), (c + 1) * kChunk);
        for (size_t i = c * kChunk; i < end; ++i) {
            if (old[i].id != kNone) {
                ++row[home(old[i].hash) >> shift];
            }
        }
    });
    // Offsets in segment-major order: segment s's entries from chunk 0, then chunk 1, ...
    std::vector<size_t> starts(segments + 1, 0);
    std::vector<uint32_t> offset(chunks * segments, 0);
    size_t total = 0;
    for (size_t s = 0; s < segments; ++s) {
        starts[s] = total;
        for (size_t c = 0; c < chunks; ++c) {
            offset[c * segments + s] = static_cast<uint32_t>(total - starts[s]);
            total += counts[c * segments + s];
        }
    }
    starts[segments] = total;
    std::vector<Slot> sorted(total);
    tbb::parallel_for(size_t(0), chunks, [&](size_t c) {
        uint32_t* at = &offset[c * segments];
        size_t end = std::min(old.size(), (c + 1) * kChunk);
        for (size_t i = c * kChunk; i < end; ++i) {
            if (old[i].id != kNone) {
                size_t s = home(old[i].hash) >> shift;
                sorted[starts[s] + at[s]++] = old[i];
            }
        }
    });
    std::vector<std::vector<Slot>> overflow(segments);
    tbb::parallel_for(size_t(0), segments, [&](size_t s) {
        size_t end = (s + 1) * kSegment;
        for (size_t i = starts[s]; i < starts[s + 1]; ++i) {
            if (!placeBefore(sorted[i], end)) {
                overflow[s].push_back(sorted[i]);
            }
        }
    });
    for (const std::vector<Slot>& rest : overflow) {
        for (const Slot& s : rest) {
            place(s);
        }
    }
}

} // namespace egopt::egraph
