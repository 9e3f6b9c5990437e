// The shape table (shape.hpp): linear probing over shape ids, compared by value.
#include "egopt/egraph/shape.hpp"

#include "table_sizes.hpp"

namespace egopt::egraph {

ShapeTable::ShapeTable() {
    rehash(64);
    intern(Shape{});
}

uint32_t ShapeTable::hashOf(const Shape& s) {
    uint64_t h = (static_cast<uint64_t>(s.fun.kind) << 32) ^ s.fun.result;
    auto mix = [&h](uint32_t v) { h = (h ^ v) * 0x9e3779b97f4a7c15ULL; };
    mix(s.type);
    for (TypeId t : s.fun.params) {
        mix(t);
    }
    mix(0xffffU);
    for (int32_t v : s.freeVars) {
        mix(static_cast<uint32_t>(v));
    }
    return static_cast<uint32_t>(h ^ (h >> 32));
}

void ShapeTable::rehash(size_t count) {
    slots_.assign(count, kNone);
    for (ShapeId id = 0; id < shapes_.size(); ++id) {
        size_t i = detail::scaledSlot(hashOf(shapes_[id]), count);
        while (slots_[i] != kNone) {
            i = i + 1 == count ? 0 : i + 1;
        }
        slots_[i] = id;
    }
}

ShapeId ShapeTable::intern(const Shape& shape) {
    size_t count = slots_.size();
    size_t i = detail::scaledSlot(hashOf(shape), count);
    for (; slots_[i] != kNone; i = i + 1 == count ? 0 : i + 1) {
        if (shapes_[slots_[i]] == shape) {
            return slots_[i];
        }
    }
    auto id = static_cast<ShapeId>(shapes_.size());
    shapes_.push_back(shape);
    heapBytes_ += shapes_[id].fun.params.heapBytes() + shapes_[id].freeVars.heapBytes();
    slots_[i] = id;
    // Three quarters full at most, in the sizes of table_sizes.hpp (as the hashcons): where classes
    // have types of their own (a split-join's chains of splits) there is a shape per class, and a
    // power-of-two table at most half full would cost 8-16 bytes each.
    if (4 * shapes_.size() > 3 * count) {
        rehash(detail::grownSlots(count));
    }
    return id;
}

size_t ShapeTable::bytes() const {
    return shapes_.bytes() + heapBytes_ + slots_.capacity() * sizeof(uint32_t);
}

} // namespace egopt::egraph
