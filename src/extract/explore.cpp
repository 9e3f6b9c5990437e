// Exploration (docs/extraction.md): random terms of the root drawn from the search's states and
// K-best lists, for rankings that the per-e-node cost cannot make (the pipeline's cost model
// reads the generated kernel's accesses).
#include "egopt/lift/patterns.hpp"
#include "search.hpp"

#include <algorithm>
#include <deque>
#include <random>

namespace egopt::extract::detail {

struct Search::Draw {
    const ExploreOptions& opt;
    std::mt19937_64 rng;
    // Guided draws with ExploreOptions::varyListed, after a guide's first: the generator that
    // picks the listed terms off the way (nullptr: the best listed term).
    std::mt19937_64* vary = nullptr;

    // A listed term of `list` (non-empty) for a guided draw off its way.
    const Entry& listed(const std::vector<Entry>& list) {
        return vary ? list[static_cast<size_t>((*vary)() % list.size())] : list.front();
    }

    // Uniform in [0, n) without std::uniform_int_distribution, whose output differs between
    // standard libraries (draws must be the same everywhere for a seed).
    size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }
    bool chance(double p) { return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p; }
};

namespace {

// A map over work-items, one dimension of a kernel's work-items each: MapGlb, MapLcl. A MapWrg
// spreads work-groups and leaves their work-items to the MapLcl inside it, so the ways down
// `MapWrg(1)/MapWrg(0)/MapLcl(1)/MapLcl(0)` and `MapGlb(0)/MapGlb(1)` count alike (2): which of
// two equally parallel replays is faster is then the model's (it reads which dimension-0
// neighbours' accesses coalesce), not the number of maps.
bool overWorkItems(egopt::lift::Op op) {
    egopt::lift::Loop l = egopt::lift::loopOf(op);
    return l == egopt::lift::Loop::Global || l == egopt::lift::Loop::Local;
}

} // namespace

Entry Search::build(uint32_t s, const Edge& e, std::span<const Entry> kids) {
    std::vector<ChildChoice> choices;
    std::vector<TermRef> kidTerms;
    for (uint32_t c = 0; c < e.numChildren; ++c) {
        uint32_t cs = childStates_[e.firstChild + c];
        choices.push_back(
            {states_[cs].eclass, states_[cs].ctx, terms_.node(kids[c].term), kids[c].cost});
        kidTerms.push_back(kids[c].term);
    }
    const State& st = states_[s];
    CostInput in{g_, st.eclass, g_.node(e.node), st.ctx, types_[st.types], choices, sizes_};
    return Entry{cost_.cost(in), terms_.make(e.node, kidTerms)};
}

// One of the state's listed terms (the K best), uniformly.
Entry Search::keepListed(uint32_t s, Draw& d) {
    const std::vector<Entry>& list = lists_[s];
    return list[d.below(list.size())];
}

// The edges of state `s` whose children all have terms.
std::vector<uint32_t> Search::viableEdges(uint32_t s) const {
    const State& st = states_[s];
    std::vector<uint32_t> out;
    for (uint32_t i = st.firstEdge; i < st.firstEdge + st.numEdges; ++i) {
        const Edge& e = edges_[i];
        bool ok = true;
        for (uint32_t c = 0; c < e.numChildren && ok; ++c) {
            ok = !lists_[childStates_[e.firstChild + c]].empty();
        }
        if (ok) {
            out.push_back(i);
        }
    }
    return out;
}

// A random term of state `s`: an edge uniformly among the viable ones, each child listed or
// drawn. nullopt when the state has no term at all. A drawn e-node that already occurs below
// (a cycle) is retried a few times, then the state's best listed term is taken.
std::optional<Entry> Search::draw(uint32_t s, size_t depth, Draw& d) {
    if (lists_[s].empty()) {
        return std::nullopt;
    }
    if (depth >= d.opt.maxDepth) {
        return keepListed(s, d);
    }
    std::vector<uint32_t> viable = viableEdges(s);
    std::vector<Entry> kids;
    std::vector<TermRef> kidTerms;
    for (int attempt = 0; attempt < 4 && !viable.empty(); ++attempt) {
        const Edge& e = edges_[viable[d.below(viable.size())]];
        kids.clear();
        kidTerms.clear();
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            uint32_t cs = childStates_[e.firstChild + c];
            std::optional<Entry> kid;
            if (!d.chance(d.opt.keep)) {
                kid = draw(cs, depth + 1, d);
            }
            kids.push_back(kid ? *kid : keepListed(cs, d));
            kidTerms.push_back(kids.back().term);
        }
        if (!kidTerms.empty() && terms_.contains(kidTerms, e.node)) {
            continue;
        }
        return build(s, e, kids);
    }
    return lists_[s].front();
}

