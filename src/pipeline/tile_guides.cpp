// Guides for exploration's guided draws without macros: a work-group's element staged whole in
// local memory (docs/search.md, "Local tiles of a stencil"). The structural cost counts no loads,
// so a tile copied once per work-group and read by every neighbourhood it holds costs more than
// reading the neighbourhoods from global memory (a copy and two barriers more), and a uniform
// draw rarely takes every lowering of it; a guided replay assembles it, and the cost model
// ranks it against the rest.
#include "egopt/egraph/rewrite.hpp"
#include "egopt/egraph/rewrite_context.hpp"
#include "stages.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

namespace egopt::pipeline {

namespace {

using egraph::EClassId;
using egraph::ENodeId;
using egraph::Op;

constexpr int kMaxSteps = 6; // applications between the copy and the work-group's lambda
// E-nodes from the work-group up to the root: a 3-D stencil's tile is three maps deep, each with
// its lambda, application and the views that put its results in place.
constexpr int kMaxStepsUp = 12;

// The first e-node of class c with operator op (and dimension 0 for a thread map).
std::optional<ENodeId> nodeOf(const egraph::EGraph& g, EClassId c, Op op) {
    for (ENodeId n : g.eclass(c).nodes) {
        if (g.node(n).op == op && g.node(n).ival == 0) {
            return n;
        }
    }
    return std::nullopt;
}

bool holdsVariable(const egraph::EGraph& g, EClassId c, int32_t index) {
    const auto& nodes = g.eclass(c).nodes;
    return std::any_of(nodes.begin(), nodes.end(), [&](ENodeId n) {
        return g.node(n).op == Op::Param && g.node(n).ival == index;
    });
}

// The parents of class c as the members that have their forms, the oldest first.
std::vector<ENodeId> parentsOf(const egraph::EGraph& g, EClassId c) {
    std::vector<ENodeId> out;
    for (ENodeId p : g.eclass(c).parents) {
        if (auto m = memberWithForm(g, p)) {
            out.push_back(*m);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// The ways up from a tile's copy to the work-group that reads it: through applications that
// take the class as their argument, to a one-parameter lambda whose body it is and a MapWrg(0) of
// that lambda applied to an array. Each application comes after the MapLcl(0) e-node of its
// function's class, where it has one; at the end the lambda, the MapWrg and its application. Some
// application on it must be a MapLcl's (the work-items read the tile; a work-group that only
// copies it is the copy of the tiles, which copy-view puts in their class). At most kWays ways of
// at most kMaxSteps applications, found through the oldest parents first, within kVisits classes
// visited: a tile's class merges with its lambda's variable once copy-elim removes the copy, and
// the variable's class is every lambda's over arrays of that type, with many parents.
class WaysToWorkGroup {
public:
    explicit WaysToWorkGroup(const egraph::EGraph& g) : g_(g) {}

    std::vector<std::vector<ENodeId>> from(EClassId copy) {
        ways_.clear();
        visits_ = 0;
        std::vector<ENodeId> path;
        visit(copy, kMaxSteps, false, path);
        return ways_;
    }

private:
    static constexpr size_t kWays = 4;
    static constexpr size_t kVisits = 20'000;

    bool done() const { return ways_.size() >= kWays || visits_ >= kVisits; }

    void workGroups(ENodeId lambda, std::vector<ENodeId>& path) {
        for (ENodeId wrg : parentsOf(g_, g_.findConst(lambda))) {
            if (g_.node(wrg).op != Op::MapWrg || g_.node(wrg).ival != 0) {
                continue;
            }
            for (ENodeId app : parentsOf(g_, g_.findConst(wrg))) {
                const egraph::ENode& a = g_.node(app);
                if (a.op == Op::Apply && a.children.size() == 2 &&
                    g_.findConst(a.children[0]) == g_.findConst(wrg) && !done()) {
                    ways_.push_back(path);
                    ways_.back().insert(ways_.back().end(), {lambda, wrg, app});
                }
            }
        }
    }

    void visit(EClassId at, int steps, bool read, std::vector<ENodeId>& path) {
        ++visits_;
        for (ENodeId p : parentsOf(g_, at)) {
            if (done()) {
                return;
            }
            const egraph::ENode& node = g_.node(p);
            if (node.op == Op::Lambda && node.ival == 1 && read) {
                workGroups(p, path);
                continue;
            }
            // An application in the class itself (a copy of the copy, which copy-elim merged
            // with the tile) leads nowhere.
            if (steps == 0 || node.op != Op::Apply || node.children.size() != 2 ||
                g_.findConst(node.children[1]) != at || g_.findConst(p) == at) {
                continue;
            }
            size_t mark = path.size();
            EClassId fn = g_.findConst(node.children[0]);
            auto lcl = nodeOf(g_, fn, Op::MapLcl);
            if (lcl) {
                path.push_back(*lcl);
            }
            bool reads = lcl || bindsForWorkItems(fn, path);
            path.push_back(p);
            visit(g_.findConst(p), steps - 1, read || reads, path);
            path.resize(mark);
        }
    }

    // Whether function class fn binds the tile to a variable that work-items read: a
    // one-parameter lambda whose body applies a MapLcl(0) (stage-local, staging.rules: the
    // work-group's function applied to its block's copy). The lambda, the MapLcl and its
    // application join the path, so that a replay keeps the binding and the work-items' map.
    bool bindsForWorkItems(EClassId fn, std::vector<ENodeId>& path) const {
        for (ENodeId n : g_.eclass(fn).nodes) {
            const egraph::ENode& lambda = g_.node(n);
            if (lambda.op != Op::Lambda || lambda.ival != 1) {
                continue;
            }
            EClassId body = g_.findConst(lambda.children[0]);
            for (ENodeId b : g_.eclass(body).nodes) {
                const egraph::ENode& app = g_.node(b);
                if (app.op != Op::Apply || app.children.size() != 2) {
                    continue;
                }
                auto bodyLcl = nodeOf(g_, g_.findConst(app.children[0]), Op::MapLcl);
                auto lambdaForm = memberWithForm(g_, n);
                auto appForm = memberWithForm(g_, b);
                if (bodyLcl && lambdaForm && appForm) {
                    path.insert(path.end(), {*bodyLcl, *appForm, *lambdaForm});
                    return true;
                }
            }
        }
        return false;
    }

    const egraph::EGraph& g_;
    std::vector<std::vector<ENodeId>> ways_;
    size_t visits_ = 0;
};

// The e-nodes of a shortest way up from class `from` to class `root` through parents, the lowest
// first (each after its child on the way), at most kMaxStepsUp; empty where there is none.
std::vector<ENodeId> wayUp(const egraph::EGraph& g, EClassId from, EClassId root) {
    // class -> the parent e-node that reached it and the class below it
    std::map<EClassId, std::pair<ENodeId, EClassId>> reachedBy;
    std::vector<EClassId> level{from};
    reachedBy.emplace(from, std::pair{ENodeId(0), from});
    for (int step = 0; step < kMaxStepsUp && !reachedBy.count(root); ++step) {
        std::vector<EClassId> next;
        for (EClassId c : level) {
            for (ENodeId p : g.eclass(c).parents) {
                auto member = memberWithForm(g, p);
                EClassId up = g.findConst(p);
                if (member && reachedBy.emplace(up, std::pair{*member, c}).second) {
                    next.push_back(up);
                }
            }
        }
        level = std::move(next);
    }
    std::vector<ENodeId> way;
    if (!reachedBy.count(root)) {
        return way;
    }
    for (EClassId c = root; c != from; c = reachedBy.at(c).second) {
        way.push_back(reachedBy.at(c).first);
    }
    std::reverse(way.begin(), way.end());
    return way;
}

// Whether function class fn computes the identity (the library's isCopy condition).
bool copies(const egraph::EGraph& g, const egraph::Library& lib, EClassId fn) {
    egraph::ArgValue arg;
    arg.eclass = fn;
    return lib.conditions.at("isCopy").second(g, egraph::SizeFacts{},
                                              std::span<const egraph::ArgValue>(&arg, 1));
}

// A guide: the copy, a way up to a work-group that reads it, then the shortest way up to the
// root; empty where there is none.
std::vector<ENodeId> tileGuide(const egraph::EGraph& g, std::vector<ENodeId> guide,
                               const std::vector<ENodeId>& way, EClassId root) {
    guide.insert(guide.end(), way.begin(), way.end());
    // Up to the root: on the way down a draw takes the first edge that leads to a guide
    // e-node, which may start a one-thread kernel where no MapWrg can stand; in the guide's
    // classes it tries every edge.
    EClassId top = g.findConst(guide.back());
    std::vector<ENodeId> up = wayUp(g, top, root);
    if (top != root && up.empty()) {
        return {};
    }
    guide.insert(guide.end(), up.begin(), up.end());
    return guide;
}

// The number of maps nested in copy function class fn: the dimensions of the tile it copies.
int copyDepth(const egraph::EGraph& g, EClassId fn) {
    constexpr int kMaxDepth = 8;
    int depth = 0;
    for (bool nested = true; nested && depth < kMaxDepth;) {
        nested = false;
        for (ENodeId n : g.eclass(fn).nodes) {
            Op op = g.node(n).op;
            if (op == Op::Map || op == Op::MapLcl || op == Op::MapSeq) {
                fn = g.findConst(g.node(n).children[0]);
                nested = true;
                ++depth;
                break;
            }
        }
    }
    return depth;
}

// A guide's order: the copied tile's dimensions, then the most lambdas on its way to the root
// (the maps of tiles in more dimensions: a grid's rows and columns, a 3-D window's), then its age
// (its newest e-node up to the work-group).
using Order = std::tuple<int, int, ENodeId>;
using Aged = std::pair<Order, std::vector<ENodeId>>;

int lambdasOn(const egraph::EGraph& g, const std::vector<ENodeId>& guide) {
    return static_cast<int>(std::count_if(guide.begin(), guide.end(),
                                          [&](ENodeId n) { return g.node(n).op == Op::Lambda; }));
}

// The guides of the applications of a toLocal copy (`toLocal`, whose function's class holds
// `lcl`) to a lambda's variable, one class each (`tiles`), added to `found`.
void addCopies(const egraph::EGraph& g, ENodeId lcl, ENodeId toLocal, EClassId root,
               WaysToWorkGroup& ways, std::set<EClassId>& tiles, std::vector<Aged>& found) {
    EClassId copier = g.findConst(toLocal);
    for (ENodeId copy : parentsOf(g, copier)) {
        const egraph::ENode& c = g.node(copy);
        if (c.op != Op::Apply || c.children.size() != 2 || g.findConst(c.children[0]) != copier ||
            !holdsVariable(g, g.findConst(c.children[1]), 0) ||
            !tiles.insert(g.findConst(copy)).second) {
            continue;
        }
        for (const auto& way : ways.from(g.findConst(copy))) {
            std::vector<ENodeId> guide = tileGuide(g, {lcl, toLocal, copy}, way, root);
            if (!guide.empty()) {
                ENodeId age =
                    std::max({lcl, toLocal, copy, *std::max_element(way.begin(), way.end())});
                Order order{copyDepth(g, g.findConst(lcl)), -lambdasOn(g, guide), age};
                found.emplace_back(order, std::move(guide));
            }
        }
    }
}

// An earlier stage's guides first, as the members that now have their e-nodes' forms (the
// copy's class merges with the tile's variable, copy-elim, whose many parents later stages add,
// so the ways found then are not the rule's own any more), then the fresh ones, at most `limit`.
std::vector<std::vector<ENodeId>> withEarlier(const egraph::EGraph& g,
                                              const std::vector<std::vector<ENodeId>>& earlier,
                                              std::vector<std::vector<ENodeId>> fresh,
                                              size_t limit) {
    std::vector<std::vector<ENodeId>> out;
    std::set<std::vector<ENodeId>> taken;
    for (const auto& guide : earlier) {
        std::vector<ENodeId> now;
        for (ENodeId n : guide) {
            if (auto m = memberWithForm(g, n)) {
                now.push_back(*m);
            }
        }
        if (now.size() == guide.size() && out.size() < limit && taken.insert(now).second) {
            out.push_back(std::move(now));
        }
    }
    for (auto& guide : fresh) {
        if (out.size() < limit && taken.insert(guide).second) {
            out.push_back(std::move(guide));
        }
    }
    return out;
}

} // namespace

std::vector<std::vector<ENodeId>> localTiles(const egraph::EGraph& g, EClassId root, size_t limit,
                                             const std::vector<std::vector<ENodeId>>& earlier) {
    egraph::Library lib = egraph::Library::standard();
    std::set<EClassId> tiles; // the copied tiles' classes seen
    std::vector<Aged> found;
    WaysToWorkGroup ways(g);
    for (size_t id = 0; id < g.numNodeIds(); ++id) {
        auto n = static_cast<ENodeId>(id);
        if (g.node(n).op != Op::ToLocal) {
            continue;
        }
        auto toLocal = memberWithForm(g, n);
        EClassId copyFn = g.findConst(g.node(n).children[0]);
        auto lcl = nodeOf(g, copyFn, Op::MapLcl);
        if (toLocal && lcl && copies(g, lib, copyFn)) {
            addCopies(g, *lcl, *toLocal, root, ways, tiles, found);
        }
    }
    // The tiles of fewest dimensions first: a copy of a grid's tile holds each element once, a
    // copy of its rows of neighbourhoods (a tile of a 2-D stencil's outer Slide, the rows slid
    // already) one more dimension, each element once per neighbourhood that holds it. Then the
    // tiles cut in the most dimensions, then the oldest: the program's own staged tiles, not the
    // forms later rewrites made of them.
    std::stable_sort(found.begin(), found.end(),
                     [](const Aged& a, const Aged& b) { return a.first < b.first; });
    std::vector<std::vector<ENodeId>> fresh;
    for (auto& [age, guide] : found) {
        fresh.push_back(std::move(guide));
    }
    return withEarlier(g, earlier, std::move(fresh), limit);
}

bool tileHolds(const egraph::EGraph& g, const std::vector<ENodeId>& tile, EClassId c) {
    // The work-group's lambda: the last one-parameter lambda before its MapWrg.
    std::optional<ENodeId> lambda;
    for (size_t i = 0; i + 1 < tile.size(); ++i) {
        if (g.node(tile[i]).op == Op::Lambda && g.node(tile[i + 1]).op == Op::MapWrg) {
            lambda = tile[i];
        }
    }
    if (!lambda) {
        return false;
    }
    constexpr size_t kClasses = 20'000; // below a work-group's body: its maps and loops
    EClassId target = g.findConst(c);
    std::set<EClassId> seen;
    std::deque<EClassId> queue{g.findConst(*lambda)};
    while (!queue.empty() && seen.size() < kClasses) {
        EClassId at = g.findConst(queue.front());
        queue.pop_front();
        if (at == target) {
            return true;
        }
        if (!seen.insert(at).second) {
            continue;
        }
        for (ENodeId n : g.eclass(at).nodes) {
            for (EClassId child : g.node(n).children) {
                queue.push_back(child);
            }
        }
    }
    return false;
}

std::vector<ENodeId> withoutReaders(const egraph::EGraph& g, const std::vector<ENodeId>& tile) {
    std::vector<ENodeId> out;
    for (size_t i = 0; i < tile.size(); ++i) {
        // MapLcl, its application, the binding lambda, the lambda applied to the tile
        // (WaysToWorkGroup::bindsForWorkItems).
        if (i + 3 < tile.size() && g.node(tile[i]).op == Op::MapLcl &&
            g.node(tile[i + 2]).op == Op::Lambda && g.node(tile[i + 3]).op == Op::Apply &&
            g.findConst(g.node(tile[i + 3]).children[0]) == g.findConst(tile[i + 2])) {
            ++i;
            continue;
        }
        out.push_back(tile[i]);
    }
    return out;
}

} // namespace egopt::pipeline
