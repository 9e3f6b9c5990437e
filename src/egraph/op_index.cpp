// The operator index of a clean e-graph (pattern.hpp, OpIndex).
#include "egopt/egraph/pattern.hpp"

#include <bit>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

namespace {

// One bit per operator: every operator's value is below 64.
static_assert(static_cast<unsigned>(Op::InsertionSortSeq) < 64);
uint64_t bitOf(Op op) {
    return uint64_t(1) << static_cast<unsigned>(op);
}

constexpr size_t kNumOps = size_t(1) << (8 * sizeof(Op));
constexpr size_t kGrain = 1024; // classes per parallel range

// Appends class all[i] to lists[op] for every bit op of masks[i], in class order.
void listByBit(std::span<const EClassId> all, const std::vector<uint64_t>& masks,
               std::vector<std::vector<EClassId>>& lists) {
    for (size_t i = 0; i < all.size(); ++i) {
        for (uint64_t m = masks[i]; m != 0; m &= m - 1) {
            lists[static_cast<size_t>(std::countr_zero(m))].push_back(all[i]);
        }
    }
}

} // namespace

// The per-class work (reading every member's e-node) runs in parallel ranges of classes, each
// writing only its classes' entries; the lists are then cut in class order, so the index is the
// same for any thread count.
OpIndex::OpIndex(const EGraph& g, bool functionKeys)
    : all_(g.classIds()), byOp_(kNumOps), appliedOp_(kNumOps) {
    const size_t n = all_.size();
    std::vector<uint64_t> ops(g.numNodeIds(), 0); // by canonical class id
    std::vector<uint64_t> held(n, 0);             // by position in all_
    std::vector<uint32_t> sizes(n, 0);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& range) {
        for (size_t i = range.begin(); i < range.end(); ++i) {
            uint64_t mask = 0;
            std::span<const ENodeId> members = g.eclass(all_[i]).nodes;
            for (ENodeId m : members) {
                mask |= bitOf(g.node(m).op);
            }
            ops[all_[i]] = mask;
            held[i] = mask;
            sizes[i] = static_cast<uint32_t>(members.size());
        }
    });
    for (size_t i = 0; i < n; ++i) {
        if (sizes[i] >= kLargeClass) {
            large_.push_back(all_[i]);
        }
    }
    if (functionKeys) {
        keyAt_.assign(g.numNodeIds(), 0);
        size_t at = 0;
        for (size_t i = 0; i < n; ++i) {
            keyAt_[all_[i]] = static_cast<uint32_t>(at);
            at += sizes[i];
        }
        keys_.assign(at, kNoClass);
        positions_.assign(at, UINT32_MAX);
    }
    std::vector<uint64_t> applied(n, 0); // by position: the operators of applied functions
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& range) {
        for (size_t i = range.begin(); i < range.end(); ++i) {
            EClassId c = all_[i];
            if ((held[i] & bitOf(Op::Apply)) == 0) {
                continue;
            }
            std::span<const ENodeId> members = g.eclass(c).nodes;
            for (size_t k = 0; k < members.size(); ++k) {
                const ENode& node = g.node(members[k]);
                if (node.op == Op::Apply && !node.children.empty()) {
                    applied[i] |= ops[node.children[0]];
                    if (functionKeys) {
                        keys_[keyAt_[c] + k] = g.findConst(node.children[0]);
                        positions_[keyAt_[c] + k] = g.nodePosition(members[k]);
                    }
                }
            }
        }
    });
    listByBit(all_, held, byOp_);
    listByBit(all_, applied, appliedOp_);
    if (functionKeys) {
        for (size_t i = 0; i < n; ++i) {
            std::span<const EClassId> keys = appliedFunctions(all_[i], sizes[i]);
            for (EClassId fn : keys) {
                if (fn == kNoClass) {
                    continue;
                }
                std::vector<EClassId>& list = applying_[fn];
                if (list.empty() || list.back() != all_[i]) {
                    list.push_back(all_[i]);
                }
            }
        }
    }
}

std::span<const EClassId> OpIndex::candidates(const Pattern& p) const {
    std::optional<Op> op = rootOp(p);
    if (!op) {
        return all();
    }
    const PatNode& root = p.nodes[p.root];
    if (*op == Op::Apply && !root.children.empty()) {
        if (std::optional<Op> fn = patternOp(p, root.children[0])) {
            return appliedOp_[static_cast<size_t>(*fn)];
        }
    }
    return byOp_[static_cast<size_t>(*op)];
}

std::span<const EClassId> OpIndex::withOp(Op op) const {
    return byOp_[static_cast<size_t>(op)];
}

std::span<const EClassId> OpIndex::appliedFunctions(EClassId c, size_t members) const {
    return std::span<const EClassId>(keys_).subspan(keyAt_[c], members);
}

std::span<const EClassId> OpIndex::applying(EClassId f) const {
    auto it = applying_.find(f);
    return it == applying_.end() ? std::span<const EClassId>() : it->second;
}

} // namespace egopt::egraph
