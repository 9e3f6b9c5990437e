// The default structural cost: an estimate of the work of the longest-running thread.
#include "egopt/extract/cost.hpp"

#include "egopt/lift/patterns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace egopt::extract {

using lift::Op;

double estimateSize(const arith::Size& s, const arith::Bindings& sizes, double fallback) {
    if (auto c = s.constant()) {
        return std::max<double>(1.0, static_cast<double>(*c));
    }
    std::map<std::string, arith::Size, std::less<>> repl;
    for (const std::string& v : s.variables()) {
        auto it = sizes.find(v);
        repl.emplace(v, it != sizes.end() ? arith::Size(it->second)
                                          : arith::Size(static_cast<int64_t>(fallback)));
    }
    auto c = s.substitute(repl).constant();
    return c ? std::max<double>(1.0, static_cast<double>(*c)) : fallback;
}

arith::Bindings plausibleTuning(const egraph::TuningSpace& tuning, const arith::Bindings& sizes,
                                double threads) {
    // Constraints come in creation order, so a variable's lengths mention only earlier ones.
    std::vector<std::pair<std::string, std::vector<arith::Size>>> vars;
    for (const auto& c : tuning.constraints()) {
        auto it = std::find_if(vars.begin(), vars.end(), [&](auto& v) { return v.first == c.var; });
        if (it == vars.end()) {
            vars.push_back({c.var, {}});
            it = std::prev(vars.end());
        }
        it->second.push_back(c.divides);
    }
    arith::Bindings env = sizes;
    arith::Bindings out;
    for (const auto& [var, lengths] : vars) {
        int64_t len = 0;
        for (const arith::Size& l : lengths) {
            std::optional<int64_t> n = l.evaluate(env);
            len = n && *n >= 1 ? std::gcd(len, *n) : len;
        }
        if (len == 0) {
            continue;
        }
        // At most sqrt(len) (a balanced split, tile sizes) and at most len / threads (enough
        // chunks for every global thread), but at least 8 (a split into single elements is
        // never the point).
        double target = std::max(8.0, std::min(std::sqrt(double(len)), double(len) / threads));
        int64_t v = std::clamp<int64_t>(static_cast<int64_t>(target), 1, len);
        while (len % v != 0) {
            --v;
        }
        out[var] = env[var] = v;
    }
    return out;
}

StructuralCost::StructuralCost(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                               const arith::Bindings& sizes)
    : StructuralCost(g, tuning, sizes, Params{}) {}

namespace {

// The size argument of the first node of `op` in the class (a Split's factor, a
// ReorderWithStride's stride), if any.
std::optional<arith::Size> sizeOf(const egraph::EGraph& g, egraph::EClassId c, Op op) {
    for (egraph::ENodeId id : g.eclass(c).nodes) {
        const egraph::ENode& n = g.node(id);
        if (n.op == op && !g.attrOf(n).sizes.empty()) {
            return g.attrOf(n).sizes[0];
        }
    }
    return std::nullopt;
}

// The strides s of the `Gather(ReorderWithStride(s)) $ x` applications in a data class.
std::vector<arith::Size> stridesOf(const egraph::EGraph& g, egraph::EClassId c) {
    std::vector<arith::Size> out;
    for (egraph::ENodeId id : g.eclass(c).nodes) {
        const egraph::ENode& a = g.node(id);
        if (a.op != Op::Apply || a.children.size() != 2) {
            continue;
        }
        for (egraph::ENodeId fid : g.eclass(a.children[0]).nodes) {
            const egraph::ENode& f = g.node(fid);
            if (f.op == Op::Gather && !f.children.empty()) {
                if (auto s = sizeOf(g, f.children[0], Op::ReorderStride)) {
                    out.push_back(*s);
                }
            }
        }
    }
    return out;
}

} // namespace

