// Internal to the code generator: the kernel body generator. It walks the lowered program once,
// in destination-passing style: every expression is generated with an optional destination view
// (where its value must be stored); data-layout patterns turn the destination into a view for
// their argument (Join -> split destination, Scatter -> gathered destination, ...), so producers
// (maps, reductions, user-function calls) write straight to the final location and layout
// patterns never copy.
#pragma once

#include "egopt/codegen/codegen.hpp"
#include "infer.hpp"
#include "stages.hpp"
#include "views.hpp"

#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace egopt::codegen::detail {

// Where a value must be written; `final` marks the work-group's output (never read again by the
// work-group, so the MapLcl writing it needs no barrier).
struct Dest {
    ViewId view = 0;
    bool final = false;
};

// The thread hierarchy and annotations around the code being generated.
struct Ctx {
    AddrSpace space = AddrSpace::Global; // for outputs without a toX annotation
    std::array<bool, 3> glb{}, wrg{}, lcl{};
    int lclDepth = 0; // inside MapLcl bodies: barriers would diverge
    // Enclosing map indices and extents (outermost first): per-thread slices of global temps.
    std::vector<std::pair<arith::Size, arith::Size>> loops;
    bool inWrg() const { return wrg[0] || wrg[1] || wrg[2]; }
    bool inGlb() const { return glb[0] || glb[1] || glb[2]; }
};

// Thread counts per dimension, fixed by the launch configuration (pass 2), and the map extents
// seen while generating (pass 1 collects them to choose the launch).
struct ThreadPlan {
    bool known = false;
    std::array<arith::Size, 3> glb{1, 1, 1}, wrg{1, 1, 1}, lcl{1, 1, 1};
};
// The largest extent of each kind of thread-mapped map per dimension (0: none); expressions over
// unbound size variables in symbolic kernels.
struct Extents {
    std::array<arith::Size, 3> glb{0, 0, 0}, wrg{0, 0, 0}, lcl{0, 0, 0};
};

// A top-level result computed by an earlier kernel, read from an intermediate buffer.
struct Materialized {
    lift::NodeId node = lift::kNoNode;
    std::string name;
    lift::TypeId type = 0;
    int index = 0; // in GeneratedCode::intermediates
};

// What one kernel computes (docs/design.md §8: kernels split at work-group boundaries, stages.hpp).
struct KernelSpec {
    lift::NodeId root = lift::kNoNode; // the expression computed
    std::string outputName = "out";
    std::vector<int> params;                                 // top-level parameters it reads
    std::vector<Materialized> inputs;                        // earlier kernels' results it reads
    std::vector<std::pair<lift::NodeId, lift::NodeId>> lets; // let parameter -> argument
};

// The kernel body being generated: its text, one statement or block header per line, and its
// facts (codegen::KernelNode), built side by side so that the facts describe exactly the text.
class Code {
public:
    Code() : open_{&body_} {}
    Code(const Code&) = delete;
    Code& operator=(const Code&) = delete;

    // A line of `statements` C statements (more when the views logged more stores); its facts
    // are the accesses and calls the views logged since the previous line (log()).
    void line(const std::string& s, int statements = 1);
    // `int var = value;` (declare) or `var = value;`.
    void intVar(const std::string& var, const arith::Size& value, bool declare);
    void barrier(const std::string& s);
    // `if (!(condition)) break;`
    void breakUnless(const std::string& condition);
    // `for (int var = init; var < bound; ++var | var += step) {`, after `#pragma unroll` if asked.
    void openFor(const std::string& var, const arith::Size& init, const arith::Size& bound,
                 const arith::Size& step, bool unrolled = false);
    // `if (lhs < rhs) {`.
    void openIf(const arith::Size& lhs, const arith::Size& rhs);
    void close();
    // Removes the last line when it is `s` (at the current depth), with its facts; whether it did.
    bool dropLast(const std::string& s);

    const std::string& text() const { return text_; }
    std::vector<KernelNode> takeFacts() { return std::move(body_); }
    StatementLog& log() { return log_; }

private:
    void emit(const std::string& s) { text_ += std::string(2 * depth_, ' ') + s + "\n"; }
    KernelNode& add(KernelNode node);

    std::string text_;
    int depth_ = 1;
    std::vector<KernelNode> body_;
    // The blocks open for appending, innermost last (each the body of the last node of the one
    // before, which grows no more while it is open: the pointers stay valid).
    std::vector<std::vector<KernelNode>*> open_;
    StatementLog log_;
};