// For guided draws: which edges are viable, their states, and the edges each state is a child
// of (built once per exploration, shared by every guide).
void Search::indexEdges() {
    edgeViable_.assign(edges_.size(), false);
    for (uint32_t s = 0; s < states_.size(); ++s) {
        for (uint32_t i : viableEdges(s)) {
            edgeViable_[i] = true;
        }
    }
    indexChildEdges(false);
}

// A state leads to a guide when one of its viable edges is a guide's e-node (with `root`, when
// its class is the root's and it has a term) or has a child state that leads to one: from those
// states up through the edges' owners, breadth first. Each state's distance to the guide (edges
// on the shortest way down; kFar where it leads nowhere).
std::vector<uint32_t> Search::distancesTo(const std::unordered_set<egraph::ENodeId>& guide,
                                          std::optional<egraph::EClassId> root) const {
    std::vector<uint32_t> dist(states_.size(), kFar);
    std::deque<uint32_t> work;
    auto seed = [&](uint32_t s) {
        if (dist[s] == kFar) {
            dist[s] = 0;
            work.push_back(s);
        }
    };
    for (uint32_t s = 0; s < states_.size() && root; ++s) {
        if (states_[s].eclass == *root && !lists_[s].empty()) {
            seed(s);
        }
    }
    for (uint32_t i = 0; i < edges_.size() && !root; ++i) {
        if (edgeViable_[i] && guide.contains(edges_[i].node)) {
            seed(edgeOwner_[i]);
        }
    }
    while (!work.empty()) {
        uint32_t s = work.front();
        work.pop_front();
        for (uint32_t i : childEdges_[s]) {
            uint32_t p = edgeOwner_[i];
            if (edgeViable_[i] && dist[p] == kFar) {
                dist[p] = dist[s] + 1;
                work.push_back(p);
            }
        }
    }
    return dist;
}

// The guide from a macro application's e-nodes in the order the runner recorded them (each
// after its children): for each child slot of each guide e-node, the guide e-node recorded last
// before it in that child's class. A class may hold two of the right-hand side's e-nodes (mm's
// local tiles: B's tile copy `MapLcl(0, copy)` and the result's `MapSeq(copy4)` are equal maps),
// and only the place in the right-hand side says which one a parent had.
Search::Guide Search::makeGuide(const std::vector<egraph::ENodeId>& recorded,
                                bool towardsRoot) const {
    Guide guide{{recorded.begin(), recorded.end()}, {}, {}, {}, towardsRoot, {}, {}};
    // The way down goes to the class of the guide's root (recorded last, after its children):
    // an inner e-node may be shared by other parents (a shared reduction's step function, applied
    // to many arrays), and a way down to one of those replays that e-node but not the guide.
    // Where the root's class has no term in any context, to any of the guide's e-nodes.
    // The way down takes only children nearer the guide (Guide::descends): the e-graph's cycles
    // (a class reached again through views, `Join $ (Split(n) $ x)`) would otherwise end a way
    // down that the thread map counts promised in a state already on its path.
    // Only with ExploreOptions::towardsRoot; otherwise to any guide e-node, through any child
    // that leads to one.
    if (towardsRoot && !recorded.empty()) {
        guide.dist = distancesTo(guide.nodes, g_.findConst(recorded.back()));
    }
    if (guide.dist.empty() || guide.dist[0] == kFar) {
        guide.dist = distancesTo(guide.nodes, std::nullopt);
    }
    guide.leads.resize(guide.dist.size());
    for (size_t s = 0; s < guide.dist.size(); ++s) {
        guide.leads[s] = guide.dist[s] != kFar;
    }
    std::vector<egraph::EClassId> classOf;
    for (egraph::ENodeId n : recorded) {
        classOf.push_back(g_.findConst(n)); // node ids are class ids until merged
        guide.classes.insert(classOf.back());
    }
    for (size_t p = 0; p < recorded.size(); ++p) {
        const egraph::ChildList& kids = g_.node(recorded[p]).children;
        for (uint32_t slot = 0; slot < kids.size(); ++slot) {
            egraph::EClassId c = g_.findConst(kids[slot]);
            uint64_t key = uint64_t(recorded[p]) << 32 | slot;
            for (size_t q = p; q-- > 0;) {
                if (classOf[q] == c) {
                    guide.expected.emplace(key, recorded[q]);
                    break;
                }
            }
        }
    }
    return guide;
}