StructuralCost::StructuralCost(const egraph::EGraph& g, const egraph::TuningSpace& tuning,
                               const arith::Bindings& sizes, Params p)
    : p_(p), tuning_(plausibleTuning(tuning, sizes, p.glbThreads)) {
    tuning_.insert(sizes.begin(), sizes.end());
    if (p_.uncoalesced != 1) {
        indexed_ = true;
        for (egraph::EClassId c : g.classIds()) {
            if (auto s = sizeOf(g, c, Op::Split)) {
                splits_.emplace(c, std::make_pair(*s, estimateSize(*s, tuning_, p_.unknownSize)));
            }
            const egraph::ClassData& d = g.data(c);
            if (d.isData() && g.types.isArray(d.type)) {
                std::vector<arith::Size> chunks;
                for (const arith::Size& s : stridesOf(g, c)) {
                    chunks.push_back(exactDiv(g.types.lengthOf(d.type), s));
                }
                if (!chunks.empty()) {
                    strided_.emplace(c, std::move(chunks));
                }
            }
        }
        // Classes of contiguous chunks: a `Split(c) $ y` (c > 1) with y not strided by c, and
        // no strided split among the class's nodes.
        for (egraph::EClassId c : g.classIds()) {
            bool contiguous = false;
            bool strided = false;
            for (egraph::ENodeId id : g.eclass(c).nodes) {
                const egraph::ENode& a = g.node(id);
                if (a.op != Op::Apply || a.children.size() != 2) {
                    continue;
                }
                auto sp = splits_.find(g.findConst(a.children[0]));
                if (sp == splits_.end() || sp->second.second <= 1) {
                    continue;
                }
                auto st = strided_.find(g.findConst(a.children[1]));
                bool s = st != strided_.end() && std::find(st->second.begin(), st->second.end(),
                                                           sp->second.first) != st->second.end();
                (s ? strided : contiguous) = true;
            }
            if (contiguous && !strided) {
                contiguous_.insert(c);
            }
        }
    }
}

namespace {

// The outer length of the array the function is applied to (its last argument).
double lengthOf(const CostInput& in, const arith::Bindings& sizes, double fallback) {
    if (in.argTypes.empty()) {
        return fallback;
    }
    lift::TypeId t = in.argTypes.back();
    if (t == lift::kNoType || !in.graph.types.isArray(t)) {
        return fallback;
    }
    return estimateSize(in.graph.types.lengthOf(t), sizes, fallback);
}

// A host-level application whose function launches a kernel (a thread map or a one-thread
// kernel); layout views and lambdas at host level launch nothing, nor does a one-thread kernel
// whose result another one-thread kernel reads (they are one kernel).
bool launchesKernel(const CostInput& in) {
    if (in.node.op != Op::Apply || in.context.device() || in.children.empty()) {
        return false;
    }
    const Context& fn = in.children[0].context;
    bool oneThread = fn.device() && fn.glb == 0 && fn.wrg == 0 && fn.lcl == 0;
    if (oneThread && in.context.level == Level::Host && in.context.seq) {
        return false; // runs in the one-thread kernel that reads its result
    }
    return fn.level == Level::KernelFn || fn.device();
}

} // namespace

uint8_t StructuralCost::deviceContextReads(const egraph::ENode& node) const {
    return lift::isThreadMap(node.op) ? kGlbField | kWrgField | kLclField : 0;
}

double StructuralCost::threadMap(const CostInput& in, double n, double body) const {
    // A thread map nested in one of its own kind (another dimension) adds no parallelism: the
    // device's threads (groups) are already spread over the outer one. The outermost map of a
    // kind pays a little for a dimension above 0, so that candidates differing only in the
    // dimension numbering do not fill the K best with copies of one structure.
    bool nested = false;
    double threads = 1;
    double extra = 0;
    switch (lift::loopOf(in.node.op)) {
    case lift::Loop::Global:
        nested = in.context.glb != 0;
        threads = p_.glbThreads;
        break;
    case lift::Loop::WorkGroup:
        nested = in.context.wrg != 0;
        threads = p_.wrgGroups;
        break;
    default: // MapLcl: at work-group level, a barrier follows it
        nested = in.context.lcl != 0;
        threads = p_.lclThreads;
        extra = nested ? 0 : p_.barrier;
        break;
    }
    if (nested) {
        return extra + n * body;
    }
    return extra + 2.0 * std::max(0, in.node.ival) + std::ceil(n / threads) * body;
}