class Generator {
public:
    Generator(lift::Program& program, const arith::Bindings& sizes, ThreadPlan plan,
              std::shared_ptr<arith::SimplifyMemo> memo = nullptr);

    // Generates the body of the kernel computing `spec.root`; fills buffers(), code(), ...
    void run(const KernelSpec& spec);

    const std::vector<Buffer>& buffers() const { return buffers_; }
    const std::vector<BufferId>& params() const { return paramBuffers_; }
    const std::vector<int>& paramIndexOfArg() const { return paramIndex_; }
    BufferId output() const { return output_; }
    lift::TypeId outputType() const { return outputType_; }
    const std::vector<BufferId>& temps() const { return temps_; }
    // Buffers of earlier kernels' results, as (buffer, index in intermediates).
    const std::vector<std::pair<BufferId, int>>& inputs() const { return inputs_; }
    const std::vector<BufferId>& locals() const { return locals_; }
    const std::string& body() const { return code_.text(); }
    // The body's facts and the index functions its accesses use, moved out once generated.
    KernelFacts takeFacts() { return {code_.takeFacts(), views_.indexFunctions()}; }
    const Extents& extents() const { return extents_; }
    int barriers() const { return barriers_; }
    // Bytes of private memory declared per work-item (every private allocation counted once,
    // an upper bound: allocations in disjoint scopes could share memory).
    size_t privateBytes() const { return privateBytes_; }
    // (user function index, vector width or 0) in first-use order.
    const std::vector<std::pair<int, int>>& userFuns() const { return userFuns_; }
    std::vector<lift::TypeId> tupleTypes() const;
    bool usesPadHelpers() const { return padHelpers_; }
    lift::TypeArena& types() { return program_.types; }
    TypeInference& inference() { return infer_; }

private:
    // --- expressions and application (generator.cpp)
    std::string literalText(lift::NodeId literal);
    ViewId generatorView(lift::NodeId generate);
    void useUserFun(int userFun, int width);
    ViewId gen(lift::NodeId expr, const Ctx& ctx, const Dest* dest, bool& wrote);
    ViewId produce(lift::NodeId expr, const Ctx& ctx, const Dest* dest);
    ViewId genApply(lift::NodeId apply, const Ctx& ctx, const Dest* dest, bool& wrote);
    ViewId applyTo(lift::NodeId fun, std::vector<ViewId> args, const Ctx& ctx, const Dest* dest,
                   bool& wrote);
    ViewId applyLambda(lift::NodeId fun, std::vector<ViewId> args, const Ctx& ctx, const Dest* dest,
                       bool& wrote);
    ViewId callUserFun(lift::NodeId fun, int userFun, int width, std::vector<ViewId> args,
                       const Dest* dest, bool& wrote);
    ViewId layoutView(lift::NodeId fun, const std::vector<ViewId>& args);
    std::optional<ViewId> inverseDest(lift::NodeId fun, lift::TypeId argType, ViewId dest);
    // A function of one array that only rearranges it (a view, no code): Join, Split,
    // Transpose, Gather, ..., and a plain Map of one (Lift's Map(Join()) after lowering).
    bool isLayout1(lift::NodeId fun) const;
    bool isReadLayout(lift::NodeId fun) const;
    // A layout that Lift applies on the write side of a producer (TransposeW, Scatter, a Map of
    // one).
    bool writeLayout(lift::NodeId fun) const;
    ViewId mapOfView(lift::NodeId map, ViewId xs);
    std::optional<ViewId> mapOfInverse(lift::NodeId map, lift::TypeId argType, ViewId dest);
    void copyValue(ViewId dst, ViewId src, lift::TypeId type);
    std::optional<AddrSpace> annotation(lift::NodeId fun) const;
    std::optional<AddrSpace> exprAnnotation(lift::NodeId expr) const;

    // --- patterns with code (gen_patterns.cpp)
    ViewId genMap(lift::NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest);
    ViewId genIterate(lift::NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest);
    void checkLowered(lift::NodeId fun, const Ctx& ctx) const;
    // Opens the loop, `if` or nothing that runs index `var` over [0, n) on `threads` threads
    // starting at `first` (a thread index); returns the number of blocks opened.
    int openThreadLoop(const std::string& var, const arith::Size& first, const arith::Size& threads,
                       const arith::Size& n);
    Dest allocate(lift::NodeId at, lift::TypeId type, AddrSpace space, const Ctx& ctx);

