// Fixtures of the shape goal's tests (test_goals.cpp, test_goal_vectors.cpp): mm and gemv
// saturated without macros, the growth as the pipeline's last stage runs it, and guided replays.
#pragma once
#include "../../src/pipeline/stages.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/pipeline/pipeline.hpp"
#include "egopt/pipeline/saturation.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>

namespace egopt::pipeline::goal_fixtures {

inline std::string example(const std::string& name) {
    return std::string(EGOPT_SHARED_DIR) + "/examples/" + name + ".lift";
}

// The program's e-graph after the default phases without macros (with `flattening`,
// flattening.rules and equalities.rules join the algorithmic phase, as for a program with a
// sharing map), each phase cut to `algorithmic` and `lowering` iterations.
struct Saturated {
    lift::Program program;
    egraph::EGraph g;
    egraph::Inserted ins;
    egraph::RewriteContext ctx;
    std::vector<PhaseResult> phases;
    // After grow: the first e-node id of the 2-D blocks' runs (growTowardsGoal's result).
    egraph::ENodeId blocksFrom = 0;
};

// With `divisor`, the pipeline's size assumptions for sizes that it divides (every size
// variable a multiple of it), under which rules such as split-join-w4 apply.
inline std::unique_ptr<Saturated> saturated(const std::string& name, size_t algorithmic,
                                            size_t lowering, bool flattening, int64_t divisor = 1) {
    auto s = std::make_unique<Saturated>();
    s->program = lift::parseFile(example(name));
    s->ins = egraph::insertProgram(s->g, s->program);
    if (divisor > 1) {
        std::vector<SizeAssumption> assumed;
        for (const std::string& v : s->program.sizeVars) {
            assumed.push_back({v, divisor});
        }
        assumeAll(s->ctx.facts, assumed);
    }
    SaturationOptions o;
    o.noMacros = true;
    o.phases = defaultPhases(true);
    o.phases[0].limits.iterations = algorithmic;
    o.phases[1].limits.iterations = lowering;
    SaturationHooks hooks;
    hooks.flatteningSteps = flattening;
    s->phases = saturate(s->g, s->ctx, o, true, hooks);
    return s;
}

// Grows `s` towards the goal as the pipeline's last stage does (the phases without macros, GPU
// target) and returns the goals of its runs in order; each run loads rules and stays within its
// e-node limit (a run stops between applications, so by a few e-nodes over it).
inline std::vector<GrowthGoal> grow(Saturated& s) {
    SaturationOptions o;
    o.noMacros = true;
    std::vector<GrowthGoal> runs;
    s.blocksFrom = growTowardsGoal(
        s.g, s.ctx, resolvePhases(o, true, true), 2,
        [&](GrowthGoal goal, const std::vector<egraph::Rule>& rules, GrowthResult& grown) {
            CHECK_FALSE(rules.empty());
            CHECK(grown.added <= GrowthLimits{}.nodes + 100);
            runs.push_back(goal);
        });
    return runs;
}

inline bool loadsFile(const PhaseResult& p, const std::string& file) {
    return std::any_of(p.ruleFiles.begin(), p.ruleFiles.end(), [&](const std::string& f) {
        return f.size() >= file.size() && f.compare(f.size() - file.size(), file.size(), file) == 0;
    });
}

// The guided draws among the explored candidates of the GPU structural cost's search with the
// draws, guides and sizes of `eo` (2 candidates, several kernels allowed, 64 checks). `S` is a
// test's saturated program: its e-graph `g`, rewrite context `ctx` and inserted program `ins`.
template <class S>
std::vector<extract::Candidate> guidedDraws(const S& s, extract::ExtractOptions eo) {
    eo.k = 2;
    eo.multipleKernels = true;
    eo.exploreChecks = 64;
    extract::StructuralCost cost(s.g, s.ctx.tuning, eo.sizes,
                                 extract::StructuralCost::Params::gpu());
    auto r = extract::extractCandidates(s.g, s.ctx.tuning, s.ins.root, s.ins.signature, cost, eo);
    std::vector<extract::Candidate> out;
    std::copy_if(r.explored.begin(), r.explored.end(), std::back_inserter(out),
                 [](const extract::Candidate& c) { return c.guided; });
    return out;
}

// The guided draws towards `goal` (a shared reduction's e-nodes, as sharedReductions gives
// them) among 64 draws of the GPU cost's search at `sizes`, 16 of them guided.
inline std::vector<extract::Candidate> guidedReplays(const Saturated& s,
                                                     const std::vector<egraph::ENodeId>& goal,
                                                     const arith::Bindings& sizes,
                                                     bool threadMapsAbove = false) {
    extract::ExtractOptions eo;
    eo.explore.threadMapsAbove = threadMapsAbove;
    eo.explore.towardsRoot = threadMapsAbove; // as the pipeline, for the goal's guides
    eo.sizes = sizes;
    eo.explore.draws = 64;
    eo.explore.guides = {goal};
    eo.explore.guidedDraws = 16;
    return guidedDraws(s, std::move(eo));
}

// The first of guidedReplays; none if no draw was guided.
inline std::optional<extract::Candidate> guidedReplay(const Saturated& s,
                                                      const std::vector<egraph::ENodeId>& goal,
                                                      const arith::Bindings& sizes,
                                                      bool threadMapsAbove = false) {
    auto all = guidedReplays(s, goal, sizes, threadMapsAbove);
    if (all.empty()) {
        return std::nullopt;
    }
    return all.front();
}

// The 2-D blocks' runs after the local run (growVectorBlocks), where the interchange run made a
// map over the rows inside a map over vector columns.
inline const std::vector<GrowthGoal> kBlockRuns{GrowthGoal::VectorBlocking,
                                                GrowthGoal::VectorFusion, GrowthGoal::VectorFusion,
                                                GrowthGoal::VectorParallel};

// Whether a shared reduction's application is a 2-D block of R rows by one vector column:
// vector accumulators, and each element of its data one vector (the other operand's vector
// column) with R scalars (a column of a block of rows, broadcast), as a tuple of an array of
// scalars and a vector or as an array of tuples of a scalar and a vector; each step loads one
// vector for all R accumulators (a block of one row by several vector columns reads an array of
// vectors per step).
inline bool twoDimensionalBlock(const egraph::EGraph& g, egraph::ENodeId application) {
    egraph::ClassData data = g.data(g.node(application).children[2]);
    if (!vectorReduction(g, application) || !data.isData() || !g.types.isArray(data.type)) {
        return false;
    }
    lift::TypeId step = g.types.elemOf(data.type);
    bool scalars = g.types.isArray(step); // an array of (scalar, vector)
    const lift::TypeNode& pair = g.types.at(scalars ? g.types.elemOf(step) : step);
    auto has = [&](auto test) { return std::any_of(pair.elems.begin(), pair.elems.end(), test); };
    bool vector = has([&](lift::TypeId t) { return g.types.kind(t) == lift::TypeKind::Vector; });
    bool scalar = has([&](lift::TypeId t) {
        return scalars ? g.types.kind(t) == lift::TypeKind::Scalar
                       : g.types.isArray(t) &&
                             g.types.kind(g.types.elemOf(t)) == lift::TypeKind::Scalar;
    });
    return pair.kind == lift::TypeKind::Tuple && vector && scalar;
}

// Whether the replay's shared loop runs inside a thread map (one opens before the fold).
inline bool loopInThreadMap(const extract::Candidate& c) {
    size_t fold = c.text.find("ReduceSeq(fun((");
    size_t thread = std::min(c.text.find("MapGlb("), c.text.find("MapWrg("));
    return fold != std::string::npos && thread < fold;
}

} // namespace egopt::pipeline::goal_fixtures
