// Which nodes are acceptable in which thread-hierarchy context, and the contexts of their
// children (docs/extraction.md has the table).
#include "egopt/extract/context.hpp"

#include "egopt/lift/patterns.hpp"

namespace egopt::extract {

using egraph::ENode;
using lift::Loop;
using lift::Memory;
using lift::Op;
using lift::Semantics;

// 15 bits (Search::contextsOf packs it below 18): 8 levels, 3 dimensions per mask.
uint32_t Context::key() const {
    return static_cast<uint32_t>(level) | uint32_t(glb) << 3 | uint32_t(wrg) << 6 |
           uint32_t(lcl) << 9 | uint32_t(seq) << 12 | uint32_t(top) << 13 | uint32_t(shared) << 14;
}

Context Context::projected(uint8_t fields) const {
    if (level != Level::Device) {
        return *this;
    }
    Context c = *this;
    // Which dimensions a mask holds matters only where a thread map of its kind may still start
    // in this context or below it (its dimension must be new: threadMap). Below a sequential
    // loop (seq), or once computed by a thread (not top), the only thread map that may start is
    // a MapLcl at work-group level, which asks only whether the glb and lcl masks are empty;
    // and inside a MapLcl no MapWrg may start.
    if (!(fields & kMaskBitsField)) {
        auto anyDimension = [](uint8_t mask) { return static_cast<uint8_t>(mask ? 1 : 0); };
        if (seq || !top) {
            c.glb = anyDimension(glb);
            c.lcl = anyDimension(lcl);
        }
        if (seq || !top || lcl) {
            c.wrg = anyDimension(wrg);
        }
    }
    c.glb = fields & kGlbField ? c.glb : 0;
    c.wrg = fields & kWrgField ? c.wrg : 0;
    c.lcl = fields & kLclField ? c.lcl : 0;
    c.seq = fields & kSeqField ? seq : false;
    c.top = fields & kTopField ? top : false;
    c.shared = fields & kSharedField ? shared : false;
    return c;
}

std::string Context::show() const {
    switch (level) {
    case Level::Host:
        return seq ? "host.seq" : "host";
    case Level::HostInput:
        return "host-input";
    case Level::KernelFn:
        return "kernel-fn";
    case Level::LayoutFn:
        return "layout-fn";
    case Level::LambdaFn:
        return "lambda-fn";
    case Level::LaneFn:
        return "lane-fn";
    case Level::ViewBody:
        return "view-body";
    case Level::Device:
        break;
    }
    std::string s;
    auto dims = [&](const char* name, uint8_t mask) {
        if (mask == 0) {
            return;
        }
        s += (s.empty() ? "" : ".") + std::string(name) + "{";
        for (int d = 0; d < 3; ++d) {
            if (mask & (1u << d)) {
                s += std::to_string(d);
            }
        }
        s += "}";
    };
    dims("glb", glb);
    dims("wrg", wrg);
    dims("lcl", lcl);
    for (auto [flag, name] :
         {std::pair{seq, "seq"}, std::pair{top, "top"}, std::pair{shared, "shared"}}) {
        if (flag) {
            s += (s.empty() ? "" : ".") + std::string(name);
        }
    }
    return s.empty() ? "device" : s;
}

namespace {

// A view in generated code: a layout pattern (Filter reads its indices from memory where it is
// read) or an index function.
bool isLayout(Op op) {
    return lift::isLayoutPattern(op) || lift::isIndexFunctionOp(op);
}

uint8_t dimBit(const ENode& n) {
    return n.ival >= 0 && n.ival <= 2 ? static_cast<uint8_t>(1u << n.ival) : 0;
}

// A thread map (MapGlb/MapWrg/MapLcl) in a device context: the context of its body, or nothing.
// A map nested in one of the same kind must be at the top of the enclosing body; MapLcl at
// work-group level need not (a barrier follows it).
std::vector<ChildContexts> threadMap(const ENode& n, Context c) {
    uint8_t bit = dimBit(n);
    if (bit == 0) {
        return {};
    }
    Context inner = c;
    inner.seq = false;
    inner.top = true;
    inner.shared = false;
    bool ok = false;
    switch (lift::loopOf(n.op)) {
    case Loop::Global: // nested in MapGlb of other dimensions only, never in MapWrg/MapLcl
        ok = c.glb != 0 && c.wrg == 0 && c.lcl == 0 && !c.seq && c.top && !(c.glb & bit);
        inner.glb |= bit;
        break;
    case Loop::WorkGroup:
        ok = c.wrg != 0 && c.glb == 0 && c.lcl == 0 && !c.seq && c.top && !(c.wrg & bit);
        inner.wrg |= bit;
        break;
    case Loop::Local: // at work-group level (also in uniform loops), or at the top of a MapLcl
        ok = c.wrg != 0 && c.glb == 0 && !(c.lcl & bit) && (c.lcl == 0 || (!c.seq && c.top));
        inner.lcl |= bit;
        break;
    default:
        break;
    }
    return ok ? std::vector<ChildContexts>{{inner}} : std::vector<ChildContexts>{};
}

// An application inside a kernel. At the top of a thread map's body, the result of a layout
// function stays at the top; the arguments of anything else are computed by the thread.
std::vector<ChildContexts> deviceApply(const ENode& n, Context c) {
    size_t args = n.children.size() - 1;
    Context inThread = c;
    inThread.top = false;
    // A fold at work-group level runs in every work-item over its whole array (Context::shared).
    bool fold = args == 2 && c.workGroupLevel();
    auto with = [&](Context fn, Context arg) {
        ChildContexts cs(1, fn);
        cs.insert(cs.end(), args, arg);
        if (fold) {
            cs.back().shared = true;
        }
        return cs;
    };
    if (!c.top) {
        return {with(c, c)};
    }
    Context layout = Context::at(Level::LayoutFn);
    return {with(layout, args == 1 ? c : inThread), with(c, inThread)};
}

std::vector<ChildContexts> inDevice(const ENode& n, Context c) {
    size_t k = n.children.size();
    switch (lift::loopOf(n.op)) {
    case Loop::Global:
    case Loop::WorkGroup:
    case Loop::Local:
        return threadMap(n, c);
    case Loop::Sequential: { // MapSeq, ReduceSeq, Iterate, ScanSeq, ReduceWhileSeq, ...
        Context inner = c;
        inner.seq = true;
        inner.top = false;
        inner.shared = false;
        return {ChildContexts(k, inner)};
    }
    case Loop::Lanes: // the code generator vectorises user functions only
        return {ChildContexts(k, Context::at(Level::LaneFn))};
    case Loop::None:
        break;
    }
    switch (lift::memoryOf(n.op)) {
    case Memory::Local: // local memory belongs to a work-group
        return c.wrg != 0 ? std::vector<ChildContexts>{ChildContexts(k, c)}
                          : std::vector<ChildContexts>{};
    case Memory::Private: // private memory belongs to one thread; at work-group level a
                          // MapLcl's result is divided among the work-items (an accumulator)
        return (c.glb || c.lcl || c.seq || c.wrg) && !c.shared
                   ? std::vector<ChildContexts>{ChildContexts(k, c)}
                   : std::vector<ChildContexts>{};
    default:
        break;
    }
    switch (n.op) {
    case Op::Map: // a view when its function is one (Map(Join), Map(asVector(4)))
        return {ChildContexts(k, Context::at(Level::LayoutFn))};
    case Op::Reduce:
    case Op::PartRed:
        return {}; // not lowered
    case Op::Apply:
        return k >= 1 ? deviceApply(n, c) : std::vector<ChildContexts>{};
    default:
        return {ChildContexts(k, c)}; // expressions, lambdas, user functions, layout, toGlobal
    }
}

// An application outside a kernel.
std::vector<ChildContexts> hostApply(const ENode& n, Context c, bool multi) {
    size_t args = n.children.size() - 1;
    auto with = [&](Level fn, Context arg) {
        ChildContexts cs(1, Context::at(fn));
        cs.insert(cs.end(), args, arg);
        return cs;
    };
    // One kernel: its input is a view of the parameters. Several: any earlier kernel's result.
    Context input = multi ? Context::host() : Context::at(Level::HostInput);
    if (c.level == Level::HostInput) {
        return {with(Level::LayoutFn, input)};
    }
    // A layout view passes on whether a one-thread kernel reads the value (Context::seq).
    Context viewed = Context::host();
    viewed.seq = c.level == Level::Host && c.seq;
    std::vector<ChildContexts> alts;
    alts.push_back(with(Level::KernelFn, input)); // launches a kernel
    alts.push_back(with(Level::LayoutFn, args == 1 ? viewed : input));
    alts.push_back(with(Level::LambdaFn, input));
    ChildContexts single(n.children.size(), Context::singleThread()); // a one-thread kernel
    alts.push_back(single);
    if (multi) { // a one-thread kernel reading earlier kernels' results
        Context readByOneThread = Context::host();
        readByOneThread.seq = true;
        single.assign(n.children.size(), readByOneThread);
        single[0] = Context::singleThread();
        alts.push_back(single);
    }
    return alts;
}

// Inside a view's lambda: layout functions applied to views of variables, the lambda's own
// parameter or ones bound outside it (`fun(row => Zip $ (row, v))`, the fusion steps' pairs of
// a row with a column that a fold reads), as the code generator reads a lambda of views
// (codegen::detail::isLayoutExpr); it builds no other view there. Without the variables bound
// outside, such a map's only members a kernel could hold were its MapSeq and thread maps, which
// write every pair out before the fold reads them.
std::vector<ChildContexts> viewBody(const ENode& n) {
    if (n.op == Op::Param) {
        return {ChildContexts{}};
    }
    if (n.op != Op::Apply || n.children.size() < 2) {
        return {};
    }
    ChildContexts cs(n.children.size(), Context::at(Level::ViewBody));
    cs.front() = Context::at(Level::LayoutFn);
    // Applied to several views, the function is a Zip (Context::top at LayoutFn level): a zip of
    // arrays is a view, a Tuple of a scalar a value the code generator builds ("a field of a
    // scalar": gemv's `fun(x => Tuple $ (x, Get(1) $ t))`).
    cs.front().top = n.children.size() > 2;
    return {cs};
}

} // namespace

// What inDevice (with threadMap and deviceApply) reads of the context, case by case.
uint8_t deviceContextReads(const ENode& n) {
    switch (lift::loopOf(n.op)) {
    case Loop::Global:
    case Loop::WorkGroup:
    case Loop::Local:
        return kGlbField | kWrgField | kLclField | kSeqField | kTopField;
    case Loop::Sequential: // sets seq and clears top and shared; passes the masks on
    case Loop::Lanes:      // its children's context is fixed
        return 0;
    case Loop::None:
        break;
    }
    switch (lift::memoryOf(n.op)) {
    case Memory::Local:
        return kWrgField;
    case Memory::Private:
        return kGlbField | kWrgField | kLclField | kSeqField | kSharedField;
    default:
        break;
    }
    if (n.op == Op::Apply) { // the top's alternatives; a fold at work-group level
        return n.children.size() == 3 ? kTopField | kWrgField | kLclField : kTopField;
    }
    return 0;
}

std::vector<ChildContexts> childContexts(const ENode& n, Context c, bool multipleKernels) {
    size_t k = n.children.size();
    switch (c.level) {
    case Level::Device:
        return inDevice(n, c);
    case Level::Host:
    case Level::HostInput:
        if (n.op == Op::Apply && k >= 1) {
            return hostApply(n, c, multipleKernels);
        }
        if (n.op == Op::Param || n.op == Op::Literal) {
            return {ChildContexts{}};
        }
        if (n.op == Op::Generate) { // computed where it is read; its user function is a leaf
            return {ChildContexts(k, Context::at(Level::LaneFn))};
        }
        return {};
    case Level::KernelFn:
        if (n.op == Op::MapGlb || n.op == Op::MapWrg) {
            uint8_t bit = dimBit(n);
            Context inner = Context::at(Level::Device);
            (n.op == Op::MapGlb ? inner.glb : inner.wrg) = bit;
            inner.top = true;
            return bit ? std::vector<ChildContexts>{{inner}} : std::vector<ChildContexts>{};
        }
        if (n.op == Op::ToGlobal) {
            return {ChildContexts(k, c)};
        }
        return {};
    case Level::LayoutFn:
        // Map of a layout function (Map(Join)): a view too, as the code generator builds it. A
        // literal is a constant pad's value (PadConstant(1, 1, 0.5f)), read where the view is.
        if (n.op == Op::Literal) {
            return {ChildContexts{}};
        }
        if (c.top && n.op != Op::Zip) { // applied to several views in a view's lambda
            return {};
        }
        if (n.op == Op::Lambda && n.ival == 1) { // mapped by a view: a view of its parameter
            return {ChildContexts(k, Context::at(Level::ViewBody))};
        }
        return isLayout(n.op) || (n.op == Op::Map && k == 1)
                   ? std::vector<ChildContexts>{ChildContexts(k, c)}
                   : std::vector<ChildContexts>{};
    case Level::LambdaFn:
        if (n.op == Op::Lambda) {
            return {ChildContexts(k, Context::host())};
        }
        return {};
    case Level::LaneFn:
        return n.op == Op::UserFun ? std::vector<ChildContexts>{ChildContexts{}}
                                   : std::vector<ChildContexts>{};
    case Level::ViewBody:
        return viewBody(n);
    }
    return {};
}

std::vector<lift::TypeId> childArgTypes(const egraph::EGraph& g, const ENode& n,
                                        std::span<const lift::TypeId> types) {
    const auto& arena = g.types;
    auto elem = [&](lift::TypeId t) {
        return t != lift::kNoType && arena.isArray(t) ? arena.elemOf(t) : lift::kNoType;
    };
    switch (lift::semantics(n.op)) {
    case Semantics::Map:
        if (types.size() == 1 && elem(types[0]) != lift::kNoType) {
            return {elem(types[0])};
        }
        return {};
    case Semantics::Reduce:
    case Semantics::Scan:
    case Semantics::ReduceWhile: // the operator and the predicate take the same arguments
        if (types.size() == 2 && elem(types[1]) != lift::kNoType) {
            return {types[0], elem(types[1])};
        }
        return {};
    case Semantics::Sort: // the comparison takes two elements
        if (types.size() == 1 && elem(types[0]) != lift::kNoType) {
            return {elem(types[0]), elem(types[0])};
        }
        return {};
    case Semantics::Iterate:
    case Semantics::Place:
        return {types.begin(), types.end()};
    default:
        return {};
    }
}

} // namespace egopt::extract
