// The search's generic shape goal without macros (docs/search-goal.md, "A shape goal"): a shared
// reduction, one sequential reduction whose accumulator is an array, so that several outputs
// share each element the reduction reads (a register block's reuse of loaded operands).
#include "egopt/lift/patterns.hpp"
#include "stages.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string_view>

namespace egopt::pipeline {

namespace {

using egraph::EClassId;
using egraph::ENodeId;
using egraph::Op;

// The names the tuning space gives its variables (egraph::TuningSpace::variable): a length made
// of them and constants is a block size the search chose, not one of the program's sizes.
constexpr std::string_view kTuningPrefix = "v__";

bool holdsReduction(const egraph::EGraph& g, EClassId fn) {
    return g.eclass(fn).mayHold(Op::Reduce) || g.eclass(fn).mayHold(Op::ReduceSeq);
}

// The reduction e-node (Reduce or ReduceSeq) of function class `fn`, the lowered one first.
std::optional<ENodeId> reductionIn(const egraph::EGraph& g, EClassId fn) {
    std::optional<ENodeId> found;
    for (ENodeId n : g.eclass(fn).nodes) {
        Op op = g.node(n).op;
        if (op == Op::ReduceSeq) {
            return n;
        }
        if (op == Op::Reduce) {
            found = n;
        }
    }
    return found;
}

// Whether data class `c` is a reduction's application.
bool isReductionApplied(const egraph::EGraph& g, EClassId c) {
    for (ENodeId n : g.eclass(c).nodes) {
        const egraph::ENode& node = g.node(n);
        if (node.op == Op::Apply && node.children.size() == 3 &&
            holdsReduction(g, node.children[0])) {
            return true;
        }
    }
    return false;
}

// Whether the smallest term of data class `body` reads a variable bound outside its lambda (a
// De Bruijn index above the binders entered, less 1). The smallest term and not the class's
// free variables: those are a superset over every member.
bool readsOuterVariable(const egraph::EGraph& g, EClassId body) {
    constexpr size_t kMaxNodes = 4096;
    std::vector<std::pair<EClassId, int32_t>> stack{{body, 0}}; // class, binders entered
    for (size_t visited = 0; !stack.empty() && visited < kMaxNodes; ++visited) {
        auto [c, depth] = stack.back();
        stack.pop_back();
        const egraph::ENode& node = g.node(g.data(c).best);
        if (node.op == Op::Param && node.ival > depth) {
            return true;
        }
        int32_t inner = depth + (node.op == Op::Lambda ? node.ival : 0);
        for (EClassId child : node.children) {
            stack.emplace_back(child, inner);
        }
    }
    return false;
}

// The body classes of the one-parameter lambdas that class `c` maps (`Map(fun(x => body)) $ xs`).
std::vector<EClassId> mappedBodies(const egraph::EGraph& g, EClassId c) {
    std::vector<EClassId> bodies;
    for (ENodeId n : g.eclass(c).nodes) {
        const egraph::ENode& node = g.node(n);
        if (node.op != Op::Apply || node.children.size() != 2 ||
            !g.eclass(node.children[0]).mayHold(Op::Map)) {
            continue;
        }
        for (ENodeId m : g.eclass(node.children[0]).nodes) {
            if (g.node(m).op != Op::Map) {
                continue;
            }
            for (ENodeId l : g.eclass(g.node(m).children[0]).nodes) {
                if (g.node(l).op == Op::Lambda && g.node(l).ival == 1) {
                    bodies.push_back(g.node(l).children[0]);
                }
            }
        }
    }
    return bodies;
}

// A walk of the smallest term of class `c` for a user function, at most 4096 e-nodes: whether
// it found one, found none, or stopped before the term's end (a term too large to tell).
enum class UserFunSearch { Found, NotFound, TooLarge };
UserFunSearch userFunIn(const egraph::EGraph& g, EClassId c) {
    constexpr size_t kMaxNodes = 4096;
    std::vector<EClassId> stack{c};
    for (size_t visited = 0; !stack.empty(); ++visited) {
        if (visited >= kMaxNodes) {
            return UserFunSearch::TooLarge;
        }
        const egraph::ENode& node = g.node(g.data(stack.back()).best);
        stack.pop_back();
        if (node.op == Op::UserFun || node.op == Op::VectorizeUserFun) {
            return UserFunSearch::Found;
        }
        stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    return UserFunSearch::NotFound;
}

// Whether the smallest term of data class `c` computes nothing (no user function: views of its
// variables and of the program's parameters, mapped view lambdas included, e.g.
// `Map(fun(c => Zip $ (row, c))) $ cols`): a shared reduction over such data computes its
// operands inside its own loop (fused), none are materialised before it.
bool computesNothing(const egraph::EGraph& g, EClassId c) {
    return userFunIn(g, c) == UserFunSearch::NotFound;
}

// The e-nodes that write the accumulators of class `init` into private memory, if it has
// such a member (`toPrivate(f) $ x`, from to-private): the ToPrivate e-node, then its
// application, in the order a guide lists e-nodes (each after its children). A register
// block's accumulators are one work-item's. Only over an array that computes nothing: the
// zeros' class also holds them mapped over arrays of equal length that compute products
// (`Map(fun(x => 0.0f)) $ (Map(g) $ xs)` equals `Map(fun(x => 0.0f)) $ xs`), and a replay
// through such a member computes them before the loop.
std::vector<ENodeId> privateAccumulators(const egraph::EGraph& g, EClassId init) {
    for (ENodeId n : g.eclass(init).nodes) {
        const egraph::ENode& node = g.node(n);
        if (node.op != Op::Apply || node.children.size() != 2 ||
            !computesNothing(g, node.children[1])) {
            continue;
        }
        for (ENodeId f : g.eclass(node.children[0]).nodes) {
            if (g.node(f).op == Op::ToPrivate) {
                return {f, n};
            }
        }
    }
    return {};
}

// Whether the smallest term of class `c` calls a user function.
bool callsUserFun(const egraph::EGraph& g, EClassId c) {
    return userFunIn(g, c) == UserFunSearch::Found;
}

// Whether the smallest term of class `step` (a shared reduction's step) has at most one map
// whose function calls a user function: the products and the additions in one loop over the
// accumulators, no array of products computed first and then added (an unfused step).
bool oneComputingMap(const egraph::EGraph& g, EClassId step) {
    constexpr size_t kMaxNodes = 4096;
    size_t computing = 0;
    std::vector<EClassId> stack{step};
    for (size_t visited = 0; !stack.empty() && visited < kMaxNodes; ++visited) {
        const egraph::ENode& node = g.node(g.data(stack.back()).best);
        stack.pop_back();
        bool map = node.op == Op::Map || lift::isLoweredMap(node.op);
        if (map && !node.children.empty() && callsUserFun(g, node.children.back()) &&
            ++computing > 1) {
            return false;
        }
        stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    return true;
}

} // namespace

std::optional<ENodeId> memberWithForm(const egraph::EGraph& g, ENodeId id) {
    const egraph::ENode& node = g.node(id);
    for (ENodeId m : g.eclass(g.findConst(id)).nodes) {
        if (g.node(m) == node) {
            return m;
        }
    }
    return std::nullopt;
}

bool isVectorSharingMap(const egraph::EGraph& g, EClassId c) {
    std::vector<EClassId> bodies = mappedBodies(g, c);
    return std::any_of(bodies.begin(), bodies.end(), [&](EClassId body) {
        if (!isReductionApplied(g, body) || !readsOuterVariable(g, body)) {
            return false;
        }
        egraph::ClassData data = g.data(body);
        return data.isData() &&
               g.types.kind(g.types.scalarBase(data.type)) == lift::TypeKind::Vector;
    });
}

bool isSharingMap(const egraph::EGraph& g, EClassId c) {
    std::vector<EClassId> bodies = mappedBodies(g, c);
    return std::any_of(bodies.begin(), bodies.end(), [&](EClassId body) {
        return isReductionApplied(g, body) && readsOuterVariable(g, body);
    });
}

bool hasSharingMap(const egraph::EGraph& g) {
    std::vector<EClassId> classes = g.classIds();
    return std::any_of(classes.begin(), classes.end(),
                       [&](EClassId c) { return isSharingMap(g, c); });
}

std::vector<std::vector<ENodeId>> sharedReductions(const egraph::EGraph& g, size_t limit,
                                                   bool bestMember, NodeRange range) {
    // Candidates by goal properties met (bounded, then fused), newest first among equals: the
    // latest rewrites of a shared reduction are the furthest along.
    std::vector<std::pair<int, std::vector<ENodeId>>> found;
    // One per class (its members are one value): the newest member, or with `bestMember` for a
    // class of vector accumulators the member with the most goal properties, then private
    // accumulators, then one computing map in its step, the newest among equals (a class holds
    // the forms before and after fusion; the newest need not be the furthest along). Only vector
    // ones: for the others the newest member's guides set the beam's goal slots and with them the
    // later stages' focus, which reaches the H200's fastest mm 1024^3 kernels.
    std::map<EClassId, std::pair<size_t, int>> classes; // index in found, tie-break rank
    size_t complete = 0;                                // found with every goal property
    // A shared reduction that stands for a map of reductions sharing an operand: its class, or
    // a class it is the argument of (the transposed accumulator), holds that map. The partial
    // reductions of reduce-split interchanged the same way share nothing.
    auto replacesSharingMap = [&](EClassId c) {
        if (isSharingMap(g, c)) {
            return true;
        }
        return std::any_of(g.eclass(c).parents.begin(), g.eclass(c).parents.end(),
                           [&](ENodeId p) { return isSharingMap(g, g.findConst(p)); });
    };
    std::set<EClassId> notSharing;
    for (size_t id = std::min<size_t>(g.numNodeIds(), range.below);
         id-- > range.from && complete < limit;) {
        auto n = static_cast<ENodeId>(id);
        const egraph::ENode& node = g.node(n);
        if (node.op != Op::Apply || node.children.size() != 3 ||
            !holdsReduction(g, node.children[0])) {
            continue;
        }
        egraph::ClassData init = g.data(node.children[1]);
        if (!init.isData() || !g.types.isArray(init.type)) {
            continue;
        }
        if (range.accept && !range.accept(g, n)) {
            continue;
        }
        EClassId c = g.findConst(n);
        auto seen = classes.find(c);
        if (notSharing.count(c) ||
            (seen != classes.end() &&
             (!bestMember || (found[seen->second.first].first == 7 && seen->second.second == 3) ||
              !vectorReduction(g, n)))) {
            continue;
        }
        if (seen == classes.end() && !replacesSharingMap(c)) {
            notSharing.insert(c);
            continue;
        }
        auto member = memberWithForm(g, n);
        auto r = reductionIn(g, node.children[0]);
        if (!r || !member) {
            continue;
        }
        // Bounded before vector before fused: fusing a block's loop finishes a register block,
        // fusing a whole row's loop does not; a block of vectors is two-dimensional.
        int score = 4 * int(boundedReduction(g, *member)) + 2 * int(vectorReduction(g, *member)) +
                    int(fusedReduction(g, *member));
        std::vector<ENodeId> guide = privateAccumulators(g, node.children[1]);
        int rank = 2 * int(!guide.empty()) + int(fusedStep(g, *member));
        if (seen != classes.end()) {
            auto [index, bestRank] = seen->second;
            if (std::pair(score, rank) <= std::pair(found[index].first, bestRank)) {
                continue;
            }
            complete -= found[index].first == 7;
        }
        complete += score == 7;
        guide.push_back(*r);
        guide.push_back(*member);
        if (seen != classes.end()) {
            found[seen->second.first] = {score, std::move(guide)};
            seen->second.second = rank;
        } else {
            classes[c] = {found.size(), rank};
            found.emplace_back(score, std::move(guide));
        }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::vector<ENodeId>> out;
    for (size_t i = 0; i < found.size() && i < limit; ++i) {
        out.push_back(std::move(found[i].second));
    }
    return out;
}

bool boundedReduction(const egraph::EGraph& g, ENodeId application) {
    const egraph::ENode& node = g.node(application);
    if (node.children.size() != 3) {
        return false;
    }
    egraph::ClassData init = g.data(node.children[1]);
    if (!init.isData() || !g.types.isArray(init.type)) {
        return false;
    }
    for (lift::TypeId t = init.type; g.types.isArray(t); t = g.types.elemOf(t)) {
        for (const std::string& v : g.types.lengthOf(t).variables()) {
            if (v.rfind(kTuningPrefix, 0) != 0) {
                return false; // a program size: as many accumulators as the data has outputs
            }
        }
    }
    return true;
}

bool vectorReduction(const egraph::EGraph& g, ENodeId application) {
    const egraph::ENode& node = g.node(application);
    if (node.children.size() != 3) {
        return false;
    }
    egraph::ClassData init = g.data(node.children[1]);
    return init.isData() && g.types.isArray(init.type) &&
           g.types.kind(g.types.scalarBase(init.type)) == lift::TypeKind::Vector;
}

int goalProperties(const egraph::EGraph& g, ENodeId application) {
    return int(fusedReduction(g, application)) + int(boundedReduction(g, application)) +
           int(vectorReduction(g, application));
}

bool fusedReduction(const egraph::EGraph& g, ENodeId application) {
    const egraph::ENode& node = g.node(application);
    return node.children.size() == 3 && computesNothing(g, node.children[2]);
}

bool fusedStep(const egraph::EGraph& g, ENodeId application) {
    const egraph::ENode& node = g.node(application);
    if (node.children.size() != 3) {
        return false;
    }
    auto r = reductionIn(g, node.children[0]);
    return r && !g.node(*r).children.empty() && oneComputingMap(g, g.node(*r).children[0]);
}

std::vector<EClassId> goalRegion(const egraph::EGraph& g, std::vector<EClassId> roots,
                                 size_t maxClasses) {
    std::vector<EClassId> region;
    std::vector<bool> seen(g.numNodeIds(), false);
    // Breadth first: the classes nearest the roots, where the next steps rewrite, first.
    std::deque<EClassId> queue(roots.begin(), roots.end());
    while (!queue.empty() && region.size() < maxClasses) {
        EClassId c = g.findConst(queue.front());
        queue.pop_front();
        if (seen[c]) {
            continue;
        }
        seen[c] = true;
        region.push_back(c);
        for (ENodeId n : g.eclass(c).nodes) {
            for (EClassId child : g.node(n).children) {
                queue.push_back(child);
            }
        }
    }
    std::sort(region.begin(), region.end());
    return region;
}

std::vector<EClassId> goalRoots(const egraph::EGraph& g, size_t limit) {
    std::vector<EClassId> roots;
    for (const auto& goal : sharedReductions(g, limit)) {
        roots.push_back(g.findConst(goal.back()));
    }
    for (EClassId c : g.classIds()) {
        if (isSharingMap(g, c)) {
            roots.push_back(c);
        }
    }
    return roots;
}

} // namespace egopt::pipeline
