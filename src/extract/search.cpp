// The K-best search: states (e-class, context, argument types) reachable from the root, and
// their K best terms computed bottom-up with a worklist until nothing changes (docs/extraction.md).
#include "search.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <set>
#include <unordered_set>

namespace egopt::extract::detail {

using egraph::EClassId;
using egraph::ENode;
using lift::Op;
using lift::TypeId;

uint32_t Search::stateFor(EClassId c, Context ctx, std::vector<TypeId> types) {
    auto [tit, tnew] = typesIndex_.emplace(types, static_cast<uint32_t>(types_.size()));
    if (tnew) {
        types_.push_back(std::move(types));
    }
    StateKey key{c, ctx.key(), tit->second};
    auto [it, fresh] = stateIndex_.emplace(key, static_cast<uint32_t>(states_.size()));
    if (fresh) {
        states_.push_back({c, ctx, tit->second});
        parents_.emplace_back();
        lists_.emplace_back();
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
    for (egraph::ENodeId id : g_.eclass(st.eclass).nodes) {
        const ENode& n = g_.node(id);
        for (const ChildContexts& alt : childContexts(n, st.ctx, multi_)) {
            std::vector<uint32_t> cs;
            for (size_t i = 0; i < n.children.size(); ++i) {
                cs.push_back(stateFor(g_.findConst(n.children[i]), alt[i], childTypes(st, n, i)));
            }
            edges_.push_back(
                {id, static_cast<uint32_t>(childStates_.size()), static_cast<uint32_t>(cs.size())});
            childStates_.insert(childStates_.end(), cs.begin(), cs.end());
            for (uint32_t c : cs) {
                parents_[c].push_back(s);
            }
        }
    }
    states_[s].firstEdge = first;
    states_[s].numEdges = static_cast<uint32_t>(edges_.size()) - first;
}

void Search::discover(EClassId root) {
    stateFor(g_.findConst(root), Context::host(), {});
    for (uint32_t s = 0; s < states_.size(); ++s) { // breadth first; states_ grows
        expand(s);
    }
    for (auto& ps : parents_) {
        std::sort(ps.begin(), ps.end());
        ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
    }
}

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
// costs more than `bound` (the limit-th best of the state so far).
void Search::combine(uint32_t s, const Edge& e, Pool& pool, ExtractStats& stats) {
    size_t m = e.numChildren;
    std::span<const uint32_t> cs(childStates_.data() + e.firstChild, m);
    for (uint32_t c : cs) {
        if (lists_[c].empty()) {
            return;
        }
    }
    struct Item {
        double cost;
        uint32_t offset; // of the index vector in `idx`
        uint32_t last;   // indices before it stay fixed in successors
        bool operator>(const Item& o) const {
            return cost != o.cost ? cost > o.cost : offset > o.offset;
        }
    };
    std::vector<uint32_t> idx(m, 0);
    std::priority_queue<Item, std::vector<Item>, std::greater<>> frontier;
    frontier.push({costOf(s, e, idx, scratch_), 0, 0});
    std::vector<TermRef> kids(m);
    for (size_t pops = 0; !frontier.empty() && pops < 4 * pool.limit + 4; ++pops) {
        Item it = frontier.top();
        frontier.pop();
        if (pool.full() && it.cost > pool.bound()) {
            break;
        }
        std::span<const uint32_t> v(idx.data() + it.offset, m);
        for (size_t i = 0; i < m; ++i) {
            kids[i] = lists_[cs[i]][v[i]].term;
        }
        if (m > 0 && terms_.contains(kids, e.node)) {
            ++stats.cutCycles; // the e-node would repeat on a path: a pumped cycle
        } else {
            pool.add({it.cost, terms_.make(e.node, kids)});
        }
        for (size_t i = it.last; i < m; ++i) {
            if (idx[it.offset + i] + 1 >= lists_[cs[i]].size()) {
                continue;
            }
            auto offset = static_cast<uint32_t>(idx.size());
            idx.insert(idx.end(), idx.begin() + it.offset, idx.begin() + it.offset + m);
            ++idx[offset + i];
            std::span<const uint32_t> next(idx.data() + offset, m);
            frontier.push({costOf(s, e, next, scratch_), offset, static_cast<uint32_t>(i)});
        }
    }
}

void Search::Pool::add(Entry e) {
    entries.push_back(e);
    if (!distinct.insert(e.term).second) {
        return;
    }
    best.push(e.cost);
    if (best.size() > limit) {
        best.pop();
    }
}

bool Search::recompute(uint32_t s, ExtractStats& stats) {
    Pool pool;
    pool.limit = s == 0 ? rootK_ : k_;
    const State st = states_[s];
    for (uint32_t i = 0; i < st.numEdges; ++i) {
        combine(s, edges_[st.firstEdge + i], pool, stats);
    }
    std::vector<Entry>& all = pool.entries;
    std::sort(all.begin(), all.end(), [&](const Entry& a, const Entry& b) {
        if (a.cost != b.cost) {
            return a.cost < b.cost;
        }
        return terms_.structurallyLess(a.term, b.term);
    });
    std::vector<Entry> best;
    std::unordered_set<TermRef> taken;
    for (const Entry& en : all) {
        if (best.size() == pool.limit) {
            break;
        }
        if (taken.insert(en.term).second) {
            best.push_back(en); // the cheapest way to build this term in this state
        }
    }
    if (best == lists_[s]) {
        return false;
    }
    lists_[s] = std::move(best);
    return true;
}

std::vector<Entry> Search::run(EClassId root, ExtractStats& stats, size_t maxUpdates,
                               const std::function<bool()>& stop) {
    constexpr size_t kStopPoll = 256; // updates between polls of the stop (a clock read)
    discover(root);
    if (perStateFor_) {
        k_ = std::clamp<size_t>(perStateFor_(states_.size()), 1, k_);
    }
    size_t limit = maxUpdates ? maxUpdates : 64 * states_.size() + 1000;
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
            for (uint32_t p : parents_[s]) {
                if (!queued[p]) {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    stats.states = states_.size();
    stats.edges = edges_.size();
    stats.terms = terms_.size();
    return lists_.at(0);
}

} // namespace egopt::extract::detail
