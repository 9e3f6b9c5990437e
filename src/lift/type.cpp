#include "egopt/lift/type.hpp"

#include <algorithm>
#include <stdexcept>

namespace egopt::lift {

std::string scalarName(ScalarKind k) {
    switch (k) {
    case ScalarKind::Float:
        return "Float";
    case ScalarKind::Int:
        return "Int";
    case ScalarKind::Double:
        return "Double";
    case ScalarKind::Bool:
        return "Bool";
    case ScalarKind::Char:
        return "Char";
    case ScalarKind::Long:
        return "Long";
    }
    return "?";
}

namespace {

std::string scalarCName(ScalarKind k) {
    switch (k) {
    case ScalarKind::Float:
        return "float";
    case ScalarKind::Int:
        return "int";
    case ScalarKind::Double:
        return "double";
    case ScalarKind::Bool:
        return "bool";
    case ScalarKind::Char:
        return "char";
    case ScalarKind::Long:
        return "long";
    }
    return "?";
}

size_t scalarBytes(ScalarKind k) {
    switch (k) {
    case ScalarKind::Double:
    case ScalarKind::Long:
        return 8;
    case ScalarKind::Char:
    case ScalarKind::Bool:
        return 1;
    default:
        return 4;
    }
}

} // namespace

uint32_t TypeArena::hashOf(const Key& k) {
    uint64_t h =
        (static_cast<uint64_t>(k.kind) << 40) ^ (static_cast<uint64_t>(k.scalar) << 32) ^ k.width;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x9e3779b97f4a7c15ULL; };
    mix(k.elems.size());
    for (TypeId e : k.elems) {
        mix(e);
    }
    if (k.length) {
        mix(k.length->hash());
    }
    return static_cast<uint32_t>(h ^ (h >> 29));
}

bool TypeArena::matches(const Key& k, const TypeNode& n) {
    return n.kind == k.kind && n.scalar == k.scalar && n.width == k.width &&
           std::equal(n.elems.begin(), n.elems.end(), k.elems.begin(), k.elems.end()) &&
           (!k.length || n.length == *k.length); // other kinds' lengths are all 0
}

TypeArena::TypeArena() {
    rehash(64);
}

void TypeArena::rehash(size_t count) {
    slots_.assign(count, kEmpty);
    size_t mask = count - 1;
    for (TypeId id = 0; id < nodes_.size(); ++id) {
        size_t i = hashes_[id] & mask;
        while (slots_[i] != kEmpty) {
            i = (i + 1) & mask;
        }
        slots_[i] = id;
    }
}

TypeId TypeArena::intern(const Key& key) {
    uint32_t h = hashOf(key);
    size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    for (; slots_[i] != kEmpty; i = (i + 1) & mask) {
        TypeId id = slots_[i];
        if (hashes_[id] == h && matches(key, nodes_[id])) {
            return id;
        }
    }
    if (frozen_) {
        throw Frozen();
    }
    auto id = static_cast<TypeId>(nodes_.size());
    TypeNode& n = nodes_.emplace_back();
    n.kind = key.kind;
    n.scalar = key.scalar;
    n.width = key.width;
    n.elems.assign(key.elems.begin(), key.elems.end());
    if (key.length) {
        n.length = *key.length;
    }
    heapBytes_ += n.elems.capacity() * sizeof(TypeId);
    hashes_.push_back(h);
    slots_[i] = id;
    if (2 * nodes_.size() > slots_.size()) {
        rehash(2 * slots_.size());
    }
    return id;
}

size_t TypeArena::bytes() const {
    return nodes_.size() * sizeof(TypeNode) + heapBytes_ + hashes_.capacity() * sizeof(uint32_t) +
           slots_.capacity() * sizeof(TypeId);
}

TypeId TypeArena::scalar(ScalarKind k) {
    return intern(Key{TypeKind::Scalar, k, 0, {}, nullptr});
}

TypeId TypeArena::vector(ScalarKind k, uint32_t width) {
    return intern(Key{TypeKind::Vector, k, width, {}, nullptr});
}

