// The pipeline's stages (internal; pipeline.cpp strings them together).
#pragma once

#include "bench.hpp"
#include "egopt/costmodel/costmodel.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/pipeline/budget.hpp"
#include "egopt/pipeline/pipeline.hpp"
#include "egopt/pipeline/remote.hpp"
#include "egopt/pipeline/tuner.hpp"

#include <chrono>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace egopt::pipeline {

using Progress = std::function<void(const std::string&)>;

inline constexpr int64_t kDefaultTuningValue = 64; // Space::initial's target (predictAtDefaults)

// pipeline.cpp: saturation.hpp's saturate() with progress lines (gpu: the target is a GPU, see
// targetsGpu; the phases share `secondsLeft`, the time budget's share for saturation)
// Records the applications of composite rules (stated compositions) in `applications`. Returns
// the goal growth's first e-node id of its 2-D block runs (growGoalStage; the largest id where
// none ran).
egraph::ENodeId saturateStage(egraph::EGraph& g, egraph::RewriteContext& ctx,
                              const Options& options, bool gpu, double secondsLeft, Result& result,
                              const Progress& progress, egraph::Applications& applications,
                              const egraph::Focus* focus = nullptr, bool flatteningSteps = false,
                              bool growGoal = false);

struct Work;

// extract_stage.cpp: extraction, exploration and the candidates they give. targetsGpu: whether
// to optimise for a GPU (--search.target gpu, or auto on a device whose type says GPU).
bool targetsGpu(const Work& w);
// The macro rules' applications are the guides of exploration's guided draws; `tuning` is the
// space saturation drew its tuning variables from.
std::vector<extract::Candidate> extractStage(const egraph::EGraph& g,
                                             const egraph::TuningSpace& tuning,
                                             const egraph::Inserted& ins,
                                             const egraph::Applications& applications, Work& w,
                                             Result& result);
// search_stages.cpp (docs/search.md). The beam: the `options.search.beam` candidates of the pool
// the cost model predicts fastest (at its best tuning values near the defaults), one per
// algorithmic shape (the term without its maps' and reductions' lowering choices).
std::vector<extract::Candidate> selectBeam(Work& w, std::vector<extract::Candidate> pool);
// A term's algorithmic shape: its text with every thread or sequential map written `Map`, without
// its dimension, and every `ReduceSeq` written `Reduce`.
std::string shapeOf(const std::string& text);
// `found`, then those of `carried` whose text it lacks.
std::vector<extract::Candidate> withCarried(std::vector<extract::Candidate> found,
                                            const std::vector<extract::Candidate>& carried);
// The e-classes of the beam's terms (found again in `g`), the focus of the next stage.
egraph::Focus focusOf(egraph::EGraph& g, const std::vector<extract::Candidate>& beam,
                      const Progress& progress);
// Without macros: the e-classes below the newest shared reductions join the focus, so that the
// next stage goes on rewriting them (search_stages.cpp).
void addGoalRegion(const egraph::EGraph& g, egraph::Focus& focus, const Progress& progress);
// goals.cpp (docs/search-goal.md, "A shape goal"). A sharing map: a class holding `Map(fun(x =>
// body)) $ xs` whose body is a reduction that also reads a variable bound outside the lambda (a
// row of a matrix product, gemv's vector), an operand every iteration reads again.
bool isSharingMap(const egraph::EGraph& g, egraph::EClassId c);
// A sharing map whose reductions reduce vectors (the goal's vector run writes them).
bool isVectorSharingMap(const egraph::EGraph& g, egraph::EClassId c);
// Whether some class of `g` is one: the pipeline asks it of the program as inserted (gemv's rows,
// a map over a reduction's result, are not one as written).
bool hasSharingMap(const egraph::EGraph& g);
// The shared reductions of `g` that stand for a sharing map (a Reduce or ReduceSeq applied with
// an array as its initial value, in the map's class or an argument of it: several outputs
// share each element the one loop reads), at most `limit`, one per e-class; each as a guide for
// exploration's guided draws (its accumulators' toPrivate e-node and application where the
// initial value has one over an array that computes nothing, the reduction e-node, then its
// application). Those that meet
// more goal properties (goalProperties) first, the newest first among equals. Of each class the
// newest member, or with `bestMember` (exploration's guides, the growth) for vector accumulators
// the member with the most goal properties, then private accumulators, then one computing map in
// its step: a class holds a shared reduction's forms before and after fusion, and the newest need
// not be the fused one.
// With `range`, only the e-nodes of ids in [from, below) (those from before a growth run), and
// only applications `accept` takes (if set).
struct NodeRange {
    egraph::ENodeId from = 0;
    egraph::ENodeId below = std::numeric_limits<egraph::ENodeId>::max();
    bool (*accept)(const egraph::EGraph&, egraph::ENodeId) = nullptr;
};
std::vector<std::vector<egraph::ENodeId>> sharedReductions(const egraph::EGraph& g, size_t limit,
                                                           bool bestMember = false,
                                                           NodeRange range = {});