// With ExploreOptions::threadMapsAbove: how many maps over work-items (overWorkItems) a way down
// from an edge to the guide passes, each with the guide in its body (a map counts when its
// function leads to the guide), at most kThreadMapsAbove: the edge's own map and its children's
// most.
uint8_t Search::threadMapsBelow(uint32_t edge, const Guide& guide) const {
    const Edge& e = edges_[edge];
    uint8_t most = 0;
    bool follows = false;
    for (uint32_t c = 0; c < e.numChildren; ++c) {
        uint32_t cs = childStates_[e.firstChild + c];
        if (guide.descends(edgeOwner_[edge], cs)) {
            follows = true;
            most = std::max(most, guide.threadMaps[cs]);
        }
    }
    int own = follows && overWorkItems(g_.node(e.node).op) ? 1 : 0;
    return static_cast<uint8_t>(std::min<int>(kThreadMapsAbove, own + most));
}

// Each state's most threadMapsBelow over its viable edges, from the guide up through the edges'
// owners (a cycle only raises a count up to the bound, so the worklist ends).
void Search::countThreadMaps(Guide& guide) const {
    guide.threadMaps.assign(states_.size(), 0);
    std::vector<uint32_t> work;
    auto raise = [&](uint32_t i) {
        uint32_t s = edgeOwner_[i];
        if (!edgeViable_[i] || !guide.leads[s]) {
            return;
        }
        uint8_t n = threadMapsBelow(i, guide);
        if (n > guide.threadMaps[s]) {
            guide.threadMaps[s] = n;
            work.push_back(s);
        }
    };
    for (uint32_t i = 0; i < edges_.size(); ++i) {
        raise(i);
    }
    while (!work.empty()) {
        uint32_t s = work.back();
        work.pop_back();
        for (uint32_t i : childEdges_[s]) {
            raise(i);
        }
    }
}

