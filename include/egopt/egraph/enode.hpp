// E-nodes of the Lift e-graph: a Lift IR operator over e-class ids, with De Bruijn variables.
//
// The language is the Lift IR of lift/ir.hpp with two changes that make terms context-free, so
// that equal subterms can be shared soundly (docs/egraph.md):
//   - Op::Param is a De Bruijn variable: ival is the index (0 = innermost binder) and the node
//     carries its type (types[0]); the top-level parameters are the free variables of a program.
//   - Op::Lambda has ival = number of parameters, one child (the body) and the parameter types;
//     a k-ary lambda binds k indices at once, its last parameter being index 0.
// Sizes and types live in an interned attribute (AttrId), so an e-node is a few words.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

using lift::Op;
using lift::TypeId;

// E-class ids and e-node ids share one numbering: the node added with id i creates class i.
using EClassId = uint32_t;
using ENodeId = uint32_t;
using AttrId = uint32_t;
inline constexpr EClassId kNoClass = UINT32_MAX;

// Numeric and type arguments of a node (split factor, lambda parameter types, ...).
struct Attr {
    std::vector<arith::Size> sizes;
    std::vector<TypeId> types;
    friend bool operator==(const Attr&, const Attr&) = default;
};

// The child class ids of an e-node in 16 bytes: up to three inline (nearly every Lift e-node:
// an application of a function to one or two arguments, a lambda, Map(f)), more on the heap,
// whose pointer and capacity then take the inline words' place. 4-byte aligned, so an e-node
// is 28 bytes (a small_vector of three was 40).
class ChildList {
public:
    using value_type = EClassId;
    using iterator = EClassId*;
    using const_iterator = const EClassId*;

    ChildList() = default;
    ChildList(std::initializer_list<EClassId> ids) { append(ids.begin(), ids.size()); }
    ChildList(const ChildList& o) {
        if (o.onHeap()) {
            append(o.data(), o.size());
        } else { // the inline words as they are (the common case: no call, no branch per id)
            size_ = o.size_;
            std::memcpy(words_, o.words_, sizeof(words_));
        }
    }
    ChildList(ChildList&& o) noexcept : size_(o.size_) {
        std::memcpy(words_, o.words_, sizeof(words_));
        o.size_ = 0;
    }
    ChildList& operator=(const ChildList& o) {
        if (this != &o) {
            clear();
            append(o.data(), o.size());
        }
        return *this;
    }
    ChildList& operator=(ChildList&& o) noexcept {
        if (this != &o) {
            release();
            size_ = o.size_;
            std::memcpy(words_, o.words_, sizeof(words_));
            o.size_ = 0;
        }
        return *this;
    }
    ~ChildList() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return onHeap() ? words_[2] : kInline; }
    EClassId* data() { return onHeap() ? heap() : words_; }
    const EClassId* data() const { return onHeap() ? heap() : words_; }
    iterator begin() { return data(); }
    iterator end() { return data() + size_; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + size_; }
    EClassId& operator[](size_t i) { return data()[i]; }
    EClassId operator[](size_t i) const { return data()[i]; }
    EClassId at(size_t i) const {
        if (i >= size_) {
            throw std::out_of_range("ChildList::at");
        }
        return data()[i];
    }
    EClassId front() const { return data()[0]; }
    EClassId back() const { return data()[size_ - 1]; }
    void push_back(EClassId c) {
        if (size_ < kInline) {
            words_[size_++] = c;
        } else {
            append(&c, 1);
        }
    }
    template <typename It>
    void assign(It first, It last) {
        clear();
        for (; first != last; ++first) {
            push_back(static_cast<EClassId>(*first));
        }
    }
    template <typename It>
    iterator insert(const_iterator pos, It first, It last) {
        auto at = static_cast<size_t>(pos - begin());
        size_t before = size_;
        for (; first != last; ++first) {
            push_back(static_cast<EClassId>(*first));
        }
        std::rotate(begin() + at, begin() + before, end());
        return begin() + at;
    }
    void clear() {
        release();
        size_ = 0;
    }
    friend bool operator==(const ChildList& a, const ChildList& b) {
        if (a.size_ != b.size_) {
            return false;
        }
        const EClassId* x = a.data();
        const EClassId* y = b.data();
        for (uint32_t i = 0; i < a.size_; ++i) { // a few ids: no memcmp call
            if (x[i] != y[i]) {
                return false;
            }
        }
        return true;
    }

private:
    static constexpr uint32_t kInline = 3;
    bool onHeap() const { return size_ > kInline; }
    EClassId* heap() const {
        EClassId* p = nullptr;
        std::memcpy(&p, words_, sizeof(p));
        return p;
    }
    void release() {
        if (onHeap()) {
            delete[] heap();
        }
    }
    void append(const EClassId* ids, size_t n);

    uint32_t size_ = 0;
    EClassId words_[kInline] = {}; // the children, or (on the heap) pointer and capacity
};
static_assert(sizeof(EClassId*) <= 2 * sizeof(EClassId), "a heap pointer fits two words");

struct ENode {
    Op op = Op::Id;
    // Not part of the node's value (equality and hashing ignore it): in the e-graph's node array,
    // the epoch of the node's last change less EGraph's base (EGraph::nodeChangedAt). It fills
    // padding after `op`, where e-matching reads the node anyway.
    uint8_t age = 0;
    int32_t ival = 0;
    AttrId attr = 0; // 0 is the empty attribute
    ChildList children;
    friend bool operator==(const ENode& a, const ENode& b) {
        return a.op == b.op && a.ival == b.ival && a.attr == b.attr && a.children == b.children;
    }
};
static_assert(sizeof(ENode) == 28, "an e-node is 28 bytes");

struct ENodeHash {
    size_t operator()(const ENode& n) const noexcept;
};

// Interning of attributes: equal attributes get equal ids, so nodes compare by id.
class AttrTable {
public:
    AttrTable();
    AttrId intern(Attr attr);
    const Attr& at(AttrId id) const { return attrs_[id]; }
    size_t size() const { return attrs_.size(); }
    size_t bytes() const;

private:
    struct Hash {
        size_t operator()(const Attr& a) const noexcept;
    };
    std::vector<Attr> attrs_;
    std::unordered_map<Attr, AttrId, Hash> index_;
};

// Variables (De Bruijn) and patterns that carry no data are "function" nodes unless they are
// expressions; index functions (ReorderStride, Reverse, Shift) are neither data nor typed.
bool isDataOp(Op op);
bool isIndexFunction(Op op);

} // namespace egopt::egraph