TypeId TypeArena::tuple(std::span<const TypeId> fields) {
    return intern(Key{TypeKind::Tuple, ScalarKind::Float, 0, fields, nullptr});
}

TypeId TypeArena::array(TypeId elem, const arith::Size& length) {
    return intern(
        Key{TypeKind::Array, ScalarKind::Float, 0, std::span<const TypeId>(&elem, 1), &length});
}

TypeId TypeArena::elemOf(TypeId arrayType) const {
    const TypeNode& n = at(arrayType);
    if (n.kind != TypeKind::Array) {
        throw std::logic_error("elemOf: not an array type: " + show(arrayType));
    }
    return n.elems[0];
}

const arith::Size& TypeArena::lengthOf(TypeId arrayType) const {
    const TypeNode& n = at(arrayType);
    if (n.kind != TypeKind::Array) {
        throw std::logic_error("lengthOf: not an array type: " + show(arrayType));
    }
    return n.length;
}

TypeId TypeArena::scalarBase(TypeId id) const {
    while (kind(id) == TypeKind::Array) {
        id = elemOf(id);
    }
    return id;
}

TypeId TypeArena::substitute(TypeId id,
                             const std::map<std::string, arith::Size, std::less<>>& repl) {
    TypeNode n = at(id); // copy: interning may reallocate nodes_
    switch (n.kind) {
    case TypeKind::Scalar:
    case TypeKind::Vector:
        return id;
    case TypeKind::Tuple: {
        std::vector<TypeId> fields;
        for (TypeId f : n.elems) {
            fields.push_back(substitute(f, repl));
        }
        return tuple(fields);
    }
    case TypeKind::Array:
        return array(substitute(n.elems[0], repl), n.length.substitute(repl));
    }
    return id;
}

std::string TypeArena::show(TypeId id) const {
    if (id == kNoType) {
        return "<unknown>";
    }
    const TypeNode& n = at(id);
    switch (n.kind) {
    case TypeKind::Scalar:
        return scalarName(n.scalar);
    case TypeKind::Vector:
        return scalarName(n.scalar) + std::to_string(n.width);
    case TypeKind::Tuple: {
        std::string s = "TupleType(";
        for (size_t i = 0; i < n.elems.size(); ++i) {
            s += (i ? ", " : "") + show(n.elems[i]);
        }
        return s + ")";
    }
    case TypeKind::Array:
        return "ArrayType(" + show(n.elems[0]) + ", " + n.length.toString() + ")";
    }
    return "?";
}

std::string TypeArena::cName(TypeId id) const {
    const TypeNode& n = at(id);
    switch (n.kind) {
    case TypeKind::Scalar:
        return scalarCName(n.scalar);
    case TypeKind::Vector:
        return scalarCName(n.scalar) + std::to_string(n.width);
    case TypeKind::Tuple: {
        // Lift's struct names (Tuple2_float_float), which user functions' C bodies spell out.
        std::string s = "Tuple" + std::to_string(n.elems.size());
        for (TypeId f : n.elems) {
            s += "_" + cName(f);
        }
        return s;
    }
    case TypeKind::Array:
        return cName(n.elems[0]) + "*";
    }
    return "?";
}

size_t TypeArena::byteSize(TypeId id) const {
    const TypeNode& n = at(id);
    switch (n.kind) {
    case TypeKind::Scalar:
        return scalarBytes(n.scalar);
    case TypeKind::Vector:
        return scalarBytes(n.scalar) * (n.width == 3 ? 4 : n.width);
    case TypeKind::Tuple: {
        size_t total = 0;
        for (TypeId f : n.elems) {
            total += byteSize(f);
        }
        return total;
    }
    case TypeKind::Array: {
        auto len = n.length.constant();
        if (!len) {
            throw std::logic_error("byteSize of an array with symbolic length " + show(id));
        }
        return static_cast<size_t>(*len) * byteSize(n.elems[0]);
    }
    }
    return 0;
}

} // namespace egopt::lift
