// Discovery for the K-best search: the states (e-class, context, argument types) reachable from
// the root and their edges (docs/extraction.md, "The K-best search").
#include "search.hpp"

#include <limits>

namespace egopt::extract::detail {

using egraph::EClassId;
using egraph::ENode;
using lift::Op;
using lift::TypeId;

namespace {

uint64_t stateHash(EClassId c, uint32_t ctx, uint32_t types) {
    uint64_t h = (uint64_t(c) << 32 | ctx) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 31) ^ types) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

} // namespace

uint32_t Search::typesFor(std::vector<TypeId> types) {
    if (types.empty()) {
        return 0;
    }
    auto [it, fresh] = typesIndex_.try_emplace(types, static_cast<uint32_t>(types_.size()));
    if (fresh) {
        types_.push_back(std::move(types));
    }
    return it->second;
}

uint32_t Search::stateFor(EClassId c, Context ctx, std::vector<TypeId> types) {
    constexpr uint64_t kHigh = ~uint64_t(0xffffffff);
    ctx = ctx.projected(contextReads_[c]);
    uint32_t t = typesFor(std::move(types));
    uint32_t key = ctx.key();
    uint64_t h = stateHash(c, key, t);
    size_t mask = stateSlots_.size() - 1;
    size_t i = h & mask;
    for (; stateSlots_[i] != kEmptySlot; i = (i + 1) & mask) {
        if ((stateSlots_[i] & kHigh) != (h & kHigh)) {
            continue;
        }
        auto id = static_cast<uint32_t>(stateSlots_[i]);
        const State& st = states_[id];
        if (st.eclass == c && st.types == t && st.ctx.key() == key) {
            return id;
        }
    }
    auto id = static_cast<uint32_t>(states_.size());
    stateSlots_[i] = (h & kHigh) | id;
    states_.push_back({c, ctx, t});
    lists_.emplace_back();
    listChanges_.push_back(0);
    if (2 * states_.size() > stateSlots_.size()) {
        growStateIndex();
    }
    return id;
}

void Search::growStateIndex() {
    std::vector<uint64_t> slots(2 * stateSlots_.size(), kEmptySlot);
    size_t mask = slots.size() - 1;
    for (uint64_t slot : stateSlots_) {
        if (slot == kEmptySlot) {
            continue;
        }
        const State& st = states_[static_cast<uint32_t>(slot)];
        size_t i = stateHash(st.eclass, st.ctx.key(), st.types) & mask;
        while (slots[i] != kEmptySlot) {
            i = (i + 1) & mask;
        }
        slots[i] = slot;
    }
    stateSlots_ = std::move(slots);
}

const std::vector<ChildContexts>& Search::contextsOf(const ENode& n, Context ctx,
                                                     std::vector<ChildContexts>& uncached) {
    constexpr size_t kMaxChildren = 63; // 6 bits of the key
    if (n.children.size() > kMaxChildren) {
        uncached = childContexts(n, ctx, multi_);
        return uncached;
    }
    static_assert(sizeof(lift::Op) == 1);
    uint64_t key = uint64_t(uint32_t(n.ival)) << 32 | uint64_t(n.children.size()) << 26 |
                   uint64_t(static_cast<uint8_t>(n.op)) << 18 | ctx.key();
    auto it = contexts_.find(key);
    if (it == contexts_.end()) {
        it = contexts_.emplace(key, childContexts(n, ctx, multi_)).first;
    }
    return it->second;
}

std::vector<TypeId> Search::childTypes(const State& s, const ENode& n, size_t i) const {
    if (i != 0 || n.op == Op::Lambda) {
        return {}; // data children: their class has a type
    }
    if (n.op == Op::Apply) {
        std::vector<TypeId> args;
        for (size_t j = 1; j < n.children.size(); ++j) {
            TypeId t = g_.data(n.children[j]).type;
            if (t == lift::kNoType) {
                return {};
            }
            args.push_back(t);
        }
        return args;
    }
    return childArgTypes(g_, n, types_[s.types]);
}