// tile_guides.cpp (docs/search.md, "Local tiles of a stencil"): at most `limit` work-groups that
// stage their element whole in local memory, oldest first, one per copied tile: `MapWrg(0,
// fun(t => ... $ (toLocal(MapLcl(0, copy)) $ t))) $ tiles`, each as a guide for exploration's
// guided draws (the copy's MapLcl, toLocal and application, each application above it that reads
// it with its function's MapLcl(0) where the class has one, then the lambda, the MapWrg and its
// application), then a shortest way up from that application to the root class `root`.
// `earlier`'s guides (an earlier stage's) come first, as the members that now have their forms.
std::vector<std::vector<egraph::ENodeId>>
localTiles(const egraph::EGraph& g, egraph::EClassId root, size_t limit,
           const std::vector<std::vector<egraph::ENodeId>>& earlier);
// Whether class c lies below the work-group's lambda of local tile guide `tile` (localTiles):
// the tile is staged around c's computation.
bool tileHolds(const egraph::EGraph& g, const std::vector<egraph::ENodeId>& tile,
               egraph::EClassId c);
// A local tile guide without the work-items' map its binding lambda's body applies (the
// reader bindsForWorkItems adds), for a guide that puts another computation there.
std::vector<egraph::ENodeId> withoutReaders(const egraph::EGraph& g,
                                            const std::vector<egraph::ENodeId>& tile);
// The member of node id's class that holds its form: an id that lost its form to an equal node
// is no edge of extraction's states, so a guide lists the member that has it.
std::optional<egraph::ENodeId> memberWithForm(const egraph::EGraph& g, egraph::ENodeId id);
// Whether a shared reduction's application reads data that computes nothing (the smallest
// term of its data calls no user function: views of variables and parameters, mapped view
// lambdas included), its operands computed in its own loop.
bool fusedReduction(const egraph::EGraph& g, egraph::ENodeId application);
// Whether its step computes in one map over the accumulators: at most one map of the step's
// smallest term calls a user function (no array of products computed in each step before they
// are added). Reported, not a goal property: the growth's fusion runs do not reach it in the
// pipeline (docs/search-goal.md, "Growing the shared reductions").
bool fusedStep(const egraph::EGraph& g, egraph::ENodeId application);
// Whether a shared reduction's accumulators are a bounded block: every length of its initial
// value's array type is made of tuning variables and constants (a split's block), none of the
// program's sizes (a whole row or column of the output).
bool boundedReduction(const egraph::EGraph& g, egraph::ENodeId application);
// Whether a shared reduction's accumulators are vectors (its initial value an array of vectors):
// each accumulator holds several adjacent outputs, so a block of them is two-dimensional, rows
// by the vectors' lanes, and each step loads one vector of the other operand for all of them.
bool vectorReduction(const egraph::EGraph& g, egraph::ENodeId application);
// How many of the register block's properties a shared reduction's application has: fused,
// bounded and vector accumulators (0 to kGoalProperties), the measure of its progress towards
// the goal.
inline constexpr int kGoalProperties = 3;
int goalProperties(const egraph::EGraph& g, egraph::ENodeId application);
// The classes of the newest `limit` shared reductions and of every sharing map.
std::vector<egraph::EClassId> goalRoots(const egraph::EGraph& g, size_t limit);
// The e-classes below `roots` (theirs and their descendants', breadth first), at most
// `maxClasses`: where a next stage goes on rewriting towards a shared reduction.
std::vector<egraph::EClassId> goalRegion(const egraph::EGraph& g,
                                         std::vector<egraph::EClassId> roots, size_t maxClasses);
