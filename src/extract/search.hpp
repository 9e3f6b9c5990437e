// Internal to extraction: the K-best search over (e-class, context, argument types) states.
#pragma once

#include "egopt/extract/extract.hpp"
#include "terms.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace egopt::extract::detail {

struct Entry {
    double cost = 0;
    TermRef term = 0;
    // Guided draws: the guide replayed (its index in ExploreOptions::guides), and how many of
    // the term's e-nodes are the guide's (how much of the macro's right-hand side it replays).
    // Not part of the term's identity; 16 bits each keep Entry small.
    uint16_t guide = 0;
    uint16_t guideHits = 0;
    // Guided draws: the thread maps on the way down to the replay (around the guide).
    uint8_t threadMaps = 0;
    friend bool operator==(const Entry& a, const Entry& b) {
        return a.cost == b.cost && a.term == b.term;
    }
};

class Search {
public:
    Search(const egraph::EGraph& g, const CostFunction& cost, const SearchOptions& opt)
        : g_(g), cost_(cost), k_(std::max<size_t>(opt.perState ? opt.perState : opt.count, 1)),
          rootK_(std::max<size_t>(opt.count, 1)), sizes_(opt.sizes), multi_(opt.multipleKernels),
          incremental_(opt.incremental), shapes_(opt.distinctShapes), perStateFor_(opt.perStateFor),
          terms_(g) {}

    // The K best terms of `root` at the top level of a program, cheapest first.
    std::vector<Entry> run(egraph::EClassId root, ExtractStats& stats, size_t maxUpdates,
                           const std::function<bool()>& stop = {});
    // After run(): random terms of the root that leave the K-best lists at random states
    // (explore.cpp), distinct, in the order drawn.
    // `guided`: how many of them (the first ones) guided draws gave.
    std::vector<Entry> explore(const ExploreOptions& opt, size_t& guided);
    // After run(): the terms of the root that differ from `t` (a term of the root) in one
    // choice, anywhere in it: one e-node swapped for another of its class over the same child
    // classes (MapSeq(f) for MapGlb(0, f), Split(32) for Split(v__2), ...), the rest of `t`
    // kept wherever it is valid in the contexts the swap implies (refine.cpp). Distinct, the
    // swaps nearest the root first.
    std::vector<Entry> neighbours(TermRef t);
    const TermStore& terms() const { return terms_; }

private:
    struct State {
        egraph::EClassId eclass;
        Context ctx;
        uint32_t types; // index into types_ (0: none)
        uint32_t firstEdge = 0, numEdges = 0;
    };
    struct Edge {
        egraph::ENodeId node;
        uint32_t firstChild, numChildren;
    };
    struct TypesHash {
        size_t operator()(const std::vector<lift::TypeId>& v) const noexcept {
            uint64_t h = v.size();
            for (lift::TypeId t : v) {
                h = (h ^ t) * 0x9e3779b97f4a7c15ull;
            }
            return h ^ (h >> 29);
        }
    };
    // The edges each state is a child of, in edge order (compressed rows: the edges of state s
    // are items[start[s] .. start[s + 1])).
    struct ChildEdges {
        std::vector<uint32_t> start, items;
        std::span<const uint32_t> operator[](uint32_t s) const {
            return {items.data() + start[s], start[s + 1] - start[s]};
        }
    };

    // A set of terms cleared in O(1) (a stamp per term): the recomputations' distinct checks,
    // which ran millions of times and allocated a hash set each.
    struct Marks {
        std::vector<uint32_t> at;
        uint32_t stamp = 0;
        void clear() { ++stamp; }
        bool insert(TermRef t) {
            if (t >= at.size()) {
                at.resize(t + 1 + t / 2, 0);
            }
            if (at[t] == stamp) {
                return false;
            }
            at[t] = stamp;
            return true;
        }
    };
    // Marks that count, up to a cap per key (the terms kept per shape).
    struct Counts {
        Marks marks;
        std::vector<uint8_t> count;
        void clear() { marks.clear(); }
        bool insert(uint32_t key, uint8_t cap) {
            if (marks.insert(key)) {
                count.resize(marks.at.size(), 0);
                count[key] = 1;
                return true;
            }
            if (count[key] >= cap) {
                return false;
            }
            ++count[key];
            return true;
        }
    };
    // What makes a list's entries distinct: each term once, and with shapes at most
    // kTermsPerShape terms of one shape.
    struct Distinct {
        Marks terms;
        Counts shapes;
        void clear() {
            terms.clear();
            shapes.clear();
        }
        bool insert(const Search& search, TermRef t) {
            if (!search.shapes_) {
                return terms.insert(t);
            }
            return terms.insert(t) && shapes.insert(search.terms_.shape(t), kTermsPerShape);
        }
    };
    // Two, so that a shape keeps a second way of reading its data (strided and contiguous
    // chunks, say) for contexts where the cost function ranks it first.
    static constexpr uint8_t kTermsPerShape = 2;

