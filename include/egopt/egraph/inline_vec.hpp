// A vector of 4-byte values in 16 bytes: up to three inline, more on the heap, whose pointer and
// capacity then take the inline words' place (a std::vector is 24 bytes and allocates for one
// value). The e-graph's small lists use it: an e-node's children, and a shape's free variables
// and parameter types (a class's member and parent lists are IdLists, id_pool.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <vector>

namespace egopt::egraph {

template <typename T>
class InlineVec {
    static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>, "4-byte trivial values");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    InlineVec() = default;
    InlineVec(std::initializer_list<T> values) { append(values.begin(), values.size()); }
    InlineVec(std::span<const T> values) { append(values.data(), values.size()); }
    InlineVec(const std::vector<T>& values) { append(values.data(), values.size()); }
    InlineVec(const InlineVec& o) {
        if (o.onHeap()) {
            append(o.data(), o.size());
        } else { // the inline words as they are (the common case: no call, no branch per value)
            size_ = o.size_;
            std::memcpy(words_, o.words_, sizeof(words_));
        }
    }
    InlineVec(InlineVec&& o) noexcept : size_(o.size_) {
        std::memcpy(words_, o.words_, sizeof(words_));
        o.size_ = 0;
    }
    InlineVec& operator=(const InlineVec& o) {
        if (this != &o) {
            clear();
            append(o.data(), o.size());
        }
        return *this;
    }
    InlineVec& operator=(InlineVec&& o) noexcept {
        if (this != &o) {
            release();
            size_ = o.size_;
            std::memcpy(words_, o.words_, sizeof(words_));
            o.size_ = 0;
        }
        return *this;
    }
    ~InlineVec() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return onHeap() ? words_[2] : kInline; }
    // Bytes outside the 16 (what EGraph::memoryBytes adds for the list).
    size_t heapBytes() const { return onHeap() ? words_[2] * sizeof(T) : 0; }
    T* data() { return onHeap() ? heap() : reinterpret_cast<T*>(words_); }
    const T* data() const { return onHeap() ? heap() : reinterpret_cast<const T*>(words_); }
    iterator begin() { return data(); }
    iterator end() { return data() + size_; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + size_; }
    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    const T& at(size_t i) const {
        if (i >= size_) {
            throw std::out_of_range("InlineVec::at");
        }
        return data()[i];
    }
    const T& front() const { return data()[0]; }
    const T& back() const { return data()[size_ - 1]; }
    operator std::span<const T>() const { return {data(), size_}; }
    void push_back(T value) {
        if (size_ < kInline) {
            std::memcpy(&words_[size_++], &value, sizeof(T));
        } else {
            append(&value, 1);
        }
    }
    template <typename It>
    void assign(It first, It last) {
        clear();
        for (; first != last; ++first) {
            push_back(static_cast<T>(*first));
        }
    }
    template <typename It>
    iterator insert(const_iterator pos, It first, It last) {
        auto at = static_cast<size_t>(pos - begin());
        size_t before = size_;
        for (; first != last; ++first) {
            push_back(static_cast<T>(*first));
        }
        std::rotate(begin() + at, begin() + before, end());
        return begin() + at;
    }
    // Appends `n` values, growing the heap block to exactly what it needs when it must grow.
    void appendExact(const T* values, size_t n) { append(values, n, size_ + n); }
    // Removes [first, end()).
    void erase(const_iterator first, const_iterator last) {
        if (last != end()) {
            throw std::logic_error("InlineVec::erase: only a tail");
        }
        truncate(static_cast<size_t>(first - begin()));
    }
    void truncate(size_t n) {
        if (n >= size_) {
            return;
        }
        if (onHeap() && n <= kInline) { // back inline
            T* old = heap();
            std::memcpy(words_, old, n * sizeof(T));
            delete[] old;
        }
        size_ = static_cast<uint32_t>(n);
    }
    void shrink_to_fit() {
        if (onHeap() && words_[2] != size_) {
            reallocate(size_); // size_ > kInline: data() is the new block
        }
    }
    void clear() {
        release();
        size_ = 0;
    }
    friend bool operator==(const InlineVec& a, const InlineVec& b) {
        if (a.size_ != b.size_) {
            return false;
        }
        const T* x = a.data();
        const T* y = b.data();
        for (uint32_t i = 0; i < a.size_; ++i) { // a few values: no memcmp call
            if (x[i] != y[i]) {
                return false;
            }
        }
        return true;
    }
    friend bool operator==(const InlineVec& a, const std::vector<T>& b) {
        return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    static constexpr uint32_t kInline = 3;
    bool onHeap() const { return size_ > kInline; }
    T* heap() const {
        T* p = nullptr;
        std::memcpy(&p, words_, sizeof(p));
        return p;
    }
    void release() {
        if (onHeap()) {
            delete[] heap();
        }
    }
    // Moves the values to a heap block of `cap` (> kInline, >= size_) values and returns it
    // (the words now hold its pointer: data() is right again once size_ > kInline).
    T* reallocate(size_t cap) {
        auto* grown = new T[cap];
        std::memcpy(grown, data(), size_ * sizeof(T));
        release();
        std::memcpy(words_, &grown, sizeof(grown));
        words_[2] = static_cast<uint32_t>(cap);
        return grown;
    }
    // Doubling by default, from the inline three: a list built value by value reallocates
    // rarely.
    void append(const T* values, size_t n, size_t cap = 0) {
        if (n == 0) {
            return;
        }
        size_t total = size_ + n;
        T* dest = data();
        if (total > kInline && total > capacity()) {
            dest = reallocate(cap != 0 ? cap : std::max<size_t>(total, 2 * capacity()));
        }
        std::memcpy(dest + size_, values, n * sizeof(T));
        size_ = static_cast<uint32_t>(total);
    }

    uint32_t size_ = 0;
    uint32_t words_[kInline] = {}; // the values, or (on the heap) pointer and capacity
};

} // namespace egopt::egraph
