// The pool of IdLists (id_pool.hpp): power-of-two blocks cut from 1,024-id chunks, with a free
// list per capacity, and chunks of their own for blocks of 1,024 ids or more.
#include "egopt/egraph/id_pool.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace egopt::egraph {

// Below a chunk, the power of two at or above the size (at least 4): blocks cut from shared
// chunks and reused through the free lists. From a chunk up, the block is a chunk of its own, and
// its capacity is 2^k or 3·2^(k-1): a list of a few hundred thousand ids (the parents of a user
// function applied everywhere) then holds at most a half more than it needs, not twice.
size_t IdPool::capacityOf(size_t size) {
    size_t pow2 = std::max<size_t>(size_t(1) << kMinBits, std::bit_ceil(size));
    size_t threeQuarters = pow2 / 4 * 3;
    return threeQuarters >= kChunk && size <= threeQuarters ? threeQuarters : pow2;
}

// A chunk number for a new chunk of `ids` ids: a released one if there is one.
uint32_t IdPool::newChunk(size_t ids) {
    uint32_t chunk = 0;
    if (!freeChunks_.empty()) {
        chunk = freeChunks_.back();
        freeChunks_.pop_back();
    } else {
        // A reference, with IdList::kPooled, must stay below IdList::kEmpty.
        if (chunks_.size() + 1 >= (size_t(1) << (31 - kChunkBits))) {
            throw std::length_error("IdPool: too many chunks");
        }
        chunk = static_cast<uint32_t>(chunks_.size());
        chunks_.emplace_back();
        chunkIds_.push_back(0);
    }
    chunks_[chunk] = std::unique_ptr<uint32_t[]>(new uint32_t[ids]);
    chunkIds_[chunk] = static_cast<uint32_t>(ids);
    chunkIdsTotal_ += ids;
    return chunk;
}

// The rest of the bump chunk goes to the free lists (in power-of-two pieces, largest first).
void IdPool::retireBump() {
    size_t rest = kChunk - bumpUsed_;
    while (rest >= (size_t(1) << kMinBits)) {
        auto bits = static_cast<unsigned>(std::bit_width(rest) - 1);
        uint32_t ref = (bump_ << kChunkBits) | static_cast<uint32_t>(bumpUsed_);
        block(ref)[0] = freeHead_[bits];
        freeHead_[bits] = ref;
        bumpUsed_ += size_t(1) << bits;
        rest -= size_t(1) << bits;
    }
}

uint32_t IdPool::allocate(size_t ids) {
    if (ids >= kChunk) {
        return newChunk(ids) << kChunkBits;
    }
    auto bits = static_cast<unsigned>(std::countr_zero(ids));
    if (uint32_t ref = freeHead_[bits]; ref != kNil) {
        freeHead_[bits] = block(ref)[0];
        freeIds_ -= ids;
        return ref;
    }
    if (bump_ == kNil || kChunk - bumpUsed_ < ids) {
        if (bump_ != kNil) {
            retireBump();
        }
        bump_ = newChunk(kChunk);
        bumpUsed_ = 0;
        freeIds_ += kChunk;
    }
    uint32_t ref = (bump_ << kChunkBits) | static_cast<uint32_t>(bumpUsed_);
    bumpUsed_ += ids;
    freeIds_ -= ids;
    return ref;
}

void IdPool::release(uint32_t ref, size_t ids) {
    if (ids >= kChunk) {
        uint32_t chunk = ref >> kChunkBits;
        chunkIdsTotal_ -= chunkIds_[chunk];
        chunkIds_[chunk] = 0;
        chunks_[chunk].reset();
        freeChunks_.push_back(chunk);
        return;
    }
    auto bits = static_cast<unsigned>(std::countr_zero(ids));
    block(ref)[0] = freeHead_[bits];
    freeHead_[bits] = ref;
    freeIds_ += ids;
}

void IdPool::assignGrown(IdList& l, std::span<const uint32_t> values, size_t size) {
    uint32_t ref = allocate(capacityOf(size));
    std::memcpy(block(ref), values.data(), values.size() * sizeof(uint32_t));
    l.w[0] = IdList::kPooled | ref;
    l.w[1] = static_cast<uint32_t>(values.size());
}

void IdPool::push_back(IdList& l, uint32_t value) {
    append(l, std::span<const uint32_t>(&value, 1));
}

void IdPool::append(IdList& l, std::span<const uint32_t> values) {
    if (values.empty()) {
        return;
    }
    size_t size = l.size();
    size_t total = size + values.size();
    if (total <= 2) {
        for (uint32_t v : values) {
            l.w[size++] = v;
        }
        return;
    }
    if (!l.pooled()) { // from inline to a block
        uint32_t inlineIds[2] = {l.w[0], l.w[1]};
        IdList grown;
        // The capacity follows capacityOf: a list built id by id reallocates only when its
        // size passes one.
        assignGrown(grown, std::span<const uint32_t>(inlineIds, size), total);
        l = grown;
    } else if (capacityOf(total) != capacityOf(size)) {
        uint32_t ref = l.w[0] & ~IdList::kPooled;
        IdList grown;
        assignGrown(grown, view(l), total);
        release(ref, capacityOf(size));
        l = grown;
    }
    std::memcpy(block(l.w[0] & ~IdList::kPooled) + size, values.data(),
                values.size() * sizeof(uint32_t));
    l.w[1] = static_cast<uint32_t>(total);
}

void IdPool::assign(IdList& l, std::span<const uint32_t> values) {
    clear(l);
    append(l, values);
}

void IdPool::truncate(IdList& l, size_t n) {
    size_t size = l.size();
    if (n >= size) {
        return;
    }
    if (!l.pooled()) {
        l.w[1] = IdList::kEmpty;
        if (n == 0) {
            l.w[0] = IdList::kEmpty;
        }
        return;
    }
    uint32_t ref = l.w[0] & ~IdList::kPooled;
    if (n <= 2) {
        IdList small;
        std::memcpy(small.w, block(ref), n * sizeof(uint32_t));
        release(ref, capacityOf(size));
        l = small;
    } else if (capacityOf(n) != capacityOf(size)) {
        IdList moved;
        assignGrown(moved, {block(ref), n}, n);
        release(ref, capacityOf(size));
        l = moved;
    } else {
        l.w[1] = static_cast<uint32_t>(n);
    }
}

void IdPool::clear(IdList& l) {
    if (l.pooled()) {
        release(l.w[0] & ~IdList::kPooled, capacityOf(l.w[1]));
    }
    l = IdList{};
}

size_t IdPool::bytes() const {
    return chunkIdsTotal_ * sizeof(uint32_t) + chunks_.capacity() * sizeof(chunks_[0]) +
           (chunkIds_.capacity() + freeChunks_.capacity() + freeHead_.capacity()) *
               sizeof(uint32_t);
}

bool IdPool::fragmented() const {
    return chunkIdsTotal_ > 8 * kChunk && 16 * freeIds_ > chunkIdsTotal_;
}

} // namespace egopt::egraph
