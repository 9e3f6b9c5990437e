// Lists of ids in 8 bytes each, their longer contents in a shared pool (the e-graph's member and
// parent lists: most classes have one or two of each, a few have hundreds of thousands).
//
// An IdList holds up to two ids itself; a longer list is a block of an IdPool whose capacity
// follows from the list's size (IdPool::capacityOf: the power of two at or above it, at least 4;
// from 1,024 ids up also 3·2^(k-1)), found by the block's reference and that size. The pool
// hands out blocks from chunks of 1,024 ids (a block of that size or more gets a chunk of its
// own) and keeps freed blocks on a free list per capacity, so growing a list by doubling reuses
// what other lists gave up. Ids must be below 2^31.
//
// Views (IdPool::view) stay valid until the list they show is changed or freed, or the pool is
// repacked: changing other lists never moves a block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace egopt::egraph {

struct IdList {
    static constexpr uint32_t kEmpty = UINT32_MAX;
    static constexpr uint32_t kPooled = 0x80000000U;
    // Inline: the ids, kEmpty past the size. Pooled: kPooled | the block's reference, and the
    // size.
    uint32_t w[2] = {kEmpty, kEmpty};

    bool pooled() const { return w[0] != kEmpty && (w[0] & kPooled) != 0; }
    size_t size() const {
        if (w[0] == kEmpty) {
            return 0;
        }
        if ((w[0] & kPooled) != 0) {
            return w[1];
        }
        return w[1] == kEmpty ? 1 : 2;
    }
    bool empty() const { return w[0] == kEmpty; }
};
static_assert(sizeof(IdList) == 8);

class IdPool {
public:
    static constexpr unsigned kChunkBits = 10;
    static constexpr size_t kChunk = size_t(1) << kChunkBits;

    std::span<const uint32_t> view(const IdList& l) const {
        if (!l.pooled()) {
            return {l.w, l.size()};
        }
        return {block(l.w[0] & ~IdList::kPooled), l.w[1]};
    }
    std::span<uint32_t> view(IdList& l) {
        if (!l.pooled()) {
            return {l.w, l.size()};
        }
        return {block(l.w[0] & ~IdList::kPooled), l.w[1]};
    }
    // A hint that view(l)'s values are read soon.
    void prefetch(const IdList& l) const {
        if (l.pooled()) {
            __builtin_prefetch(block(l.w[0] & ~IdList::kPooled));
        }
    }

    void push_back(IdList& l, uint32_t value);
    // Appends `values`, which may be another list's view (not l's own).
    void append(IdList& l, std::span<const uint32_t> values);
    // The list becomes `values` (not a view of l), in a block of the smallest capacity.
    void assign(IdList& l, std::span<const uint32_t> values);
    // Keeps the first n values, in the smallest block that holds them (or inline).
    void truncate(IdList& l, size_t n);
    // Empties the list and frees its block.
    void clear(IdList& l);

    // Bytes held: every chunk, in use or free, and the bookkeeping (EGraph::memoryBytes).
    size_t bytes() const;
    // Whether more than a quarter of the chunks' ids are in free blocks (and there is more than a
    // few chunks' worth): repack then gives it back.
    bool fragmented() const;
    // Moves every pooled list, in the order `forEach(visit)` calls `visit(IdList&)` on them, into
    // fresh chunks without gaps, and releases the old ones. `forEach` must visit every list that
    // has a block, once.
    template <typename ForEach>
    void repack(ForEach forEach) {
        IdPool fresh;
        forEach([&](IdList& l) {
            if (l.pooled()) {
                IdList moved;
                fresh.assignGrown(moved, view(l), l.w[1]);
                l = moved;
            }
        });
        *this = std::move(fresh);
    }

private:
    static constexpr uint32_t kNil = UINT32_MAX;
    static constexpr unsigned kMinBits = 2; // the smallest block: 4 ids
    uint32_t* block(uint32_t ref) const {
        return chunks_[ref >> kChunkBits].get() + (ref & (kChunk - 1));
    }
    static size_t capacityOf(size_t size);  // the capacity of a block for `size` ids
    uint32_t allocate(size_t ids);          // a block of `ids` ids, a capacityOf value
    void release(uint32_t ref, size_t ids); // the block of that capacity
    uint32_t newChunk(size_t ids);
    void retireBump();
    // l (empty) gets a block for `size` values, copied from `values` (a prefix of them: size may
    // exceed values.size() for a list about to grow; its capacity follows `size`).
    void assignGrown(IdList& l, std::span<const uint32_t> values, size_t size);

    std::vector<std::unique_ptr<uint32_t[]>> chunks_;
    std::vector<uint32_t> chunkIds_;   // by chunk: its capacity in ids (0: released)
    std::vector<uint32_t> freeChunks_; // released chunk numbers, for reuse
    // By capacity bits: the first free block (whose first id links to the next), kNil if none.
    std::vector<uint32_t> freeHead_ = std::vector<uint32_t>(kChunkBits, kNil);
    uint32_t bump_ = kNil;     // the chunk that small blocks are cut from
    size_t bumpUsed_ = 0;      // ids of it handed out
    size_t chunkIdsTotal_ = 0; // sum of chunkIds_
    size_t freeIds_ = 0;       // ids in free blocks and in the bump chunk's rest
};

} // namespace egopt::egraph