void Search::expand(uint32_t s) {
    State st = states_[s]; // copied: stateFor appends to states_
    auto first = static_cast<uint32_t>(edges_.size());
    std::vector<uint32_t>& cs = childScratch_;
    std::vector<ChildContexts> uncached;
    for (egraph::ENodeId id : g_.eclass(st.eclass).nodes) {
        const ENode& n = g_.node(id);
        for (const ChildContexts& alt : contextsOf(n, st.ctx, uncached)) {
            cs.clear();
            for (size_t i = 0; i < n.children.size(); ++i) {
                cs.push_back(stateFor(g_.findConst(n.children[i]), alt[i], childTypes(st, n, i)));
            }
            edges_.push_back(
                {id, static_cast<uint32_t>(childStates_.size()), static_cast<uint32_t>(cs.size())});
            childStates_.insert(childStates_.end(), cs.begin(), cs.end());
        }
    }
    states_[s].firstEdge = first;
    states_[s].numEdges = static_cast<uint32_t>(edges_.size()) - first;
}

void Search::indexChildEdges(bool dedupe) {
    edgeOwner_.assign(edges_.size(), 0);
    std::vector<uint32_t>& start = childEdges_.start;
    start.assign(states_.size() + 2, 0);
    auto eachChild = [&](auto&& visit) {
        for (uint32_t s = 0; s < states_.size(); ++s) {
            const State& st = states_[s];
            for (uint32_t e = st.firstEdge; e < st.firstEdge + st.numEdges; ++e) {
                edgeOwner_[e] = s;
                const Edge& edge = edges_[e];
                for (uint32_t i = 0; i < edge.numChildren; ++i) {
                    uint32_t c = childStates_[edge.firstChild + i];
                    // The same child twice in one edge (x * x) lists the edge once.
                    bool repeated = false;
                    for (uint32_t j = 0; dedupe && j < i; ++j) {
                        repeated = repeated || childStates_[edge.firstChild + j] == c;
                    }
                    if (!repeated) {
                        visit(c, e);
                    }
                }
            }
        }
    };
    eachChild([&](uint32_t c, uint32_t) { ++start[c + 2]; });
    for (size_t i = 2; i < start.size(); ++i) {
        start[i] += start[i - 1];
    }
    childEdges_.items.resize(start.back());
    eachChild([&](uint32_t c, uint32_t e) { childEdges_.items[start[c + 1]++] = e; });
    start.pop_back();
}

void Search::computeContextReads() {
    std::vector<EClassId> classes = g_.classIds();
    contextReads_.assign(classes.empty() ? 0 : classes.back() + 1, 0);
    // A fixed point: the fields only grow (7 bits per class), children mostly have the
    // smaller ids, so a pass in ascending order settles most classes at once.
    for (bool changed = true; changed;) {
        changed = false;
        for (EClassId c : classes) {
            uint8_t reads = contextReads_[c];
            for (egraph::ENodeId id : g_.eclass(c).nodes) {
                const ENode& n = g_.node(id);
                reads |= deviceContextReads(n) | cost_.deviceContextReads(n);
                for (EClassId child : n.children) {
                    reads |= contextReads_[g_.findConst(child)];
                }
            }
            changed = changed || reads != contextReads_[c];
            contextReads_[c] = reads;
        }
    }
}

void Search::discover(EClassId root) {
    computeContextReads();
    stateFor(g_.findConst(root), Context::host(), {});
    for (uint32_t s = 0; s < states_.size(); ++s) { // breadth first; states_ grows
        expand(s);
    }
    indexChildEdges(true);
    edgeDirty_.assign(edges_.size(), true);
    edgeLists_.resize(edges_.size());
    edgeBounds_.assign(edges_.size(), std::numeric_limits<double>::infinity());
}

} // namespace egopt::extract::detail