// goal_growth.cpp (docs/search-goal.md, "Growing the shared reductions"). The goal property a
// growth run works towards: vector accumulators (the rule files' group `goal-vector-steps`,
// around the sharing maps and the maps above them: a map over columns read as vectors, whose
// reductions become sharing maps of vector reductions), a bounded block of accumulators
// (`goal-blocking-steps`, around the sharing maps), the operands computed in the shared loop
// (`goal-fusion-steps`, around the first shared reductions), or thread maps around the loop and
// its accumulators in private memory (`goal-parallel-steps`, on the classes above the first
// shared reductions and their initial values), or the blocks the maps above them share staged
// in local memory (`goal-local-steps`, staging.rules, on the classes above all of them).
// The 2-D blocks' own runs (goal_vectors.cpp) follow: the interchange that puts the map over
// the rows inside the map over the vector columns (`goal-interchange-steps`), then the blocking,
// fusion and parallel groups on those blocks only.
enum class GrowthGoal {
    Vector,
    Bounded,
    Fused,
    Parallel,
    Local,
    Interchange,
    VectorBlocking,
    VectorFusion,
    VectorParallel
};
// Adds the rule files `extra` from `anchor`'s directory to a phase that loads `anchor` (each
// once, where it exists; saturation.cpp).
void addBeside(Phase& phase, const char* anchor, std::initializer_list<const char*> extra);
// The rules of `phases` that `goal`'s group names (flattening.rules; Local's staging.rules, which
// no phase loads, from beside the phases' opencl.rules), in the order the phases load them
// (members the phases do not load are left out).
std::vector<egraph::Rule> goalGrowthRules(const std::vector<Phase>& phases,
                                          const egraph::Library& lib,
                                          GrowthGoal goal = GrowthGoal::Fused);
struct GrowthLimits {
    size_t reductions = 8; // the shared reductions (or sharing maps) whose terms are the focus
    size_t classes = 2000; // the focus's classes below them
    size_t iterations = 12;
    size_t nodes = 20'000; // e-nodes added
    double seconds = 10;
    // Blocking runs take sharing maps of scalar reductions only from classes below this id:
    // those the vector run makes are the program's maps interchanged on the way to vector
    // columns, not blocks to grow (without vector columns they would take the blocking run's
    // whole focus).
    egraph::EClassId scalarMapsBelow = std::numeric_limits<egraph::EClassId>::max();
    // Blocking runs take sharing maps from classes below this id only: the 2-D blocks'
    // interchange run's maps (interchangeVectorMaps) are those blocks' own runs'.
    egraph::EClassId mapsBelow = std::numeric_limits<egraph::EClassId>::max();
    // The e-nodes whose shared reductions a run's result counts (a 2-D block run's own).
    NodeRange counted{};
};
struct GrowthResult {
    egraph::RunReport run;
    size_t regionClasses = 0;
    size_t added = 0;   // e-nodes
    size_t fused = 0;   // of the first shared reductions, after the run (fusedReduction)
    size_t bounded = 0; // of the same (boundedReduction)
    size_t vector = 0;  // of the same (vectorReduction)
    double seconds = 0;
};
// One focused run of `rules` towards `goal`.
GrowthResult growGoals(egraph::EGraph& g, egraph::RewriteContext& ctx,
                       const std::vector<egraph::Rule>& rules, const GrowthLimits& limits,
                       size_t threads, GrowthGoal goal = GrowthGoal::Fused);
// One focused run of `rules` on the classes `region` (growGoals' run, on a region of its own).
GrowthResult growRegion(egraph::EGraph& g, egraph::RewriteContext& ctx,
                        const std::vector<egraph::Rule>& rules, const GrowthLimits& limits,
                        size_t threads, const std::set<egraph::EClassId>& region);
// The classes of a term: `root`s', and below them those of each class's smallest term, at most
// `maxClasses`, into `out` (goal_growth.cpp).
void termClasses(const egraph::EGraph& g, std::vector<egraph::EClassId> stack, size_t maxClasses,
                 std::set<egraph::EClassId>& out);
