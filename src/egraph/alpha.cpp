// Duplication up to shifting (alpha.hpp): every open class's smallest term is hash-consed into a
// table of normalised terms, shifted so that its lowest free variable is index 0; classes that
// land on the same normalised term are copies of one another under other binders.
#include "egopt/egraph/alpha.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

namespace {

// A node of a normalised term: the e-node's operator, integer and attribute over normalised
// children.
struct NormNode {
    Op op = Op::Id;
    int32_t ival = 0;
    AttrId attr = 0;
    std::vector<uint32_t> children;
    friend bool operator==(const NormNode&, const NormNode&) = default;
};

struct NormNodeHash {
    size_t operator()(const NormNode& n) const noexcept {
        size_t h = static_cast<size_t>(n.op) * 0x9e3779b97f4a7c15ULL;
        auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
        mix(static_cast<size_t>(static_cast<uint32_t>(n.ival)));
        mix(n.attr);
        for (uint32_t c : n.children) {
            mix(c);
        }
        return h;
    }
};

class Normaliser {
public:
    explicit Normaliser(const EGraph& g)
        : g_(g), freeVars_(g.numNodeIds()), known_(g.numNodeIds()) {}

    // The sorted De Bruijn indices free in the smallest term of class c.
    const std::vector<int32_t>& freeVars(EClassId c, size_t depth = 0) {
        c = g_.findConst(c);
        if (known_[c]) {
            return freeVars_[c];
        }
        guard(depth);
        const ENode& n = g_.node(g_.data(c).best);
        std::vector<int32_t> fv;
        if (n.op == Op::Param) {
            fv.push_back(n.ival);
        }
        const int32_t bound = n.op == Op::Lambda ? n.ival : 0;
        for (EClassId child : n.children) {
            for (int32_t v : freeVars(child, depth + 1)) {
                if (v >= bound) {
                    fv.push_back(v - bound);
                }
            }
        }
        std::sort(fv.begin(), fv.end());
        fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
        known_[c] = true;
        freeVars_[c] = std::move(fv);
        return freeVars_[c];
    }

    // The id of class c's smallest term with its free variables >= cutoff shifted by `by`.
    uint32_t normalised(EClassId c, int32_t by, int32_t cutoff, size_t depth = 0) {
        c = g_.findConst(c);
        const std::vector<int32_t>& fv = freeVars(c, depth);
        if (fv.empty() || fv.back() < cutoff) {
            by = 0; // nothing to shift: the term as it is
            cutoff = 0;
        }
        const uint64_t key = (uint64_t{c} << 32) | (uint64_t{static_cast<uint16_t>(by)} << 16) |
                             static_cast<uint16_t>(cutoff);
        if (auto it = memo_.find(key); it != memo_.end()) {
            return it->second;
        }
        guard(depth);
        const ENode& n = g_.node(g_.data(c).best);
        NormNode out{n.op, n.ival, n.attr, {}};
        if (n.op == Op::Param && n.ival >= cutoff) {
            out.ival += by;
        }
        const int32_t inner = n.op == Op::Lambda ? cutoff + n.ival : cutoff;
        for (EClassId child : n.children) {
            out.children.push_back(normalised(child, by, inner, depth + 1));
        }
        auto [it, added] = table_.try_emplace(std::move(out), static_cast<uint32_t>(table_.size()));
        memo_.emplace(key, it->second);
        return it->second;
    }

private:
    static void guard(size_t depth) {
        if (depth > kMaxTermDepth) {
            throw std::runtime_error("measureShiftDuplication: smallest term nested too deeply");
        }
    }

    const EGraph& g_;
    std::vector<std::vector<int32_t>> freeVars_; // by canonical class id
    std::vector<bool> known_;
    std::unordered_map<uint64_t, uint32_t> memo_; // (class, by, cutoff) -> normalised term
    std::unordered_map<NormNode, uint32_t, NormNodeHash> table_;
};

struct Group {
    size_t classes = 0;
    size_t nodes = 0;
    size_t largest = 0;
};

} // namespace

ShiftDuplication measureShiftDuplication(const EGraph& g) {
    Normaliser norm(g);
    ShiftDuplication out;
    std::unordered_map<uint32_t, Group> groups; // normalised smallest term -> its classes
    for (EClassId c : g.classIds()) {
        const size_t members = g.eclass(c).nodes.size();
        ++out.classes;
        out.nodes += members;
        const std::vector<int32_t>& fv = norm.freeVars(c);
        if (fv.empty()) {
            continue; // a closed term is its own normal form: equal ones are one class already
        }
        ++out.openClasses;
        Group& group = groups[norm.normalised(c, -fv.front(), 0)];
        ++group.classes;
        group.nodes += members;
        group.largest = std::max(group.largest, members);
    }
    for (const auto& [term, group] : groups) {
        if (group.classes > 1) {
            ++out.groups;
            out.duplicateClasses += group.classes - 1;
            out.duplicateNodes += group.nodes - group.largest;
        }
    }
    return out;
}

} // namespace egopt::egraph
