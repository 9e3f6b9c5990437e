// The goal growth's 2-D register blocks (docs/search-goal.md, "Vector accumulators: 2-D register
// blocks"): R rows of one operand by one vector column of the other in R vector accumulators,
// grown after the growth's other runs and on their own forms only, so that those runs' blocks of
// scalars (the v x 1 register blocks) keep the e-graph and the guides they have without them.
#include "stages.hpp"

#include <algorithm>

namespace egopt::pipeline {

namespace {

// Of the vector run's maps over vector columns: `Map(asScalar)` and `Join` (the rearrangements
// back to scalar columns), the lambda over the other operand's row, its map and the map's
// application, whose interchange puts the rows inside.
constexpr size_t kInterchangeLevels = 5;

// The interchange run's focus: the newest of `vectorMaps` (their terms) and the classes up to
// kInterchangeLevels parents above them. Not the program's maps' other members, which the
// stages made many and each of which matches map-map-interchange (the vector run's backoff
// scheduler bans it there without one application).
std::set<egraph::EClassId> interchangeRegion(const egraph::EGraph& g,
                                             const std::vector<egraph::EClassId>& vectorMaps,
                                             const GrowthLimits& limits) {
    std::set<egraph::EClassId> region;
    std::vector<egraph::EClassId> maps;
    for (size_t i = vectorMaps.size(); i-- > 0 && maps.size() < limits.reductions;) {
        egraph::EClassId c = g.findConst(vectorMaps[i]);
        if (std::find(maps.begin(), maps.end(), c) == maps.end()) {
            maps.push_back(c);
            termClasses(g, {c}, limits.classes, region);
        }
    }
    parentsWithin(g, maps, kInterchangeLevels, limits.classes, region);
    return region;
}

// Whether class `c` is a sharing map of vector reductions over rows of scalars (`Map(fun(row =>
// vector reduction reading a vector column v)) $ rows`, the interchange run's): its blocks are R
// rows by one vector column. The vector run's maps are over the vector columns, each reduction
// reading a row of scalars: one row by several vector columns.
bool rowsSharingMap(const egraph::EGraph& g, egraph::EClassId c) {
    if (!isVectorSharingMap(g, c)) {
        return false;
    }
    return std::any_of(g.eclass(c).nodes.begin(), g.eclass(c).nodes.end(), [&](egraph::ENodeId n) {
        const egraph::ENode& node = g.node(n);
        if (node.op != egraph::Op::Apply || node.children.size() != 2 ||
            !g.eclass(node.children[0]).mayHold(egraph::Op::Map)) {
            return false;
        }
        egraph::ClassData xs = g.data(node.children[1]);
        if (!xs.isData() || !g.types.isArray(xs.type)) {
            return false;
        }
        lift::TypeId row = g.types.elemOf(xs.type);
        return g.types.isArray(row) && g.types.kind(g.types.elemOf(row)) == lift::TypeKind::Scalar;
    });
}

// The blocking run's focus: the terms of the newest sharing maps of vector reductions over rows
// of scalars (rowsSharingMap).
std::set<egraph::EClassId> vectorMapsRegion(const egraph::EGraph& g, const GrowthLimits& limits) {
    std::set<egraph::EClassId> region;
    std::vector<egraph::EClassId> classes = g.classIds();
    size_t maps = 0;
    for (size_t i = classes.size(); i-- > 0 && maps < limits.reductions;) {
        if (rowsSharingMap(g, classes[i])) {
            termClasses(g, {classes[i]}, limits.classes, region);
            ++maps;
        }
    }
    return region;
}

// The fusion runs' focus: the first blocks' terms (the application's class, its children's
// smallest terms), with `operandMembers` also the classes below every member of the operands
// (the products' maps the first run distributes into an older function class, outside its
// focus, where lower-seq cannot write the MapSeq that reduce-map-fusion fuses).
std::set<egraph::EClassId> blockFusionRegion(const egraph::EGraph& g, const GrowthLimits& limits,
                                             bool operandMembers) {
    std::set<egraph::EClassId> region;
    for (const auto& found : vectorBlocks(g, limits.reductions, limits.counted.from)) {
        std::vector<egraph::EClassId> stack{g.findConst(found.back())};
        for (egraph::EClassId child : g.node(found.back()).children) {
            stack.push_back(child);
            if (!operandMembers) {
                continue;
            }
            for (egraph::ENodeId m : g.eclass(g.findConst(child)).nodes) {
                stack.insert(stack.end(), g.node(m).children.begin(), g.node(m).children.end());
            }
        }
        termClasses(g, std::move(stack), limits.classes, region);
    }
    return region;
}

// The parallel run's focus: the first blocks' accumulators (their initial values' terms, for an
// address space) and every class above the blocks (the maps around the loop).
std::set<egraph::EClassId> blockParallelRegion(const egraph::EGraph& g,
                                               const GrowthLimits& limits) {
    std::set<egraph::EClassId> region;
    std::vector<egraph::EClassId> blocks;
    for (const auto& found : vectorBlocks(g, limits.reductions, limits.counted.from)) {
        blocks.push_back(g.findConst(found.back()));
        termClasses(g, {g.node(found.back()).children[1]}, limits.classes, region);
    }
    classesAbove(g, blocks, limits.classes, region);
    return region;
}

} // namespace

std::vector<std::vector<egraph::ENodeId>> vectorBlocks(const egraph::EGraph& g, size_t limit,
                                                       egraph::ENodeId from) {
    return sharedReductions(g, limit, true, {from, NodeRange{}.below, vectorReduction});
}

egraph::EClassId interchangeVectorMaps(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                       const std::vector<Phase>& phases, size_t threads,
                                       const GrowthRun& ran,
                                       const std::vector<egraph::EClassId>& vectorMaps) {
    auto from = static_cast<egraph::EClassId>(g.numNodeIds());
    if (vectorMaps.empty()) {
        return std::numeric_limits<egraph::EClassId>::max();
    }
    // Right after the vector run: after the other runs its maps' classes have many more members,
    // each a match (mm 128^3 on PoCL: 16,556 e-nodes added, no map over the rows inside).
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> rules = goalGrowthRules(phases, lib, GrowthGoal::Interchange);
    GrowthLimits limits;
    limits.counted.accept = vectorReduction;
    GrowthResult grown =
        growRegion(g, ctx, rules, limits, threads, interchangeRegion(g, vectorMaps, limits));
    if (ran) {
        ran(GrowthGoal::Interchange, rules, grown);
    }
    return from;
}

egraph::ENodeId growVectorBlocks(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                 const std::vector<Phase>& phases, size_t threads,
                                 const GrowthRun& ran) {
    auto from = static_cast<egraph::ENodeId>(g.numNodeIds());
    std::set<egraph::EClassId> maps = vectorMapsRegion(g, GrowthLimits{});
    if (maps.empty()) {
        return from; // no map over the rows inside a map over vector columns: no 2-D block
    }
    egraph::Library lib = egraph::Library::standard();
    GrowthLimits limits;
    limits.counted = {from, NodeRange{}.below, vectorReduction};
    auto run = [&](GrowthGoal goal, const std::set<egraph::EClassId>& region) {
        std::vector<egraph::Rule> rules = goalGrowthRules(phases, lib, goal);
        GrowthResult grown = growRegion(g, ctx, rules, limits, threads, region);
        if (ran) {
            ran(goal, rules, grown);
        }
    };
    run(GrowthGoal::VectorBlocking, maps);
    run(GrowthGoal::VectorFusion, blockFusionRegion(g, limits, false));
    run(GrowthGoal::VectorFusion, blockFusionRegion(g, limits, true));
    run(GrowthGoal::VectorParallel, blockParallelRegion(g, limits));
    return from;
}

} // namespace egopt::pipeline