// The classes up to `levels` parents above `roots` (theirs included), at most `maxClasses`.
void parentsWithin(const egraph::EGraph& g, const std::vector<egraph::EClassId>& roots,
                   size_t levels, size_t maxClasses, std::set<egraph::EClassId>& out);
// The classes above `roots` up to the program's root (breadth first through the parents), at
// most `maxClasses`, only those of ids below `below`.
void classesAbove(const egraph::EGraph& g, const std::vector<egraph::EClassId>& roots,
                  size_t maxClasses, std::set<egraph::EClassId>& out,
                  egraph::EClassId below = std::numeric_limits<egraph::EClassId>::max());
// growGoals runs with the groups' rules of `phases`: one towards Vector and, if it wrote a
// sharing map of vector reductions, one each towards Bounded and Fused (a block of vector
// accumulators); then up to four, each towards the property the first shared reduction lacks
// (bounded, then fused; none once it has both); then one towards Parallel and one towards
// Local. `ran` (if set)
// hears of each run.
// The 2-D blocks' interchange run follows the vector run, their other runs the local run
// (interchangeVectorMaps, growVectorBlocks). Returns the first e-node id of those other runs.
using GrowthRun = std::function<void(GrowthGoal, const std::vector<egraph::Rule>&, GrowthResult&)>;
egraph::ENodeId growTowardsGoal(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                const std::vector<Phase>& phases, size_t threads,
                                const GrowthRun& ran = {});
// goal_vectors.cpp (docs/search-goal.md, "Vector accumulators: 2-D register blocks"): R x 4
// blocks of vector accumulators. Right after the vector run, an interchange run on `vectorMaps`
// (the sharing maps of vector reductions the vector run wrote: maps over a matrix's vector
// columns inside the program's map over the other operand's rows) puts the rows inside; it
// returns the first class id of that run (the other runs leave its maps out, GrowthLimits::
// mapsBelow). After the growth's other runs, growVectorBlocks' blocking, fusion (twice) and
// parallel runs on those maps (rowsSharingMap) and the blocks of vector accumulators they make
// only, so that the other runs' blocks of scalars keep their e-graph and guides; it returns the
// first e-node id of its runs (the blocks' e-nodes are from there on).
egraph::EClassId interchangeVectorMaps(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                       const std::vector<Phase>& phases, size_t threads,
                                       const GrowthRun& ran,
                                       const std::vector<egraph::EClassId>& vectorMaps);
egraph::ENodeId growVectorBlocks(egraph::EGraph& g, egraph::RewriteContext& ctx,
                                 const std::vector<Phase>& phases, size_t threads,
                                 const GrowthRun& ran);
// The guides of the 2-D blocks: the first `limit` shared reductions of vector accumulators among
// the e-nodes from `from` on (growVectorBlocks' own), with sharedReductions' order and best
// members.
std::vector<std::vector<egraph::ENodeId>> vectorBlocks(const egraph::EGraph& g, size_t limit,
                                                       egraph::ENodeId from);
// After the last stage's phases (--no-macros, a program with a sharing map; saturateStage's
// growGoal): growTowardsGoal with the stage's rule files, each run a phase of the report. Only
// the
// last stage: a later stage's phases would rewrite the grown forms again with every
// algorithmic rule (mm 128^3 on PoCL: stage 3's algorithmic phase then ran to its time limit),
// and the grown forms are schedules to measure, not steps to go on from.
// Returns growTowardsGoal's first e-node id of the 2-D blocks' runs.
egraph::ENodeId growGoalStage(egraph::EGraph& g, egraph::RewriteContext& ctx,
                              const Options& options, bool gpu, Result& result,
                              const Progress& progress);
// dedupe.cpp: the candidates without no-op layout chains, one per kernel (at the default tuning
// values), in their order; the others are dropped with a note.
std::vector<extract::Candidate> onePerKernel(Work& w, std::vector<extract::Candidate> candidates,
                                             Result& result);

// A validation against the interpreter at small sizes (confirm.cpp).
struct Validation {
    std::string why; // empty: valid
    arith::Bindings sizes;
    double maxError = 0;
    std::string buildLog;
};

