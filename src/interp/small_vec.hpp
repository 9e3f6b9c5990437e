// Internal to the interpreter: a vector that keeps its first N elements inline, for the argument
// lists, saved bindings and C variable slots that every element of a large array needs. Calling
// a user function once per element would otherwise allocate several heap blocks per element.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <utility>

namespace egopt::interp::detail {

template <class T, size_t N>
class SmallVec {
public:
    SmallVec() = default;
    // n value-initialised elements.
    explicit SmallVec(size_t n) {
        reserve(n);
        for (size_t i = 0; i < n; ++i) {
            emplace_back();
        }
    }
    SmallVec(const SmallVec&) = delete;
    SmallVec& operator=(const SmallVec&) = delete;
    ~SmallVec() {
        clear();
        if (data_ != inlineData()) {
            ::operator delete (data_, std::align_val_t{alignof(T)});
        }
    }

    template <class... A>
    T& emplace_back(A&&... a) {
        if (size_ == capacity_) {
            reserve(capacity_ * 2);
        }
        T* p = ::new (static_cast<void*>(data_ + size_)) T(std::forward<A>(a)...);
        ++size_;
        return *p;
    }
    void push_back(T v) { emplace_back(std::move(v)); }

    void reserve(size_t n) {
        if (n <= capacity_) {
            return;
        }
        T* fresh = static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
        std::uninitialized_move(data_, data_ + size_, fresh);
        std::destroy(data_, data_ + size_);
        if (data_ != inlineData()) {
            ::operator delete (data_, std::align_val_t{alignof(T)});
        }
        data_ = fresh;
        capacity_ = n;
    }

    void clear() {
        std::destroy(data_, data_ + size_);
        size_ = 0;
    }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    std::span<T> span() { return {data_, size_}; }
    std::span<const T> span() const { return {data_, size_}; }

private:
    T* inlineData() { return reinterpret_cast<T*>(storage_); }

    alignas(T) std::byte storage_[N * sizeof(T)];
    T* data_ = inlineData();
    size_t size_ = 0;
    size_t capacity_ = N;
};

} // namespace egopt::interp::detail