// A term of state `s` that replays the guide. Where the state's class holds a guide e-node, the
// term takes the edge whose replay holds the most guide e-nodes (Entry::guideHits): the
// `expected` e-node first (the parent's child in the right-hand side), then the guide's other
// e-nodes, then the class's others where none of them can stand; each child class that holds
// one replays it too, the others take their best listed term. Elsewhere, on the way down to the
// guide, the first edge with children that lead to it (with ExploreOptions::threadMapsAbove,
// those whose way down passes the most thread maps first). Edges in random order, the expected one
// first: of replays with as many guide e-nodes the first is kept. nullopt when no edge replays the
// guide. One result per state, expected e-node and draw (`done`); a state met again on its own path
// fails (a cycle).
std::optional<Entry> Search::guidedDraw(uint32_t s, egraph::ENodeId expected, size_t depth,
                                        bool inside, Draw& d, const Guide& guide, GuideMemo& done) {
    if (lists_[s].empty()) {
        return std::nullopt;
    }
    bool held = guide.classes.contains(states_[s].eclass);
    // Inside the replayed term, a class without guide e-nodes is one of the rule's variables
    // (taken as listed); on the way down to it, only the states that lead there.
    if (!held && (inside || !guide.leads[s])) {
        return d.listed(lists_[s]);
    }
    uint64_t key = uint64_t(s) << 32 | expected;
    if (auto it = done.find(key); it != done.end()) {
        return it->second;
    }
    if (depth >= d.opt.maxDepth) {
        return std::nullopt;
    }
    done.emplace(key, std::nullopt); // on the path
    // In a class that holds a guide e-node, the guide's e-nodes first, then the class's others:
    // where the rule's e-node cannot stand in this context (a high-level Reduce on the macro's
    // top, a map whose lowering the context fixes), an equal e-node of its class takes its place.
    std::vector<uint32_t> order;
    std::vector<uint32_t> others;
    for (uint32_t i : viableEdges(s)) {
        (!held || guide.nodes.contains(edges_[i].node) ? order : others).push_back(i);
    }
    auto shuffle = [&d](std::vector<uint32_t>& v) { // Fisher-Yates with the draw's generator
        for (size_t i = v.size(); i > 1; --i) {
            std::swap(v[i - 1], v[d.below(i)]);
        }
    };
    shuffle(order);
    shuffle(others);
    if (!held && !guide.threadMaps.empty()) {
        // The edges whose way down passes the most thread maps first.
        std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
            return threadMapsBelow(x, guide) > threadMapsBelow(y, guide);
        });
    }
    auto first = std::find_if(order.begin(), order.end(),
                              [&](uint32_t i) { return edges_[i].node == expected; });
    std::rotate(order.begin(), first, first == order.end() ? first : first + 1);
    order.insert(order.end(), others.begin(), others.end());
    // In a held class every edge is tried and the replay that takes the most guide e-nodes kept
    // (the first guide edge that works may sit in a context where the e-nodes below it cannot: a
    // kernel launched as one thread); elsewhere the first edge that works.
    std::optional<Entry> result;
    int64_t most = -1;
    for (uint32_t i : order) {
        const Edge& e = edges_[i];
        std::vector<Entry> kids;
        std::vector<TermRef> kidTerms;
        bool guided = held;
        uint32_t hits = held && guide.nodes.contains(e.node) ? 1 : 0;
        for (uint32_t c = 0; c < e.numChildren; ++c) {
            uint32_t cs = childStates_[e.firstChild + c];
            // Inside the replay, a child class that holds guide e-nodes replays them; on the way
            // down, only a child that leads to the guide's root is followed.
            // A child in the e-node's own class (a copy that copy-elim merged with what it
            // copies: `toLocal(MapLcl(id)) $ t` in t's class) takes its listed term: replaying
            // it would meet the state again on its own path.
            bool follow =
                states_[cs].eclass != states_[s].eclass &&
                (((held || !guide.towardsRoot) && guide.classes.contains(states_[cs].eclass)) ||
                 (held ? guide.leads[cs] : guide.descends(s, cs)));
            guided = guided || follow;
            auto slot = guide.expected.find(uint64_t(e.node) << 32 | c);
            egraph::ENodeId want = slot == guide.expected.end() ? kNoExpected : slot->second;
            std::optional<Entry> kid = follow
                                           ? guidedDraw(cs, want, depth + 1, held, d, guide, done)
                                           : d.listed(lists_[cs]);
            if (!kid) {
                break;
            }
            kids.push_back(*kid);
            kidTerms.push_back(kid->term);
            hits += kid->guideHits;
        }
        if (kids.size() != e.numChildren || !guided || int64_t(hits) <= most ||
            (!kidTerms.empty() && terms_.contains(kidTerms, e.node))) {
            continue;
        }
        result = build(s, e, kids);
        result->guideHits = static_cast<uint16_t>(std::min<uint32_t>(hits, UINT16_MAX));
        if (!held) { // on the way down: this e-node's thread map and its followed child's
            for (uint32_t c = 0; c < e.numChildren; ++c) {
                if (guide.descends(s, childStates_[e.firstChild + c])) {
                    result->threadMaps = std::max(result->threadMaps, kids[c].threadMaps);
                }
            }
            result->threadMaps += overWorkItems(g_.node(e.node).op) ? 1 : 0;
        }
        most = hits;
        if (!held) {
            break;
        }
    }
    done[key] = result;
    return result;
}

std::vector<Entry> Search::explore(const ExploreOptions& opt, size_t& guided) {
    std::vector<Entry> out;
    guided = 0;
    if (states_.empty() || opt.draws == 0) {
        return out;
    }
    Draw d{opt, std::mt19937_64(opt.seed)};
    std::unordered_set<TermRef> seen;
    if (!opt.guides.empty()) {
        indexEdges();
    }
    for (size_t gi = 0; gi < opt.guides.size() && gi <= UINT16_MAX; ++gi) {
        Guide guide = makeGuide(opt.guides[gi], opt.towardsRoot);
        if (opt.threadMapsAbove) {
            countThreadMaps(guide);
        }
        std::mt19937_64 vary(opt.seed + gi);
        for (size_t i = 0; i < opt.guidedDraws && guide.leads[0]; ++i) {
            GuideMemo done;
            d.vary = opt.varyListed && i > 0 ? &vary : nullptr;
            std::optional<Entry> e = guidedDraw(0, kNoExpected, 0, false, d, guide, done);
            d.vary = nullptr;
            if (e && seen.insert(e->term).second) {
                e->guide = static_cast<uint16_t>(gi);
                out.push_back(*e);
            }
        }
    }
    guided = out.size();
    for (size_t i = 0; i < opt.draws; ++i) {
        std::optional<Entry> e = draw(0, 0, d);
        if (!e) {
            break; // the root has no term
        }
        if (seen.insert(e->term).second) {
            out.push_back(*e);
        }
    }
    return out;
}

} // namespace egopt::extract::detail