// The state shared by tuning and confirmation: candidates, the model, the device bench, and
// every measurement made (keyed by candidate and tuning values).
struct Work {
    const Options& options;
    lift::Program& original;
    arith::Bindings sizes;
    // options.codegen with one index-simplification memo for all of the run's generations.
    codegen::Options codegen{};
    std::vector<SizeAssumption> assumed{}; // saturation's size assumptions (checked by buildAt)
    std::vector<extract::Candidate> candidates{};
    // Without macros: whether the program as written has a map of reductions sharing an operand
    // (hasSharingMap), which turns the shape goal on (docs/search-goal.md, "A shape goal"), and the
    // texts of exploration's replays of the goal: the beam's goal slots.
    bool shapeGoal = false;
    std::set<std::string> goalTexts{};
    // Without macros: the first e-node id of the growth's 2-D block runs (growVectorBlocks):
    // exploration's goal guides are the shared reductions before it, the blocks' guides those
    // from it on, each with guided slots of their own.
    egraph::ENodeId vectorBlocksFrom = std::numeric_limits<egraph::ENodeId>::max();
    // Without macros: the local tiles' guides of the first stage that found any (localTiles),
    // replayed again in the later stages.
    std::vector<std::vector<egraph::ENodeId>> tileGuides{};
    std::unique_ptr<costmodel::Model> model{};
    costmodel::DeviceProfile profile{};
    // One bench per device (Options::devices), the reference device's first; each is used by
    // one thread at a time.
    std::vector<std::unique_ptr<Bench>> benches{};
    // The source program's reference outputs at validation sizes (shared by the devices' threads).
    std::unique_ptr<References> references{};
    Progress progress;
    struct Run {
        std::optional<Timing> timing; // nullopt: failed
        std::string error;
        std::string buildLog; // the OpenCL compiler's log when the build failed
        double predicted = 0;
        double arithOps = 0;
        std::string launchJson;
        // The configuration whose run of the same kernel this one took (not run again).
        std::optional<std::pair<size_t, arith::Bindings>> sameAs;
        bool notStarted = false; // not enough time left for it
        size_t device = 0;       // the OpenCL index of the device that ran it
        int rank = 0;            // the MPI rank whose device it was (0: this process)
    };
    std::map<std::pair<size_t, arith::Bindings>, Run> runs{};
    // Runs by kernel (source and launch): a configuration whose kernel was timed already, under
    // another candidate or other values, takes that timing instead of running again.
    std::map<std::string, std::pair<size_t, arith::Bindings>> kernelRuns{};
    std::map<std::pair<size_t, arith::Bindings>, Validation> validated{};

    Budget budget;
    StageClock clock;
    // What device work has cost so far, to start none that cannot end before its deadline: the
    // most a measurement took beyond its kernel runs (generation, build, upload), and the
    // longest validation.
    double overheadSeconds = 0;
    double validateSeconds = 0;

    // Device jobs completed per MPI rank, and the devices of the worker processes (with
    // Options::remote: startWorkers).
    std::map<int, size_t> rankJobs{};
    size_t remoteDevices = 0;
    size_t reassignedJobs = 0;

    // Configurations predict() found not to fit the device (predictions run on many threads).
    mutable std::mutex unfitMutex{};
    std::set<std::pair<size_t, arith::Bindings>> unfit{};

