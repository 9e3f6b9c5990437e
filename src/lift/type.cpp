#include "egopt/lift/type.hpp"

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

size_t TypeArena::KeyHash::operator()(const TypeNode& n) const {
    size_t h =
        static_cast<size_t>(n.kind) * 1000003u + static_cast<size_t>(n.scalar) * 10007u + n.width;
    for (TypeId e : n.elems) {
        h = h * 31u + e;
    }
    return h * 17u + n.length.hash();
}

bool TypeArena::KeyEq::operator()(const TypeNode& a, const TypeNode& b) const {
    return a.kind == b.kind && a.scalar == b.scalar && a.width == b.width && a.elems == b.elems &&
           a.length == b.length;
}

TypeArena::TypeArena() = default;

TypeId TypeArena::intern(TypeNode node) {
    auto it = index_.find(node);
    if (it != index_.end()) {
        return it->second;
    }
    if (frozen_) {
        throw Frozen();
    }
    auto id = static_cast<TypeId>(nodes_.size());
    nodes_.push_back(node);
    index_.emplace(std::move(node), id);
    return id;
}

TypeId TypeArena::scalar(ScalarKind k) {
    TypeNode n;
    n.kind = TypeKind::Scalar;
    n.scalar = k;
    return intern(std::move(n));
}

TypeId TypeArena::vector(ScalarKind k, uint32_t width) {
    TypeNode n;
    n.kind = TypeKind::Vector;
    n.scalar = k;
    n.width = width;
    return intern(std::move(n));
}

TypeId TypeArena::tuple(std::span<const TypeId> fields) {
    TypeNode n;
    n.kind = TypeKind::Tuple;
    n.elems.assign(fields.begin(), fields.end());
    return intern(std::move(n));
}

TypeId TypeArena::array(TypeId elem, const arith::Size& length) {
    TypeNode n;
    n.kind = TypeKind::Array;
    n.elems = {elem};
    n.length = length;
    return intern(std::move(n));
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
