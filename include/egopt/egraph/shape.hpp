// What a class's analysis knows besides its smallest term: its type (a data class) or function
// signature, and the De Bruijn variables free in it. Few are distinct (about 6,000 among mm's
// 643,000 classes at a million e-nodes), so a class keeps the 4-byte id of an interned one.
#pragma once

#include "egopt/egraph/chunked.hpp"
#include "egopt/egraph/enode.hpp"
#include "egopt/egraph/inline_vec.hpp"
#include "egopt/lift/type.hpp"

#include <cstdint>
#include <vector>

namespace egopt::egraph {

// What a function-valued class is known to be: a lambda or user function has a monomorphic
// signature; patterns (Map(f), Split(n)) are polymorphic in lengths and are typed per use.
struct FunSig {
    enum class Kind : uint8_t { None, Mono, Poly, Index };
    InlineVec<TypeId> params;
    TypeId result = lift::kNoType;
    Kind kind = Kind::None; // last: no padding before the vector
    friend bool operator==(const FunSig&, const FunSig&) = default;
};

struct Shape {
    FunSig fun;                  // function classes only
    InlineVec<int32_t> freeVars; // sorted De Bruijn indices that some member may use
    TypeId type = lift::kNoType; // data classes only
    friend bool operator==(const Shape&, const Shape&) = default;
};

using ShapeId = uint32_t;

// Interned shapes: equal shapes get equal ids, and a shape never moves, so references to it
// stay valid as long as the table. Reads are thread-safe while nobody interns.
class ShapeTable {
public:
    ShapeTable(); // id 0 is the empty shape
    ShapeId intern(const Shape& shape);
    const Shape& operator[](ShapeId id) const { return shapes_[id]; }
    size_t size() const { return shapes_.size(); }
    size_t bytes() const;

private:
    static uint32_t hashOf(const Shape& shape);
    void rehash(size_t slots);
    static constexpr uint32_t kNone = UINT32_MAX;
    Chunked<Shape, 8> shapes_;
    // Open addressing over the ids: 2^k or 3·2^(k-1) slots, at most 3/4 full.
    std::vector<uint32_t> slots_;
    size_t heapBytes_ = 0; // the shapes' lists beyond their inline values
};

} // namespace egopt::egraph