    // --- the sequential folds and the sort (gen_sequential.cpp)
    // What a fold's loop does besides the step.
    struct Fold {
        std::optional<ViewId> prefixes;         // ScanSeq: every step's accumulator, stored
        lift::NodeId predicate = lift::kNoNode; // ReduceWhileSeq: breaks the loop when false
    };
    struct Accumulator {
        ViewId acc = 0;
        ViewId step = 0; // where a step writes (acc, or a second array copied back)
        std::optional<BufferId> divided;
        Ctx ctx; // the step's context
    };
    Accumulator accumulator(lift::NodeId fun, ViewId init, const Ctx& ctx);
    // ReduceSeq and ReduceWhileSeq.
    ViewId genReduce(lift::NodeId fun, ViewId init, ViewId xs, const Ctx& ctx, const Dest* dest);
    void reduceLoop(lift::NodeId fun, ViewId acc, ViewId step, ViewId xs, const Ctx& ctx,
                    const Fold& fold);
    ViewId genScan(lift::NodeId fun, ViewId init, ViewId xs, const Ctx& ctx, const Dest* dest);
    ViewId genSort(lift::NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest);

    // --- private memory divided among work-items (gen_divided.cpp)
    bool oneEach(const arith::Size& n, int dim) const;
    lift::NodeId innerLclMap(lift::NodeId f) const;
    Dest allocateDivided(lift::NodeId map, lift::TypeId type, const Ctx& ctx);
    std::optional<BufferId> dividedArray(ViewId v, lift::TypeId type) const;
    ViewId cloneDivided(BufferId like, lift::TypeId type);
    void copyPart(BufferId dst, BufferId src);
    void copyAccumulator(ViewId dst, ViewId src, lift::TypeId type);
    void copyOwnPart(ViewId dst, ViewId src, lift::TypeId type, bool final);
    void emitBarrier(AddrSpace space);
    // Removes a barrier that is the last line generated; its fence's address space.
    std::optional<AddrSpace> dropTrailingBarrier();
    int64_t upperBound(const arith::Size& s) const;
    // An upper bound over the size variables only (no thread or loop indices).
    arith::Size sizeBound(const arith::Size& s) const;
    void recordExtent(lift::Op op, int dim, const arith::Size& n);

    // --- helpers
    std::string fresh(const std::string& prefix) { return prefix + "_" + std::to_string(next_++); }
    std::string read(ViewId v, Path path = {}) const {
        return views_.read(v, std::move(path), env_);
    }
    void bindParam(lift::NodeId param, ViewId view);
    void bindParamIndex(size_t index, ViewId view);
    BufferId addBuffer(Buffer b);
    std::string ctype(lift::TypeId t) const { return program_.types.cName(t); }
    lift::TypeId typeOf(ViewId v) const { return views_.at(v).type; }
    // The type of `xs`, which `fun` needs to be an array.
    lift::TypeId arrayArg(lift::NodeId fun, ViewId xs) const;

    lift::Program& program_;
    TypeInference infer_;
    ThreadPlan plan_;
    std::vector<Buffer> buffers_;
    ViewArena views_;
    arith::RangeEnv env_; // ranges of unbound sizes, thread and loop indices
    std::set<std::string, std::less<>> sizeVars_; // unbound size variables
    Code code_;
    std::vector<ViewId> paramViews_;       // by parameter index (kNone if unbound)
    std::vector<lift::TypeId> paramTypes_; // by parameter index, for type inference
    std::vector<BufferId> paramBuffers_;   // kernel input buffers (and scalars), in order
    std::vector<int> paramIndex_;          // parameter index of each kernel input
    std::vector<BufferId> temps_, locals_;
    std::vector<std::pair<BufferId, int>> inputs_;
    std::vector<std::pair<lift::NodeId, ViewId>> materialized_; // earlier kernels' results
    BufferId output_ = 0;
    lift::TypeId outputType_ = 0;
    Extents extents_;
    int barriers_ = 0;
    int globalBarriers_ = 0;
    size_t privateBytes_ = 0;
    int next_ = 0;
    bool padHelpers_ = false;
    std::vector<std::pair<int, int>> userFuns_;
    std::vector<lift::TypeId> usedTypes_; // types whose C names appear (tuples need typedefs)
};

} // namespace egopt::codegen::detail
