// Lift data types (ICFP'15 §3, CGO'17 §3): scalars, vectors, tuples and arrays whose lengths are
// symbolic sizes. Types are interned in a TypeArena and referred to by TypeId, so two types are
// equal exactly when their ids are equal (lengths are compared in arith's canonical form).
#pragma once

#include "egopt/arith/size.hpp"

#include <cstdint>
#include <deque>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace egopt::lift {

using TypeId = uint32_t;
inline constexpr TypeId kNoType = UINT32_MAX;

enum class ScalarKind : uint8_t { Float, Int, Double, Bool, Char, Long };

enum class TypeKind : uint8_t { Scalar, Vector, Tuple, Array };

struct TypeNode {
    TypeKind kind = TypeKind::Scalar;
    ScalarKind scalar = ScalarKind::Float; // Scalar and Vector
    uint32_t width = 0;                    // Vector: 2, 3, 4, 8 or 16 lanes
    std::vector<TypeId> elems;             // Tuple: fields; Array: {element}
    arith::Size length;                    // Array only
};

class TypeArena {
public:
    TypeArena();

    // While frozen, asking for a type that is not interned yet throws Frozen instead of adding
    // it: readers on several threads can then type terms against the arena as it is, and learn
    // when a type is missing (the e-graph's parallel apply phase plans right-hand sides so).
    struct Frozen : std::runtime_error {
        Frozen() : std::runtime_error("a new type in a frozen type arena") {}
    };
    void freeze(bool on) { frozen_ = on; }

    TypeId scalar(ScalarKind k);
    TypeId vector(ScalarKind k, uint32_t width);
    TypeId tuple(std::span<const TypeId> fields);
    TypeId array(TypeId elem, const arith::Size& length);

    TypeId floatType() { return scalar(ScalarKind::Float); }
    TypeId intType() { return scalar(ScalarKind::Int); }

    const TypeNode& at(TypeId id) const { return nodes_.at(id); }
    TypeKind kind(TypeId id) const { return at(id).kind; }
    bool isArray(TypeId id) const { return kind(id) == TypeKind::Array; }
    // Array accessors (the type must be an array).
    TypeId elemOf(TypeId arrayType) const;
    const arith::Size& lengthOf(TypeId arrayType) const;
    // The innermost non-array type (Float for [[Float]N]M).
    TypeId scalarBase(TypeId id) const;

    // Replace size variables inside lengths (e.g. to show a concrete type for --size N=4).
    TypeId substitute(TypeId id, const std::map<std::string, arith::Size, std::less<>>& repl);

    // Lift syntax: ArrayType(ArrayType(Float, N), M), TupleType(Float, Float), Float4.
    std::string show(TypeId id) const;
    // OpenCL C spelling of a non-array type: float, int, float4 (tuples need a struct name).
    std::string cName(TypeId id) const;
    // Bytes of one value of a non-array type in OpenCL (tuples: packed struct size).
    size_t byteSize(TypeId id) const;

    size_t size() const { return nodes_.size(); }
    // Bytes held: the type nodes, their element lists, the hashes and the index (the lengths'
    // arith nodes, shared with the rest of the program, are not counted).
    size_t bytes() const;

private:
    // A type to look up, by its parts: interning a type that exists already builds no TypeNode
    // (no element list allocated, no length copied).
    struct Key {
        TypeKind kind;
        ScalarKind scalar;
        uint32_t width;
        std::span<const TypeId> elems;
        const arith::Size* length; // arrays only
    };
    static uint32_t hashOf(const Key& k);
    static bool matches(const Key& k, const TypeNode& n);
    TypeId intern(const Key& key);
    void rehash(size_t slots);
    static constexpr TypeId kEmpty = UINT32_MAX;
    // A deque: references returned by at(), elemOf() and lengthOf() stay valid while new
    // types are interned (callers routinely hold one while building another).
    std::deque<TypeNode> nodes_;
    // The index: open addressing over the ids (linear probing, a power of two, half full at
    // most), each id's hash kept beside it so that a probe compares a type only on a match of
    // hashes (a lookup reads the slot and the hash, and the type once).
    std::vector<TypeId> slots_;
    std::vector<uint32_t> hashes_;
    size_t heapBytes_ = 0; // the element lists' capacities
    bool frozen_ = false;
};

std::string scalarName(ScalarKind k); // "Float", "Int", ...

} // namespace egopt::lift
