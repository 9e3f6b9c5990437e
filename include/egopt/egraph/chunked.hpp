// An append-only array in fixed chunks: growing never moves the elements, and the capacity
// beyond the size is at most one chunk (a std::vector doubles, so up to half its bytes can be
// unused capacity, which EGraph::memoryBytes counts). Used for the e-graph's per-node and
// per-class arrays.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace egopt::egraph {

template <typename T, size_t kChunkBits = 10>
class Chunked {
public:
    static constexpr size_t kChunk = size_t(1) << kChunkBits;

    T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return chunks_.size() * kChunk; }
    size_t bytes() const {
        return capacity() * sizeof(T) + chunks_.capacity() * sizeof(std::unique_ptr<T[]>);
    }
    void push_back(T value) {
        if (size_ == capacity()) {
            chunks_.push_back(std::make_unique<T[]>(kChunk));
        }
        (*this)[size_++] = std::move(value);
    }
    template <typename... Args>
    T& emplace_back(Args&&... args) {
        push_back(T(std::forward<Args>(args)...));
        return (*this)[size_ - 1];
    }

    // Keeps the first n elements and releases the chunks after them.
    void truncate(size_t n) {
        if (n < size_) {
            size_ = n;
            chunks_.resize((n + kChunk - 1) / kChunk);
        }
    }

    void fill(const T& value) {
        for (size_t i = 0; i < size_; ++i) {
            (*this)[i] = value;
        }
    }

private:
    std::vector<std::unique_ptr<T[]>> chunks_;
    size_t size_ = 0;
};

} // namespace egopt::egraph