// `MapGlb(d, f) $ (Split(c) $ y)` or `MapLcl(d, f) $ ...` (or a toGlobal / toLocal of a map:
// its class holds every lowering, so it counts as one) with c > 1 and y not a strided gather
// that interleaves the chunks. A MapWrg over contiguous chunks is fine: its MapLcl decides.
bool StructuralCost::contiguousChunks(const CostInput& in, const arith::Bindings& sizes) const {
    if (in.node.op != Op::Apply || in.children.size() != 2) {
        return false;
    }
    const egraph::ENode& fn = in.graph.node(in.children[0].node);
    if (fn.op != Op::MapGlb && fn.op != Op::MapLcl && fn.op != Op::ToGlobal &&
        fn.op != Op::ToLocal) {
        return false;
    }
    const egraph::EGraph& g = in.graph;
    if (indexed_) {
        // By the argument's class, not its chosen term, so that the cost stays monotone in
        // the argument's cost (the K-best enumeration prunes on that).
        return contiguous_.contains(g.findConst(in.node.children[1]));
    }
    const egraph::ENode& arg = in.graph.node(in.children[1].node);
    if (arg.op != Op::Apply || arg.children.size() != 2) {
        return false;
    }
    egraph::EClassId y = g.findConst(arg.children[1]);
    std::optional<arith::Size> chunk = sizeOf(g, arg.children[0], Op::Split);
    if (!chunk || estimateSize(*chunk, sizes, p_.unknownSize) <= 1) {
        return false;
    }
    // Strided: y = Gather(ReorderWithStride(s)) $ x with s * chunk == length of y, so chunk g
    // reads g, g + s, g + 2s, ... (adjacent chunks, adjacent elements).
    const egraph::ClassData& d = g.data(y);
    if (!d.isData() || !g.types.isArray(d.type)) {
        return true;
    }
    arith::Size n = g.types.lengthOf(d.type);
    auto strides = stridesOf(g, y);
    return std::none_of(strides.begin(), strides.end(),
                        [&](const arith::Size& s) { return s * *chunk == n; });
}

namespace {

// The scalars in one value of type t (vector lanes count one each, tuples their fields).
double scalarsIn(const lift::TypeArena& types, lift::TypeId t, const arith::Bindings& sizes,
                 double fallback) {
    const lift::TypeNode& n = types.at(t);
    switch (n.kind) {
    case lift::TypeKind::Array:
        return estimateSize(n.length, sizes, fallback) *
               scalarsIn(types, n.elems[0], sizes, fallback);
    case lift::TypeKind::Tuple: {
        double sum = 0;
        for (lift::TypeId f : n.elems) {
            sum += scalarsIn(types, f, sizes, fallback);
        }
        return sum;
    }
    case lift::TypeKind::Vector:
        return n.width;
    default:
        return 1;
    }
}

} // namespace

// Params::globalStore per scalar a kernel writes to global memory, shared by the device's
// threads. Charged at the launch, by the result's type, whatever writes it (a MapGlb, the
// MapLcls of a MapWrg, a MapSeq in a global thread): an intermediate kernel's result costs
// this traffic and its consumer's reads, which fusing the two saves.
double StructuralCost::kernelStoreCost(const CostInput& in, const arith::Bindings& sizes) const {
    if (p_.globalStore == 0) {
        return 0;
    }
    const egraph::ClassData& d = in.graph.data(in.eclass);
    if (!d.isData() || d.type == lift::kNoType) {
        return 0;
    }
    return p_.globalStore * scalarsIn(in.graph.types, d.type, sizes, p_.unknownSize) /
           p_.glbThreads;
}

namespace {

// The bytes of the widest vector in a value of type t (a vector, or a tuple's fields), 0 if none.
double widestVectorBytes(const lift::TypeArena& types, lift::TypeId t) {
    if (t == lift::kNoType) {
        return 0;
    }
    const lift::TypeNode& n = types.at(t);
    if (n.kind == lift::TypeKind::Vector) {
        return static_cast<double>(types.byteSize(t));
    }
    double widest = 0;
    if (n.kind == lift::TypeKind::Tuple) {
        for (lift::TypeId f : n.elems) {
            widest = std::max(widest, widestVectorBytes(types, f));
        }
    }
    return widest;
}

} // namespace

// Params::vectorBytes: the accesses an element of `arrayType` takes, vectorBytes each.
double StructuralCost::piecesPerElement(const CostInput& in) const {
    if (p_.vectorBytes == 0 || in.argTypes.empty()) {
        return 1;
    }
    const lift::TypeArena& types = in.graph.types;
    lift::TypeId t = in.argTypes.back();
    if (t == lift::kNoType || !types.isArray(t)) {
        return 1;
    }
    return std::max(1.0, widestVectorBytes(types, types.elemOf(t)) / p_.vectorBytes);
}