    // A pool's storage, reused from one recomputation to the next.
    struct PoolBuffers {
        std::vector<Entry> entries;
        std::vector<double> best;
        Distinct distinct;
    };
    // The terms one state's recomputation produces, and the cost of the limit-th best distinct
    // one so far (a bound for the enumeration of the remaining edges).
    struct Pool {
        Pool(size_t limit, PoolBuffers& b, const Search& search)
            : limit(limit), entries(b.entries), distinct(b.distinct), best(b.best), search(search) {
            entries.clear();
            distinct.clear();
            best.clear();
        }
        size_t limit = 0;
        std::vector<Entry>& entries;
        Distinct& distinct;
        std::vector<double>& best; // max-heap of the `limit` smallest costs of distinct terms
        const Search& search;
        void add(Entry e);
        bool full() const { return best.size() == limit; }
        double bound() const { return best.front(); }
    };
    // combine's frontier: an index vector (at `offset` in the shared index store) and its cost.
    struct Item {
        double cost;
        uint32_t offset; // of the index vector in the index store
        uint32_t last;   // indices before it stay fixed in successors
        uint64_t key;    // its term's hash-consing key (TermStore::key)
        bool operator>(const Item& o) const {
            return cost != o.cost ? cost > o.cost : offset > o.offset;
        }
    };

    uint32_t stateFor(egraph::EClassId c, Context ctx, std::vector<lift::TypeId> types);
    uint32_t typesFor(std::vector<lift::TypeId> types);
    void growStateIndex();
    // childContexts(n, ctx), memoised: it depends only on the node's operator, integer and
    // number of children and on the context, and discovery asks for it millions of times.
    // Nodes with too many children for the memo's key are computed into `uncached`.
    const std::vector<ChildContexts>& contextsOf(const egraph::ENode& n, Context ctx,
                                                 std::vector<ChildContexts>& uncached);
    void expand(uint32_t s);
    // childEdges_ and edgeOwner_ from the edges (`dedupe`: an edge once per child state).
    void indexChildEdges(bool dedupe);
    std::vector<std::vector<uint32_t>> components() const;
    void runWorklist(ExtractStats& stats, size_t limit, const std::function<bool()>& stop);
    void runByComponents(ExtractStats& stats, size_t limit, const std::function<bool()>& stop);
    void discover(egraph::EClassId root);
    // contextReads_: per class, the device context's fields its terms read (the union of
    // deviceContextReads and the cost's over its members and, transitively, their children).
    void computeContextReads();
    std::vector<lift::TypeId> childTypes(const State& s, const egraph::ENode& n, size_t i) const;
    double combine(uint32_t s, const Edge& e, Pool& pool, ExtractStats& stats);
    double costOf(uint32_t s, const Edge& e, std::span<const uint32_t> idx,
                  std::vector<ChildChoice>& scratch) const;
    // The `limit` best distinct terms of `all` into `best`, cheapest first (ties by structure);
    // each term at the cheapest cost it has in `all`.
    void bestDistinct(std::vector<Entry>& all, size_t limit, std::vector<Entry>& best) const;
    // A state's new list; true when it changed. `recompute` enumerates every edge of the state
    // under one shared bound (the reference); `recomputeDirty` only the edges whose children
    // changed since their last enumeration (the others' lists are memoised in edgeLists_), and
    // merges the edges' lists.
    bool recompute(uint32_t s, ExtractStats& stats);
    bool updateList(uint32_t s, const std::vector<Entry>& best); // lists_[s] = best, if so