    // The reference device's bench: early validations and the real-size cross-check run there.
    Bench& bench() const { return *benches.front(); }
    bool stopped() const { return options.stop && options.stop->requested(); }
    double elapsed() const { return budget.elapsed(); }
    // Reports the end of a stage through Options::stageDone.
    void stageDone(std::string_view stage, double seconds, std::string summary) const;
    // Seconds left for device work of stage `s`: until its share ends, or, while no candidate is
    // valid yet, until confirmation's (the time kept for confirming one).
    double window(Stage s) const;
    bool anyValid() const;
    // The fastest successful measurement so far (0: none).
    double bestSeconds() const;
    // The model's seconds for a configuration (nullopt when it does not generate or does not fit
    // the device: codegen::resourceProblem).
    std::optional<double> predict(size_t c, const arith::Bindings& values);
    std::optional<double> predict(const extract::Candidate& c, const arith::Bindings& values,
                                  bool* doesNotFit = nullptr);
    // Whether predict(c, values) found that the configuration does not fit the device (it
    // would be rejected before launch), so measuring it would only spend the tuning budget.
    bool doesNotFit(size_t c, const arith::Bindings& values) const;
    // The prediction at the candidate's default tuning values (the tuner's starting point), which
    // ranks candidates and explored terms before anything is measured.
    std::optional<double> predictAtDefaults(const extract::Candidate& c);
    // Builds and times configurations at the real sizes, spread over the devices (measure.cpp);
    // records each (and appends a record to --record) in the order given, whichever device ran
    // it and whenever it ended. nullopt where one fails to generate, build or run. An
    // interruption ends the batch at its first configuration not started: the result is then
    // shorter, and that configuration and the ones after it are not recorded.
    using Key = std::pair<size_t, arith::Bindings>;
    std::vector<std::optional<double>> measure(const std::vector<Key>& configs);
    // Validates a configuration at small sizes once on the reference device (confirm.cpp);
    // cached.
    const Validation& validate(size_t c, const arith::Bindings& values);
    // Validates configurations not validated yet, spread over the devices, each started only
    // while the longest validation so far still fits in the time left (confirm.cpp).
    void validate(const std::vector<Key>& configs);
};

// devices.cpp: the devices of a run (Options::devices, the reference device first; BadInput
// when they are not all one model), and the pool that runs jobs 0..jobs-1 on `workers` host
// threads, each job handed to the next free worker (job(j, worker)); inline when workers <= 1.
// The first exception a job throws is rethrown once every worker has stopped.
std::vector<runtime::Device> selectDevices(const Options& options);
// Bad input when a parameter or the result at these sizes is larger than the device's largest
// buffer or than its memory: refused at load, before the inputs are made on the host.
void checkDataFits(lift::Program& program, lift::TypeId resultType, const arith::Bindings& sizes,
                   const runtime::Device& device);
void forEachJob(size_t jobs, size_t workers, const std::function<void(size_t, size_t)>& job);

// Jobs that worker processes take too (docs/distributed.md): the pool hands job k to a worker
// when one has room (its message from `encode`, nullopt when `encode` settled the job here: not
// started), and gives its reply to `finish`, on the calling thread. A job whose worker dies or
// passes its time-out is handed out again, to whichever device or worker is free first; one
// lost twice goes to `abandon` instead (a kernel that kills its process is not tried on a third).
struct RemoteJobs {
    Remote& remote;
    struct Message {
        std::string bytes;
        double seconds = 0; // how long the worker may take before the job counts as lost
    };
    std::function<std::optional<Message>(size_t)> encode;
    std::function<void(size_t, const std::string& reply, int rank)> finish;
    std::function<void(size_t, const std::string& why)> abandon;
    size_t reassigned = 0; // jobs handed out again after their worker was lost
};
// forEachJob with worker processes as well as the local device threads; the same as
// forEachJob when `remote` is null.
void forEachJob(size_t jobs, size_t workers, const std::function<void(size_t, size_t)>& job,
                RemoteJobs* remote);

// devices.cpp, with Options::remote: sends the workers the run's setup and adds their devices
// to the result (BadInput when one is not the reference device's model); at the end, the
// result's ranks with the jobs each completed and why any was lost.
void startWorkers(Work& w, Result& result);
void finishWorkers(const Work& w, Result& result);

// measure.cpp: the device run of one configuration (Work::measure) and its guards.
std::string showValues(const arith::Bindings& b);
std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

// confirm.cpp: validation of each candidate's fastest configurations at small sizes, the choice
// of the best, and its real-size cross-check.
void confirm(Work& work, const TuneResult& tuned, Result& result);

// rates.cpp: the candidates' GFLOP/s from the fewest arithmetic operations any measured
// candidate executes (the useful work: a candidate that recomputes values gets no credit), and
// Kendall's tau of the predictions against the measured times (result.tau*).
void usefulRates(const Work& w, Result& result);
void correlations(const Work& w, Result& result);

// The derivation of the chosen candidate (explanations; empty when they are off), its rules
// named by the saturation's `rules`.
std::vector<std::string> derivation(egraph::EGraph& g, const egraph::RuleNames& rules,
                                    const egraph::Inserted& input,
                                    const extract::Candidate& chosen);

} // namespace egopt::pipeline
