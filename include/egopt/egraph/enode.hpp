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
#include "egopt/egraph/inline_vec.hpp"
#include "egopt/lift/ir.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
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
// an application of a function to one or two arguments, a lambda, Map(f)), more on the heap.
// 4-byte aligned, so an e-node is 28 bytes (a small_vector of three was 40).
using ChildList = InlineVec<EClassId>;

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

// Inline: every hashcons lookup hashes its key (a multiply per child: the hashcons takes the
// top bits of another product, NodeTable::home). `parts` hashes the node of these fields
// without building it (compiled right-hand sides).
struct ENodeHash {
    static size_t parts(Op op, int32_t ival, AttrId attr, std::span<const EClassId> children) {
        constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
        uint64_t h = (static_cast<uint64_t>(static_cast<uint32_t>(ival)) << 32 |
                      static_cast<uint64_t>(op) << 24 | children.size()) *
                     kMul;
        h = (h ^ attr) * kMul;
        for (EClassId c : children) {
            h = (h ^ (h >> 29) ^ c) * kMul;
        }
        return static_cast<size_t>(h);
    }
    size_t operator()(const ENode& n) const noexcept {
        return parts(n.op, n.ival, n.attr, n.children);
    }
};

// Interning of attributes: equal attributes get equal ids, so nodes compare by id.
class AttrTable {
public:
    AttrTable();
    AttrId intern(Attr attr);
    std::optional<AttrId> find(const Attr& attr) const; // without interning
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
