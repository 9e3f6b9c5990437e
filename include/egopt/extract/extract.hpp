// Extraction of the K best distinct candidates the code generator accepts (docs/design.md §7,
// docs/extraction.md): a K-best search over (e-class, thread-hierarchy context) states, to a
// fixed point (cycles allowed), under a pluggable cost function; then a filter that runs the
// code generator on each candidate and keeps the first K that it accepts.
//
//     extract::ExtractOptions opt;
//     opt.sizes = {{"N", 1024}};
//     extract::StructuralCost cost;
//     auto r = extract::extractCandidates(g, ctx.tuning, root, signature, cost, opt);
//     for (auto& c : r.candidates) { c.text, c.cost, c.tuning, c.tuningValues, c.program ... }
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/rewrite_context.hpp"
#include "egopt/extract/cost.hpp"
#include "egopt/runtime/session.hpp"

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace egopt::extract {

// Exploration (docs/extraction.md, "Exploration"): random terms of the root drawn from the
// search's states after its fixed point, for a ranking that sees more than the cost function can
// (the pipeline ranks them with its cost model). A draw enters the root state and picks one of
// its edges uniformly among those whose children all have terms; each child then takes one of
// its state's listed terms with probability `keep`, or is drawn the same way, so a draw leaves
// the K best at several depths at once (an algorithmic alternative is usually a few classes
// deep: register blocking is a Join of a Map over a Split of the original map's class).
struct Candidate;

struct ExploreOptions {
    size_t draws = 0; // 0: no exploration
    double keep = 0.5;
    size_t maxDepth = 64; // below it, listed terms only
    uint64_t seed = 1;
    // Guided draws (docs/extraction.md): for each list of e-nodes, `guidedDraws` draws that take
    // an edge whose e-node is in the list wherever a state has one (another of the class's where
    // none of the list's can stand there; each draw keeps the replay that takes the most of them,
    // Candidate::guideHits), and elsewhere head for the states that lead to one (taking listed
    // terms where none does; with towardsRoot, below). The pipeline
    // passes the e-nodes each macro rule added (egraph::Applications, recorded by the runner): a
    // macro's right-hand side is a whole schedule (mm's register blocking) that the per-e-node cost
    // misranks and a uniform draw rarely assembles. The list is in the order of recording, each
    // e-node after its children: where a class holds several of its e-nodes, the replay below a
    // guide e-node tries first the one recorded last before it in that child's class (its child in
    // the right-hand side). Guided draws come first among the drawn terms; they need draws > 0.
    std::vector<std::vector<egraph::ENodeId>> guides;
    size_t guidedDraws = 4;
    // On the way down to a guide (above its e-nodes), try first the edges whose way down passes
    // the most maps over work-items (MapGlb, MapLcl; a MapWrg's work-items are its MapLcl's), so
    // that the maps around a replayed loop run in parallel where their context allows. Off: the
    // edges in random order (a macro's right-hand side holds its own thread maps). The pipeline
    // turns it on for the shape goal's guides (docs/search.md), whose e-nodes are one sequential
    // loop.
    bool threadMapsAbove = false;
    // The most maps over work-items a way down counts (threadMapsAbove) and the pipeline ranks
    // replays by: two dimensions of work-items spread a block of outputs; a third splits a block
    // the other two already spread (mm's rows split twice) and adds no work-items the tuner could
    // not give, so ways down with two or three tie, drawn in random order, and the model's
    // prediction (which reads whose dimension-0 neighbours' loads coalesce) ranks them. Counted
    // up to three, every draw of mm's 2-D blocks at 1024^3 took a third map and left B's float4
    // columns dimension 2 (docs/search-goal.md).
    static constexpr uint8_t kThreadMapsCounted = 2;
    // Above a guide, head for the class of its last e-node (its root) rather than for any of its
    // e-nodes, and only through child states nearer it (docs/extraction.md "Guided draws"): an
    // inner e-node may have other parents (a shared reduction's step function), and the
    // e-graph's cycles end ways down that pass a class again. The pipeline turns it on for the
    // shape goal's guides; macro rules' replays keep the ways down they were measured with.
    bool towardsRoot = false;
    // Off a guide's way down and around its replayed e-nodes, guided draws take their states'
    // best listed term; with this, every guided draw after a guide's first takes one of the
    // listed terms at random (its own generator: the unguided draws are as without it). The
    // extraction's contexts accept terms the code generator refuses (a copy to global memory
    // lowered as MapLcl(1, MapSeq(MapSeq(...))) above a fold: "private memory of a MapLcl used
    // outside a MapLcl(0)"), and where the best listed term off the way is one of them, every
    // replay of the guide is refused (tests/extract/test_staged_slices.cpp).
    bool varyListed = false;
};

struct ExtractOptions {
    size_t k = 16;
    // The search keeps k terms per state and k * poolFactor at the root, which the code
    // generator filter then goes through in cost order (it rejects some).
    size_t poolFactor = 8;
    arith::Bindings sizes; // concrete sizes for the code generator check and the cost function
    bool checkCodegen = true;
    // Values for tuning variables in the code generator check; missing ones get a default
    // (chooseTuningValues).
    arith::Bindings tuningValues;
    int64_t tuningTarget = 64;
    // Bound on state updates of the fixed-point search (0: 64 per state); the result says
    // whether it was reached.
    size_t maxUpdates = 0;
    codegen::Options codegen;
    // Candidates may consist of several kernels (results passed between kernels through global
    // memory; the code generator splits the program at those boundaries). Off: one kernel.
    bool multipleKernels = false;
    // When set, the filter also compiles each candidate's OpenCL source on this session, so that
    // candidates the device compiler rejects are dropped too.
    runtime::Session* buildOn = nullptr;
    // Candidates whose generated code is identical to a better one's, up to the dimension of a
    // kind of thread map that uses one dimension (MapGlb(1) alone vs MapGlb(0)), are dropped
    // (listed in ExtractResult::duplicates): toGlobal placements that change nothing, no-op
    // layouts and dimension renumberings otherwise fill the K best with copies of one kernel.
    bool distinctKernels = true;
    // Candidates costing more than this many times the best accepted one are not taken (0: no
    // bound): once near-duplicates are dropped, the K best can otherwise reach fully sequential
    // variants (mm's MapSeq nests, 4000x the best's cost) whose tuning runs take seconds each.
    double maxCostRatio = 100;
    // SearchOptions::distinctShapes for the search's lists.
    bool distinctShapes = false;
    // Exploration draws, and how many of the distinct drawn terms go through the code generator
    // filter (in the order drawn); accepted ones whose kernels are new land in
    // ExtractResult::explored.
    ExploreOptions explore;
    size_t exploreChecks = 256;
    // Refinement (docs/extraction.md): a local search from the terms `rank` orders first. Each
    // round takes the `refineSeeds` best-ranked terms not yet expanded (candidates, explored
    // terms, earlier neighbours) and checks their neighbours (one e-node swapped, e.g. a MapSeq
    // for a MapGlb, the rest kept) through the code generator filter; accepted ones join
    // `explored` and the ranking. Off unless both `rank` and `refineRounds` are set. `rank` is
    // called from several threads at once (a round's accepted terms are ranked in parallel).
    std::function<std::optional<double>(const Candidate&)>
        rank; // lower is better; nullopt: unranked
    size_t refineRounds = 0;
    size_t refineSeeds = 4;
    size_t refineChecks = 256; // neighbours through the filter, over all rounds
    // A second view of the costs (nullptr: none; the pipeline's GPU occupancy view): its
    // `secondK` best candidates whose kernels are new join the list after the first view's
    // (Candidate::secondView; their `cost` is in the second view's units).
    const CostFunction* secondCost = nullptr;
    size_t secondK = 0;
    // Deadlines (the pipeline's time budget): `stopSearch` ends the fixed-point search early,
    // keeping the terms the states hold then (ExtractStats::truncated; the root has terms once
    // the first sweep reached it); `stopExploring` ends exploration's checks and refinement.
    // Polled between steps; empty: never.
    std::function<bool()> stopSearch;
    std::function<bool()> stopExploring;
    // Given the number of search states (known before the search runs), the most terms to keep
    // per inner state (at most k; empty: k): the search's time grows with states x terms kept,
    // so a deadline can trade the depth of the K-best lists for finishing at all.
    std::function<size_t(size_t states)> perStateFor;
};

// A size variable a candidate leaves symbolic (v__K from split-join), with the lengths it must
// divide (constraints recorded by the `tuning` generator).
struct TuningVar {
    std::string name;
    std::vector<arith::Size> divides;
};

struct Candidate {
    lift::Program program; // parameters as the signature names them; tuning vars in sizeVars
    double cost = 0;
    size_t rank = 0;         // position in the ranked list before the code generator filter
    bool explored = false;   // drawn by exploration (rank: the draw's position)
    bool secondView = false; // ranked by ExtractOptions::secondCost
    bool guided = false;     // explored: a guided draw (a macro rule's schedule)
    size_t guide = 0;        // guided: the index of its guide in ExploreOptions::guides
    size_t guideHits = 0;    // guided: how many of its e-nodes are the guide's
    size_t threadMaps = 0;   // guided: the maps over work-items around the replay (MapGlb, MapLcl)
    std::string text;        // Lift-like text
    std::vector<TuningVar> tuning;
    arith::Bindings tuningValues; // the values used for the code generator check
};

struct Rejection {
    size_t rank = 0;
    double cost = 0;
    std::string text;
    std::string reason; // the code generator's (or type checker's) message
};

struct ExtractStats {
    size_t states = 0;         // (class, context, argument types) states reachable from the root
    size_t edges = 0;          // (state, node, child contexts) alternatives
    size_t terms = 0;          // distinct terms built
    size_t updates = 0;        // state list recomputations
    size_t cutCycles = 0;      // terms dropped because an e-node repeated on a path
    bool truncated = false;    // maxUpdates or the stop reached before the fixed point
    double seconds = 0;        // the search (without exploration's draws)
    double exploreSeconds = 0; // exploration's draws
    size_t guidedDrawn = 0;    // the leading drawn terms that guided draws gave
};

struct ExtractResult {
    // At most k in non-decreasing cost, then at most secondK of the second view (in its order).
    std::vector<Candidate> candidates;
    std::vector<Rejection> rejected;
    std::vector<Rejection> duplicates; // reason: the candidate whose kernel it repeats
    size_t beyondCostRatio = 0;        // ranked terms not taken: over maxCostRatio x the best
    // Exploration's accepted terms whose kernels are not among the candidates' (any cost, in
    // the order drawn), and how many distinct terms were drawn and checked.
    std::vector<Candidate> explored;
    size_t exploreDrawn = 0, exploreChecked = 0;
    // The code generator's reasons for the guided draws it refused, the first
    // kGuidedRejectionsKept (a guide whose every replay is refused is otherwise invisible).
    static constexpr size_t kGuidedRejectionsKept = 16;
    std::vector<Rejection> guidedRejected;
    size_t guidedRejectedCount = 0;
    double exploreSeconds = 0; // drawing and checking
    // Refinement: rounds run, neighbours checked, accepted (also in `explored`), seconds.
    size_t refineRounds = 0, refineChecked = 0, refineAccepted = 0;
    double refineSeconds = 0;
    ExtractStats stats;
};

// A ranked term of the root state (before the code generator filter).
struct RankedTerm {
    egraph::TermArena terms;
    egraph::TermId root = 0;
    double cost = 0;
};

// The `count` best distinct terms of `root` that are fully lowered and valid at the top level
// of a program, in non-decreasing cost order (ties broken by structure, so the order does not
// depend on e-class ids or hashing).
struct SearchOptions {
    size_t count = 16;   // terms of the root
    size_t perState = 0; // terms kept per inner state (0: count)
    arith::Bindings sizes;
    bool multipleKernels = false;
    size_t maxUpdates = 0;
    ExploreOptions explore;
    std::function<bool()> stop; // ends the search early (ExtractOptions::stopSearch)
    std::function<size_t(size_t states)> perStateFor; // ExtractOptions::perStateFor
    // Recompute only the edges of a state whose children changed, keeping each edge's best
    // terms (the same lists, docs/extraction.md); false: every edge on every update, the
    // simple algorithm the tests compare with.
    bool incremental = true;
    // Lists keep the best term of each shape (TermStore::shape: views that undo each other or
    // repeat a reordering aside) instead of each distinct term (docs/extraction.md, "Shapes").
    bool distinctShapes = false;
};
// With `explored`, also the distinct terms exploration drew (options.explore), in draw order.
std::vector<RankedTerm> extractTerms(const egraph::EGraph& g, egraph::EClassId root,
                                     const CostFunction& cost, const SearchOptions& options,
                                     ExtractStats* stats = nullptr,
                                     std::vector<RankedTerm>* explored = nullptr);

// extractTerms, conversion to programs, and the code generator filter. `tuning` is the space the
// saturation drew its tuning variables from: each candidate lists the ones it uses.
ExtractResult extractCandidates(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                                egraph::EClassId root, const egraph::Signature& sig,
                                const CostFunction& cost, const ExtractOptions& options = {});

// The tuning variables a program uses, with their constraints from the saturation's space.
std::vector<TuningVar> tuningVariables(const egraph::TuningSpace& tuning,
                                       const lift::Program& program);

// Values for the tuning variables: `fixed` where given, else the largest divisor of the
// constrained lengths (evaluated under `sizes` and the values chosen so far) that is at most
// `target`. Throws egopt::Error (BadInput) when a length cannot be evaluated.
arith::Bindings chooseTuningValues(const std::vector<TuningVar>& vars, const arith::Bindings& sizes,
                                   const arith::Bindings& fixed, int64_t target);

// A copy of the program with the given size variables replaced by values (in every size
// argument and type) and removed from its size variables.
lift::Program substituteSizes(const lift::Program& program, const arith::Bindings& values);

// A copy of the program without no-op layout chains: `Join $ (Split(k) $ x)` becomes x, nested
// ones too (`Join $ (Join $ (Split(a) $ (Split(b) $ x)))`).
lift::Program withoutNoOpLayouts(const lift::Program& program);
// The candidate without no-op layout chains and the tuning variables only they used (its text
// and program updated); nullopt when it has none. Two candidates that differ only in such a
// chain generate different index expressions for one kernel, and the chain's split factors
// would be tuned for nothing.
std::optional<Candidate> withoutNoOpLayouts(const Candidate& c);

} // namespace egopt::extract