    bool recomputeDirty(uint32_t s, ExtractStats& stats);
    // One edge's best terms on its own bound (complete for its state), and the merge of a
    // state's edge lists.
    void edgeBest(uint32_t s, uint32_t e, size_t limit, ExtractStats& stats,
                  std::vector<Entry>& out);
    void merged(uint32_t s, size_t limit, std::vector<Entry>& out) const;
    // A term of state `s` built by edge `e` from the children's entries (cost included).
    Entry build(uint32_t s, const Edge& e, std::span<const Entry> kids);
    struct Draw; // explore.cpp
    std::optional<Entry> draw(uint32_t s, size_t depth, Draw& d);
    // Guided draws (explore.cpp): the states from which a guide's e-nodes can be reached.
    void indexEdges();
    static constexpr uint32_t kFar = UINT32_MAX;
    std::vector<uint32_t> distancesTo(const std::unordered_set<egraph::ENodeId>& guide,
                                      std::optional<egraph::EClassId> root) const;
    std::vector<bool> edgeViable_; // per edge (indexEdges)
    // Per edge its state, per state the edges it is a child of (built by discover; the
    // worklist queues the owners of a changed state's edges; indexEdges rebuilds them listing
    // an edge once per child position).
    std::vector<uint32_t> edgeOwner_;
    ChildEdges childEdges_;
    struct Guide {
        std::unordered_set<egraph::ENodeId> nodes;
        std::unordered_set<egraph::EClassId> classes; // the classes that hold them
        std::vector<bool> leads;                      // per state: dist below kFar
        std::vector<uint32_t> dist;                   // per state (distancesTo)
        // ExploreOptions::towardsRoot: the ways down go to the root's class, nearer at each step.
        bool towardsRoot = false;
        // Whether child state `c` of state `s` is on a way down to the guide (nearer it; without
        // towardsRoot, any child that leads to it).
        bool descends(uint32_t s, uint32_t c) const {
            return towardsRoot ? dist[c] < dist[s] : dist[c] != kFar;
        }
        // (guide e-node << 32 | child slot) -> the guide e-node recorded as that child: the one
        // of the child's class recorded last before the parent (expectedChildren).
        std::unordered_map<uint64_t, egraph::ENodeId> expected;
        // Per state, with ExploreOptions::threadMapsAbove: the most maps over work-items (MapGlb,
        // MapLcl) a way down from it to the guide passes (countThreadMaps); empty otherwise.
        std::vector<uint8_t> threadMaps;
    };
    static constexpr egraph::ENodeId kNoExpected = UINT32_MAX;
    Guide makeGuide(const std::vector<egraph::ENodeId>& recorded, bool towardsRoot) const;
    static constexpr uint8_t kThreadMapsAbove = ExploreOptions::kThreadMapsCounted;
    uint8_t threadMapsBelow(uint32_t edge, const Guide& guide) const;
    void countThreadMaps(Guide& guide) const;
    // Memo of one draw: (state << 32 | expected e-node) -> its replay.
    using GuideMemo = std::unordered_map<uint64_t, std::optional<Entry>>;
    std::optional<Entry> guidedDraw(uint32_t s, egraph::ENodeId expected, size_t depth, bool inside,
                                    Draw& d, const Guide& guide, GuideMemo& done);
    Entry keepListed(uint32_t s, Draw& d);
    std::vector<uint32_t> viableEdges(uint32_t s) const;
    struct Refine; // refine.cpp
    std::optional<double> costIn(TermRef t, uint32_t s, Refine& r);
    const std::vector<std::pair<Entry, uint32_t>>& neighboursIn(TermRef t, uint32_t s, Refine& r);

    const egraph::EGraph& g_;
    const CostFunction& cost_;
    size_t k_;     // terms per state
    size_t rootK_; // terms of the root state
    const arith::Bindings& sizes_;
    bool multi_;
    bool incremental_;
    bool shapes_; // SearchOptions::distinctShapes
    std::function<size_t(size_t)> perStateFor_;
    TermStore terms_;
    std::vector<ChildChoice> scratch_;
    // Scratch reused by every recomputation (one at a time): combine's index vectors, frontier
    // and children, the pools' and bestDistinct's distinct sets.
    std::vector<uint32_t> idx_;
    std::vector<Item> frontier_;
    std::vector<TermRef> pendingKids_;
    // combine's cycle checks per listed child term (offsets per child, then 0/1/2 flags).
    std::vector<uint32_t> cycleAt_;
    std::vector<uint8_t> cycles_;
    // A state's pool and an edge's own pool (edgeBest runs while the state's is alive), a
    // state's new list, an edge's part of the pool, and merged's input.
    PoolBuffers statePool_, edgePool_;
    std::vector<Entry> best_, own_;
    mutable std::vector<Entry> mergeScratch_;
    mutable Distinct takenMarks_;
    std::vector<State> states_;
    std::vector<Edge> edges_;
    std::vector<uint32_t> childStates_;
    std::vector<std::vector<Entry>> lists_;
    std::vector<uint16_t> listChanges_; // per state: how often its list changed (updateList)
    // Incremental search: per edge, its own best terms (states with several edges only) and
    // whether a child's list changed since they were enumerated.
    // edgeBounds_: the bound an edge's enumeration was cut at (its list holds every term of the
    // edge up to it; infinity: complete).
    std::vector<std::vector<Entry>> edgeLists_;
    std::vector<double> edgeBounds_;
    std::vector<bool> edgeDirty_;
    // The states by (class, context, types): open addressing (linear probing), a slot holding a
    // state id in its low half and the high half of its hash (most probes then touch no state),
    // kEmptySlot where free; discovery's hottest lookup.
    static constexpr uint64_t kEmptySlot = ~uint64_t(0);
    std::vector<uint64_t> stateSlots_ = std::vector<uint64_t>(1024, kEmptySlot);
    std::vector<std::vector<lift::TypeId>> types_{{}};
    std::unordered_map<std::vector<lift::TypeId>, uint32_t, TypesHash> typesIndex_{{{}, 0}};
    std::unordered_map<uint64_t, std::vector<ChildContexts>> contexts_;
    std::vector<uint32_t> childScratch_; // expand's child states of one alternative
    std::vector<uint8_t> contextReads_;  // by canonical class id
};

} // namespace egopt::extract::detail
