// The K-best search: states (e-class, context, argument types) reachable from the root, and
// their K best terms computed bottom-up with a worklist until nothing changes (docs/extraction.md;
// discovery of the states is in discover.cpp).
#include "search.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <set>
#include <unordered_set>

namespace egopt::extract::detail {

using egraph::EClassId;
using egraph::ENode;
using lift::Op;
using lift::TypeId;

double Search::costOf(uint32_t s, const Edge& e, std::span<const uint32_t> idx,
                      std::vector<ChildChoice>& scratch) const {
    scratch.clear();
    for (size_t i = 0; i < idx.size(); ++i) {
        uint32_t cs = childStates_[e.firstChild + i];
        const Entry& en = lists_[cs][idx[i]];
        scratch.push_back({states_[cs].eclass, states_[cs].ctx, terms_.node(en.term), en.cost});
    }
    const State& st = states_[s];
    CostInput in{g_, st.eclass, g_.node(e.node), st.ctx, types_[st.types], scratch, sizes_};
    return cost_.cost(in);
}

// The best combinations of the children's lists for one edge, cheapest first (lazy frontier
// enumeration, exact because costs are monotone in each child's cost and the lists are
// sorted). Index vectors form a tree (the parent of v decrements its last non-zero index), so
// each is generated once without a visited set. Stops at `limit` terms or once a combination
// costs more than `bound` (the limit-th best of the state so far). Returns the bound it
// stopped at (every combination left costs more), or infinity when it was not cut by it.
double Search::combine(uint32_t s, const Edge& e, Pool& pool, ExtractStats& stats) {
    constexpr double kComplete = std::numeric_limits<double>::infinity();
    size_t m = e.numChildren;
    std::span<const uint32_t> cs(childStates_.data() + e.firstChild, m);
    for (uint32_t c : cs) {
        if (lists_[c].empty()) {
            return kComplete;
        }
    }
    std::vector<uint32_t>& idx = idx_;
    std::vector<Item>& frontier = frontier_; // a min-heap
    idx.assign(m, 0);
    frontier.clear();
    // Whether child i's j-th listed term holds the edge's e-node (a combination with it would
    // repeat the e-node on a path), asked once per listed term: 0 unknown, 1 no, 2 yes.
    std::vector<uint32_t>& cycleAt = cycleAt_;
    cycleAt.resize(m + 1);
    cycleAt[0] = 0;
    for (size_t i = 0; i < m; ++i) {
        cycleAt[i + 1] = cycleAt[i] + static_cast<uint32_t>(lists_[cs[i]].size());
    }
    cycles_.assign(cycleAt[m], 0);
    auto repeats = [&](size_t i, uint32_t j) {
        uint8_t& known = cycles_[cycleAt[i] + j];
        if (known == 0) {
            known = terms_.contains(lists_[cs[i]][j].term, e.node) ? 2 : 1;
        }
        return known == 2;
    };
    // The hash-consing key of a combination, computed (and its slot prefetched) when it joins
    // the frontier, so that the term store's cache miss overlaps the work until it is popped.
    auto keyOf = [&](std::span<const uint32_t> at) {
        uint64_t key = TermStore::keyStart(e.node, m);
        for (size_t i = 0; i < m; ++i) {
            key = TermStore::keyNext(key, lists_[cs[i]][at[i]].term);
        }
        terms_.prefetch(key);
        return key;
    };
    frontier.push_back({costOf(s, e, idx, scratch_), 0, 0, keyOf(idx)});
    // A popped term is hash-consed one step later, after its successors' costs, which gives
    // its slot's prefetch time to land; the pool sees the terms in the same order.
    std::vector<TermRef>& pending = pendingKids_;
    bool hasPending = false;
    double pendingCost = 0;
    uint64_t pendingKey = 0;
    auto flush = [&] {
        if (hasPending) {
            pool.add({pendingCost, terms_.make(e.node, pending, pendingKey)});
            hasPending = false;
        }
    };
    for (size_t pops = 0; !frontier.empty() && pops < 4 * pool.limit + 4; ++pops) {
        std::pop_heap(frontier.begin(), frontier.end(), std::greater<>());
        Item it = frontier.back();
        frontier.pop_back();
        flush();
        if (pool.full() && it.cost > pool.bound()) {
            return pool.bound();
        }
        bool cyclic = false;
        for (size_t i = 0; i < m && !cyclic; ++i) {
            cyclic = repeats(i, idx[it.offset + i]);
        }
        if (cyclic) {
            ++stats.cutCycles; // the e-node would repeat on a path: a pumped cycle
        } else {
            pending.resize(m);
            for (size_t i = 0; i < m; ++i) {
                pending[i] = lists_[cs[i]][idx[it.offset + i]].term;
            }
            hasPending = true;
            pendingCost = it.cost;
            pendingKey = it.key;
            terms_.prefetch(it.key);
        }
        for (size_t i = it.last; i < m; ++i) {
            if (idx[it.offset + i] + 1 >= lists_[cs[i]].size()) {
                continue;
            }
            auto offset = static_cast<uint32_t>(idx.size());
            for (size_t j = 0; j < m; ++j) {
                uint32_t v = idx[it.offset + j]; // by value: push_back may reallocate
                idx.push_back(v);
            }
            ++idx[offset + i];
            std::span<const uint32_t> next(idx.data() + offset, m);
            frontier.push_back(
                {costOf(s, e, next, scratch_), offset, static_cast<uint32_t>(i), keyOf(next)});
            std::push_heap(frontier.begin(), frontier.end(), std::greater<>());
        }
    }
    flush();
    return kComplete;
}

void Search::Pool::add(Entry e) {
    entries.push_back(e);
    if (!distinct.insert(search, e.term)) {
        return;
    }
    best.push_back(e.cost);
    std::push_heap(best.begin(), best.end());
    if (best.size() > limit) {
        std::pop_heap(best.begin(), best.end());
        best.pop_back();
    }
}

void Search::bestDistinct(std::vector<Entry>& all, size_t limit, std::vector<Entry>& best) const {
    // By cost, then each run of equal costs by structure, only as far as the list reaches: one
    // edge's pool comes in cost order already, and most runs are never read. The same order as
    // sorting by (cost, structure) at once: entries equal in both are the same term at one cost.
    auto byCost = [](const Entry& a, const Entry& b) { return a.cost < b.cost; };
    if (!std::is_sorted(all.begin(), all.end(), byCost)) {
        std::sort(all.begin(), all.end(), byCost);
    }
    best.clear();
    Distinct& taken = takenMarks_;
    taken.clear();
    for (auto run = all.begin(); run != all.end() && best.size() < limit;) {
        auto end =
            std::find_if(run, all.end(), [&](const Entry& e) { return e.cost != run->cost; });
        if (end - run > 1) {
            std::sort(run, end, [&](const Entry& a, const Entry& b) {
                return terms_.structurallyLess(a.term, b.term);
            });
        }
        for (; run != end && best.size() < limit; ++run) {
            if (taken.insert(*this, run->term)) {
                best.push_back(*run); // the cheapest way to build this term in this state
            }
        }
        run = end;
    }
}

namespace {

// Makes `list` equal to `best`; true when it changed (assigned in place: the lists change a
// million times and keep their capacity).
bool update(std::vector<Entry>& list, const std::vector<Entry>& best) {
    if (best == list) {
        return false;
    }
    list.assign(best.begin(), best.end());
    return true;
}

// With shapes, or after a state's list has changed kFreeChanges times, it changes only to a list
// that is better by cost (its costs compared in order, the first difference decides). Where a
// term's cost depends on its context, or a list keeps one or two terms per shape, two states of
// a cycle can otherwise trade terms of equal costs forever: mm at 4096^3 without macros spent
// 175 s in one stage's extraction that way (cut short at the update bound) against 12 s. Costs
// only fall, so the fixed point is reached. Below the bound every change is taken, so the
// lists do not depend on the order of the updates (the incremental search and the simple one
// agree) wherever a cycle settles by itself.
bool updateFalling(std::vector<Entry>& list, const std::vector<Entry>& best) {
    for (size_t i = 0; i < list.size() && i < best.size(); ++i) {
        if (best[i].cost != list[i].cost) {
            return best[i].cost < list[i].cost && update(list, best);
        }
    }
    return best.size() > list.size() && update(list, best);
}

} // namespace

bool Search::updateList(uint32_t s, const std::vector<Entry>& best) {
    constexpr uint16_t kFreeChanges = 64;
    if (shapes_ || listChanges_[s] >= kFreeChanges) {
        return updateFalling(lists_[s], best);
    }
    bool changed = update(lists_[s], best);
    listChanges_[s] += changed ? 1 : 0;
    return changed;
}

bool Search::recompute(uint32_t s, ExtractStats& stats) {
    Pool pool(s == 0 ? rootK_ : k_, statePool_, *this);
    const State st = states_[s];
    for (uint32_t i = 0; i < st.numEdges; ++i) {
        combine(s, edges_[st.firstEdge + i], pool, stats);
    }
    bestDistinct(pool.entries, pool.limit, best_);
    return updateList(s, best_);
}

// One edge's best terms on its own: the edge's part of any list of its state. A term of the
// state's `limit` best built by this edge is among the edge's `limit` best, since the edge's
// better terms are as good for the state; so merging the edges' lists gives what enumerating
// all edges under one shared bound gives (recompute), and an edge whose children did not
// change keeps its list.
void Search::edgeBest(uint32_t s, uint32_t e, size_t limit, ExtractStats& stats,
                      std::vector<Entry>& out) {
    Pool pool(limit, edgePool_, *this);
    combine(s, edges_[e], pool, stats);
    bestDistinct(pool.entries, limit, out);
}

bool Search::recomputeDirty(uint32_t s, ExtractStats& stats) {
    size_t limit = s == 0 ? rootK_ : k_;
    const State st = states_[s];
    uint32_t first = st.firstEdge, end = st.firstEdge + st.numEdges;
    std::vector<Entry>& best = best_;
    if (st.numEdges == 1) { // the edge's list is the state's: nothing to keep
        if (!edgeDirty_[first]) {
            return false;
        }
        edgeDirty_[first] = false;
        edgeBest(s, first, limit, stats, best);
        return updateList(s, best);
    }
    if (std::none_of(edgeDirty_.begin() + first, edgeDirty_.begin() + end,
                     [](bool d) { return d; })) {
        return false;
    }
    // The kept lists first, so that the changed edges' enumeration starts with a bound.
    Pool pool(limit, statePool_, *this);
    for (uint32_t e = first; e < end; ++e) {
        if (!edgeDirty_[e]) {
            for (const Entry& en : edgeLists_[e]) {
                pool.add(en);
            }
        }
    }
    for (uint32_t e = first; e < end; ++e) {
        if (edgeDirty_[e]) {
            edgeDirty_[e] = false;
            size_t from = pool.entries.size();
            edgeBounds_[e] = combine(s, edges_[e], pool, stats);
            own_.assign(pool.entries.begin() + from, pool.entries.end());
            bestDistinct(own_, limit, best);
            edgeLists_[e].assign(best.begin(), best.end());
        }
    }
    merged(s, limit, best);
    // An edge list cut at a bound below the state's new limit-th cost may miss terms the
    // state now needs (a kept list can be one cut when the state had better terms): such
    // an edge is enumerated again on its own bound.
    double worst =
        best.size() == limit ? best.back().cost : std::numeric_limits<double>::infinity();
    bool again = false;
    for (uint32_t e = first; e < end; ++e) {
        if (edgeBounds_[e] < worst) {
            edgeBest(s, e, limit, stats, edgeLists_[e]);
            edgeBounds_[e] = std::numeric_limits<double>::infinity();
            again = true;
        }
    }
    if (again) {
        merged(s, limit, best);
    }
    return updateList(s, best);
}

void Search::merged(uint32_t s, size_t limit, std::vector<Entry>& out) const {
    const State& st = states_[s];
    std::vector<Entry>& all = mergeScratch_;
    all.clear();
    for (uint32_t e = st.firstEdge; e < st.firstEdge + st.numEdges; ++e) {
        all.insert(all.end(), edgeLists_[e].begin(), edgeLists_[e].end());
    }
    bestDistinct(all, limit, out);
}

// The strongly connected components of the states (a state points to its edges' children),
// children's components first (Tarjan's algorithm, iterative: the graph is deep).
std::vector<std::vector<uint32_t>> Search::components() const {
    constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
    size_t n = states_.size();
    std::vector<uint32_t> index(n, kUnseen), low(n, 0), stack;
    std::vector<bool> onStack(n, false);
    std::vector<std::vector<uint32_t>> out;
    struct Frame {
        uint32_t state, next; // the next child position among its edges' children
    };
    uint32_t counter = 0;
    auto childrenOf = [&](uint32_t s) {
        const State& st = states_[s];
        uint32_t from = st.numEdges ? edges_[st.firstEdge].firstChild : 0;
        uint32_t to = st.numEdges ? edges_[st.firstEdge + st.numEdges - 1].firstChild +
                                        edges_[st.firstEdge + st.numEdges - 1].numChildren
                                  : 0;
        return std::span<const uint32_t>(childStates_.data() + from, to - from);
    };
    for (uint32_t r = 0; r < n; ++r) {
        if (index[r] != kUnseen) {
            continue;
        }
        std::vector<Frame> frames{{r, 0}};
        index[r] = low[r] = counter++;
        stack.push_back(r);
        onStack[r] = true;
        while (!frames.empty()) {
            Frame& f = frames.back();
            auto kids = childrenOf(f.state);
            if (f.next < kids.size()) {
                uint32_t c = kids[f.next++];
                if (index[c] == kUnseen) {
                    index[c] = low[c] = counter++;
                    stack.push_back(c);
                    onStack[c] = true;
                    frames.push_back({c, 0});
                } else if (onStack[c]) {
                    low[f.state] = std::min(low[f.state], index[c]);
                }
                continue;
            }
            uint32_t s = f.state;
            frames.pop_back();
            if (!frames.empty()) {
                low[frames.back().state] = std::min(low[frames.back().state], low[s]);
            }
            if (low[s] == index[s]) {
                std::vector<uint32_t> comp;
                uint32_t t = 0;
                do {
                    t = stack.back();
                    stack.pop_back();
                    onStack[t] = false;
                    comp.push_back(t);
                } while (t != s);
                std::sort(comp.begin(), comp.end(), std::greater<>()); // leaves first
                out.push_back(std::move(comp));
            }
        }
    }
    return out;
}

std::vector<Entry> Search::run(EClassId root, ExtractStats& stats, size_t maxUpdates,
                               const std::function<bool()>& stop) {
    discover(root);
    if (perStateFor_) {
        k_ = std::clamp<size_t>(perStateFor_(states_.size()), 1, k_);
    }
    size_t limit = maxUpdates ? maxUpdates : 64 * states_.size() + 1000;
    if (incremental_) {
        runByComponents(stats, limit, stop);
    } else {
        runWorklist(stats, limit, stop);
    }
    stats.states = states_.size();
    stats.edges = edges_.size();
    stats.terms = terms_.size();
    return lists_.at(0);
}

void Search::runWorklist(ExtractStats& stats, size_t limit, const std::function<bool()>& stop) {
    constexpr size_t kStopPoll = 256; // updates between polls of the stop (a clock read)
    std::deque<uint32_t> work;
    std::vector<bool> queued(states_.size(), true);
    for (size_t s = states_.size(); s-- > 0;) { // leaves were discovered last
        work.push_back(static_cast<uint32_t>(s));
    }
    while (!work.empty()) {
        if (stats.updates >= limit ||
            (stop && stats.updates % kStopPoll == 0 && !lists_.at(0).empty() && stop())) {
            stats.truncated = true;
            break;
        }
        uint32_t s = work.front();
        work.pop_front();
        queued[s] = false;
        ++stats.updates;
        if (recompute(s, stats)) {
            for (uint32_t e : childEdges_[s]) { // owners in order: edges follow their states
                if (uint32_t p = edgeOwner_[e]; !queued[p]) {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
}

// Components in order, children's first: a state outside a cycle is computed once, from its
// children's final lists; a cyclic component is iterated to its fixed point with a worklist.
// Once the stop is requested (or the update bound reached), the remaining states are computed
// once each, so that the root has terms (ExtractStats::truncated).
void Search::runByComponents(ExtractStats& stats, size_t limit, const std::function<bool()>& stop) {
    constexpr size_t kStopPoll = 256;
    std::vector<uint32_t> component(states_.size(), 0);
    std::vector<std::vector<uint32_t>> comps = components();
    for (uint32_t c = 0; c < comps.size(); ++c) {
        for (uint32_t s : comps[c]) {
            component[s] = c;
        }
    }
    std::vector<bool> queued(states_.size(), false);
    std::deque<uint32_t> work;
    for (uint32_t c = 0; c < comps.size(); ++c) {
        for (uint32_t s : comps[c]) {
            queued[s] = true;
            work.push_back(s);
        }
        while (!work.empty()) {
            if (!stats.truncated &&
                (stats.updates >= limit || (stop && stats.updates % kStopPoll == 0 && stop()))) {
                stats.truncated = true;
            }
            uint32_t s = work.front();
            work.pop_front();
            queued[s] = false;
            ++stats.updates;
            if (!recomputeDirty(s, stats)) {
                continue;
            }
            for (uint32_t e : childEdges_[s]) {
                edgeDirty_[e] = true;
                uint32_t p = edgeOwner_[e];
                if (!stats.truncated && component[p] == c && !queued[p]) {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
}

} // namespace egopt::extract::detail
