// Internal: the sizes of egopt's open-addressing tables (the hashcons, the shape table). They
// have 2^k or 3·2^(k-1) slots, growing by 3/2 and 4/3 in turn, so that a count just above a
// power of two does not hold twice the slots it needs; a hash's home slot is its bits scaled to
// the table, which need not be a power of two.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace egopt::egraph::detail {

// The slot a well-mixed 32-bit hash starts probing at in a table of `slots` slots.
inline size_t scaledSlot(uint32_t hash, size_t slots) {
    return static_cast<size_t>((static_cast<uint64_t>(hash) * slots) >> 32);
}

// The next size of the sequence 2^k, 3·2^(k-1), 2^(k+1), ... (n at least 4).
inline size_t grownSlots(size_t n) {
    return std::has_single_bit(n) ? n + n / 2 : n / 3 * 4;
}

// The size before n in that sequence.
inline size_t shrunkSlots(size_t n) {
    return std::has_single_bit(n) ? n / 4 * 3 : n / 3 * 2;
}

} // namespace egopt::egraph::detail
