// The operator index of a clean e-graph (pattern.hpp, OpIndex).
#include "egopt/egraph/pattern.hpp"

#include <bitset>

namespace egopt::egraph {

namespace {

constexpr size_t kNumOps = size_t(1) << (8 * sizeof(Op));
using OpSet = std::bitset<kNumOps>;

void addOnce(std::vector<EClassId>& list, EClassId c) {
    if (list.empty() || list.back() != c) {
        list.push_back(c);
    }
}

} // namespace

OpIndex::OpIndex(const EGraph& g, bool functionKeys)
    : all_(g.classIds()), byOp_(kNumOps), appliedOp_(kNumOps) {
    std::vector<OpSet> ops(g.numNodeIds()); // by canonical class id
    for (EClassId c : all_) {
        for (ENodeId n : g.eclass(c).nodes) {
            ops[c].set(static_cast<size_t>(g.node(n).op));
            addOnce(byOp_[static_cast<size_t>(g.node(n).op)], c);
        }
    }
    if (functionKeys) {
        keyAt_.assign(g.numNodeIds(), 0);
        keys_.reserve(g.numNodes());
    }
    for (EClassId c : all_) {
        OpSet applied;
        if (functionKeys) {
            keyAt_[c] = static_cast<uint32_t>(keys_.size());
        }
        for (ENodeId n : g.eclass(c).nodes) {
            const ENode& node = g.node(n);
            EClassId fn = kNoClass;
            if (node.op == Op::Apply && !node.children.empty()) {
                applied |= ops[node.children[0]];
                fn = functionKeys ? g.findConst(node.children[0]) : kNoClass;
            }
            if (functionKeys) {
                keys_.push_back(fn);
                if (fn != kNoClass) {
                    addOnce(applying_[fn], c);
                }
            }
        }
        for (size_t op = 0; op < kNumOps && applied.any(); ++op) {
            if (applied.test(op)) {
                addOnce(appliedOp_[op], c);
                applied.reset(op);
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