// Params::vectorBytes: a lane-wise function over vectors wider than that reads them in
// interleaved pieces (the loops over such vectors count the pieces, piecesPerElement), each
// costing `uncoalesced`. The argument types are unknown inside lambdas (a bound variable's class
// has no type); there VectorizeUserFun's width counts, in floats.
double StructuralCost::wideVectorFactor(const CostInput& in) const {
    if (p_.vectorBytes == 0) {
        return 1;
    }
    double bytes = 0;
    for (lift::TypeId t : in.argTypes) {
        bytes = std::max(bytes, widestVectorBytes(in.graph.types, t));
    }
    const auto& widths = in.graph.attrOf(in.node).sizes;
    if (bytes == 0 && in.node.op == Op::VectorizeUserFun && !widths.empty()) {
        bytes = static_cast<double>(sizeof(float)) * estimateSize(widths[0], {}, 1);
    }
    return bytes > p_.vectorBytes ? p_.uncoalesced : 1;
}

double StructuralCost::cost(const CostInput& in) const {
    double children = 0;
    for (const ChildChoice& c : in.children) {
        children += c.cost;
    }
    double body = in.children.empty() ? 0 : in.children[0].cost;
    const arith::Bindings& sizes = tuning_.empty() ? in.sizes : tuning_;
    double n = 0;
    if (tuning_.empty()) {
        // in.sizes may differ from call to call
        n = lengthOf(in, sizes, p_.unknownSize) * piecesPerElement(in);
    } else {
        if (lengthsOf_ != &in.graph) {
            lengths_.clear();
            lengthsOf_ = &in.graph;
        }
        lift::TypeId arg = in.argTypes.empty() ? lift::kNoType : in.argTypes.back();
        size_t slot = arg == lift::kNoType ? 0 : size_t(arg) + 1;
        if (slot >= lengths_.size()) {
            lengths_.resize(std::max(slot + 1, in.graph.types.size() + 1),
                            std::numeric_limits<double>::quiet_NaN());
        }
        if (std::isnan(lengths_[slot])) {
            lengths_[slot] = lengthOf(in, sizes, p_.unknownSize) * piecesPerElement(in);
        }
        n = lengths_[slot];
    }
    if (lift::isThreadMap(in.node.op)) {
        // Local maps store into local memory (small, like private memory); a global or
        // work-group map's result is charged through the kernel launch that consumes it.
        return 1 + threadMap(in, n, body + (in.node.op == Op::MapLcl ? p_.store : 0));
    }
    switch (in.node.op) {
    // A map's result is stored (and read again by its consumer), which fusing it into the
    // consumer saves: a long MapSeq's per-thread array can even overflow private memory (a
    // segfault on PoCL), a MapLcl's local memory (an assertion in PoCL).
    case Op::MapSeq:
        return 1 + n * (body + p_.store);
    case Op::ReduceSeq:
        return 1 + n * body;
    // A scan stores every prefix; a reduction that may stop early is charged its whole array,
    // the predicate (its second child) included.
    case Op::ScanSeq:
        return 1 + n * (body + p_.store);
    case Op::ReduceWhileSeq:
        return 1 + n * children;
    // An insertion sort compares and moves up to n(n-1)/2 times.
    case Op::InsertionSortSeq:
        return 1 + n * std::max(1.0, (n - 1) / 2) * (body + p_.store);
    // A lane-wise function runs its lanes at once (SIMD): it costs what its scalar function
    // costs (plus a token, so that a term still costs more than its subterms).
    case Op::VectorizeUserFun:
    case Op::MapVec:
        return (0.01 + children) * wideVectorFactor(in);
    case Op::Iterate: {
        const auto& count = in.graph.attrOf(in.node).sizes;
        double k = count.empty() ? p_.unknownSize : estimateSize(count[0], sizes, 1);
        return 1 + k * body;
    }
    default:
        if (p_.uncoalesced != 1 && contiguousChunks(in, sizes)) {
            children += (p_.uncoalesced - 1) * in.children[0].cost;
        }
        return 1 + children + (launchesKernel(in) ? p_.launch + kernelStoreCost(in, sizes) : 0);
    }
}

} // namespace egopt::extract
