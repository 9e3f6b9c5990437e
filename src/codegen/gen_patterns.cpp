// Patterns that generate control flow: the thread-mapped and sequential maps (with control-flow
// simplification and barriers, CGO'17 §5.4-5.5) and Iterate with double buffering (the folds and
// the sort: gen_sequential.cpp). Also memory allocation with address spaces (CGO'17 Alg. 1).
#include "egopt/support/diagnostic.hpp"
#include "generator.hpp"

#include <algorithm>

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

int64_t Generator::upperBound(const Size& s) const {
    if (auto c = s.constant()) {
        return *c;
    }
    if (auto b = arith::bounds(s, env_)) {
        if (auto c = arith::simplify(b->max, env_).constant()) {
            return *c;
        }
    }
    badInput("codegen: the size " + s.toString() +
             " must be a constant here (private and local memory, iterate lengths): pass --size "
             "for the size variables it uses");
}

Size Generator::sizeBound(const Size& s) const {
    auto onlySizes = [&](const Size& e) {
        auto vars = e.variables();
        return std::all_of(vars.begin(), vars.end(),
                           [&](const std::string& v) { return sizeVars_.contains(v); });
    };
    if (onlySizes(s)) {
        return s;
    }
    if (auto b = arith::bounds(s, env_)) {
        Size max = arith::simplify(b->max, env_);
        if (onlySizes(max)) {
            return max;
        }
    }
    badInput("codegen: cannot bound the size " + s.toString() + " by the program's sizes");
}

void Generator::checkLowered(NodeId fun, const Ctx& ctx) const {
    const lift::Node& n = program_.node(fun);
    auto notLowered = [&](const std::string& why) {
        failAt(program_, fun, why + ": the program is not fully lowered");
    };
    const char* plainMap =
        "a plain Map has no OpenCL mapping (use MapGlb, MapWrg/MapLcl or MapSeq)";
    const char* plainReduce = "a plain reduction has no OpenCL mapping (use ReduceSeq)";
    size_t d = static_cast<size_t>(std::clamp(n.ival, 0, 2));
    switch (n.op) {
    case Op::Map:
        if (!isReadLayout(fun)) {
            notLowered(plainMap);
        }
        break;
    case Op::Reduce:
        notLowered(plainReduce);
        break;
    case Op::PartRed:
        notLowered("a partial reduction has no OpenCL mapping (write it as Join() o "
                   "MapX(ReduceSeq(f, init)) o Split(n/m))");
        break;
    case Op::MapGlb:
        if (ctx.inWrg() || ctx.lclDepth > 0) {
            notLowered("MapGlb inside MapWrg or MapLcl");
        }
        if (ctx.glb[d]) {
            notLowered("MapGlb nested in a MapGlb of the same dimension");
        }
        break;
    case Op::MapWrg:
        if (ctx.inGlb() || ctx.lclDepth > 0) {
            notLowered("MapWrg inside MapGlb or MapLcl");
        }
        if (ctx.wrg[d]) {
            notLowered("MapWrg nested in a MapWrg of the same dimension");
        }
        break;
    case Op::MapLcl:
        if (!ctx.inWrg()) {
            notLowered("MapLcl outside MapWrg");
        }
        if (ctx.lcl[d]) {
            notLowered("MapLcl nested in a MapLcl of the same dimension");
        }
        break;
    default:
        break;
    }
    if ((n.op == Op::MapGlb || n.op == Op::MapWrg || n.op == Op::MapLcl) &&
        (n.ival < 0 || n.ival > 2)) {
        failAt(program_, fun, "dimension must be 0, 1 or 2");
    }
}

void Generator::recordExtent(Op op, int dim, const Size& n) {
    auto d = static_cast<size_t>(dim);
    Size e = sizeBound(n);
    Size& slot = (op == Op::MapGlb   ? extents_.glb
                  : op == Op::MapWrg ? extents_.wrg
                                     : extents_.lcl)[d];
    if (slot == Size(0) || arith::provablyLess(slot, e, env_)) {
        slot = e;
    } else if (!arith::provablyLess(e, slot + 1, env_)) {
        // Two maps of one kind and dimension whose extents cannot be ordered symbolically.
        failAt(program_, program_.root,
               std::string(lift::opName(op)) + "(" + std::to_string(dim) + ") extents " +
                   slot.toString() + " and " + e.toString() +
                   " cannot share one launch size: bind the sizes with --size");
    }
}

int Generator::openThreadLoop(const std::string& var, const Size& first, const Size& threads,
                              const Size& n) {
    if (plan_.known) {
        Size diff = arith::simplify(n - threads, env_);
        if (diff == Size(0)) {
            code_.intVar(var, first, true); // one iteration per thread
            return 0;
        }
        if (arith::provablyLess(n, threads + 1, env_)) {
            code_.openIf(first, n); // fewer iterations than threads
            code_.intVar(var, first, true);
            return 1;
        }
    }
    code_.openFor(var, first, n, threads);
    return 1;
}

Dest Generator::allocate(NodeId at, TypeId type, AddrSpace space, const Ctx& ctx) {
    auto& types = program_.types;
    Size count = 1;
    for (TypeId t = type; types.isArray(t); t = types.elemOf(t)) {
        count = count * types.lengthOf(t);
    }
    // Private and local arrays need constant sizes; global memory is sized by the host, so it
    // may depend on symbolic sizes.
    Size elems = space == AddrSpace::Global ? sizeBound(count) : Size(upperBound(count));
    Buffer b;
    b.space = space;
    b.elemType = types.scalarBase(type);
    b.count = elems;
    usedTypes_.push_back(b.elemType);
    Size offset = 0;
    switch (space) {
    case AddrSpace::Private:
        b.name = fresh("p");
        b.scalarVar = elems == Size(1);
        privateBytes_ +=
            static_cast<size_t>(upperBound(elems)) * program_.types.byteSize(b.elemType);
        code_.line(ctype(b.elemType) + " " + b.name + (b.scalarVar ? "" : "[" + elems.toC() + "]") +
                   ";");
        break;
    case AddrSpace::Local:
        if (ctx.lclDepth > 0) {
            failAt(program_, at, "local memory allocated per local thread is not supported");
        }
        b.name = fresh("l");
        break;
    case AddrSpace::Global: {
        // One slice per enclosing map iteration, so that threads do not share a temporary.
        b.name = fresh("g");
        Size slices = 1;
        for (const auto& [index, extent] : ctx.loops) {
            Size e = sizeBound(extent);
            offset = offset * e + index;
            slices = slices * e;
        }
        offset = offset * elems;
        b.count = slices * elems;
        break;
    }
    }
    BufferId id = addBuffer(std::move(b));
    if (space == AddrSpace::Local) {
        locals_.push_back(id);
    } else if (space == AddrSpace::Global) {
        temps_.push_back(id);
    }
    return Dest{views_.mem(id, type, offset), false};
}

TypeId Generator::arrayArg(NodeId fun, ViewId xs) const {
    TypeId t = typeOf(xs);
    if (!program_.types.isArray(t)) {
        failAt(program_, fun, "applied to a non-array");
    }
    return t;
}

ViewId Generator::genMap(NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest) {
    auto& types = program_.types;
    TypeId xsT = arrayArg(fun, xs);
    Size n = types.lengthOf(xsT);
    Op op = program_.op(fun);
    int d = program_.node(fun).ival;
    auto ud = static_cast<size_t>(std::clamp(d, 0, 2));
    NodeId f = program_.child(fun, 0);
    std::array<TypeId, 1> argT{xsT};
    TypeId outT = infer_.apply(fun, argT, paramTypes_);
    AddrSpace space = annotation(f).value_or(ctx.space);
    bool divide = op == Op::MapLcl && ctx.lclDepth == 0 && space == AddrSpace::Private;
    Dest out = dest     ? *dest
               : divide ? allocateDivided(fun, outT, ctx)
                        : allocate(fun, outT, space, ctx);

    Ctx inner = ctx;
    std::string var = fresh(op == Op::MapGlb   ? "gid"
                            : op == Op::MapWrg ? "wg"
                            : op == Op::MapLcl ? "lid"
                                               : "i");
    Size idx = Size::var(var);
    int blocks = 0;
    auto thread = [d](ThreadIndex kind) { return Size::var(threadIndexVar(kind, d)); };
    switch (op) {
    case Op::MapGlb:
        recordExtent(op, d, n);
        blocks = openThreadLoop(var, thread(ThreadIndex::Global), plan_.glb[ud], n);
        inner.glb[ud] = true;
        break;
    case Op::MapWrg:
        recordExtent(op, d, n);
        blocks = openThreadLoop(var, thread(ThreadIndex::Group), plan_.wrg[ud], n);
        inner.wrg[ud] = true;
        break;
    case Op::MapLcl:
        recordExtent(op, d, n);
        blocks = openThreadLoop(var, thread(ThreadIndex::Local), plan_.lcl[ud], n);
        inner.lcl[ud] = true;
        ++inner.lclDepth;
        views_.setLocalIndex(d, oneEach(n, d) ? std::optional<Size>(idx) : std::nullopt);
        break;
    default:
        if (n == Size(1)) {
            idx = 0; // control-flow simplification: a single iteration needs no loop
        } else {
            code_.openFor(var, 0, n, 1, d == lift::kUnrolled); // unrolled: MapSeqUnroll
            blocks = 1;
        }
        break;
    }
    env_.setRange(var, 0, n - 1);
    inner.loops.emplace_back(idx, n);
    Dest elem{views_.access(out.view, idx), out.final};
    bool wrote = false;
    ViewId r = applyTo(f, {views_.access(xs, idx)}, inner, &elem, wrote);
    if (!wrote) {
        copyValue(elem.view, r, typeOf(r));
    }
    for (int i = 0; i < blocks; ++i) {
        code_.close();
    }
    if (op == Op::MapLcl) {
        views_.setLocalIndex(d, std::nullopt); // MapLcl(d) does not nest in MapLcl(d)
    }
    if (op == Op::MapLcl && ctx.lclDepth == 0 && !out.final) {
        auto b = views_.bufferOf(out.view);
        // Other local threads read what this MapLcl wrote (CGO'17 §5.4).
        emitBarrier(b ? buffers_.at(*b).space : AddrSpace::Private);
    }
    return out.view;
}

ViewId Generator::genIterate(NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest) {
    auto& types = program_.types;
    auto k = infer_.size(fun, 0).constant().value_or(0);
    NodeId f = program_.child(fun, 0);
    // The types of the iterations' results, up to the first fixed point: typing is
    // deterministic, so every later iteration has the same type (no work linear in k).
    std::vector<TypeId> ts{typeOf(xs)};
    bool fixedPoint = false;
    for (int64_t i = 0; i < k && !fixedPoint; ++i) {
        std::array<TypeId, 1> a{ts.back()};
        TypeId next = infer_.apply(f, a, paramTypes_);
        fixedPoint = i > 0 && next == ts.back();
        if (!fixedPoint) {
            ts.push_back(next);
        }
    }
    if (k <= 1) {
        bool wrote = false;
        ViewId r = k == 0 ? xs : applyTo(f, {xs}, ctx, dest, wrote);
        if (dest && !wrote) {
            copyValue(dest->view, r, ts.back());
        }
        return dest ? dest->view : r;
    }
    TypeId elem = types.elemOf(ts[1]);
    int64_t maxLen = 0, minLen = INT64_MAX;
    for (size_t i = 1; i < ts.size(); ++i) {
        if (types.elemOf(ts[i]) != elem) {
            failAt(program_, fun, "the iterated function must keep the element type");
        }
        int64_t len = upperBound(types.lengthOf(ts[i]));
        maxLen = std::max(maxLen, len);
        // The last result is no iteration's input, unless it repeats (fixed point).
        minLen = i + 1 < ts.size() || fixedPoint ? std::min(minLen, len) : minLen;
    }
    // Double buffering: the first iteration reads the input and writes buffer A; the loop then
    // alternates between A and B by swapping two pointers.
    AddrSpace space = annotation(f).value_or(ctx.space);
    Dest a = allocate(fun, types.array(elem, maxLen), space, ctx);
    Dest b = allocate(fun, types.array(elem, maxLen), space, ctx);
    Dest first{views_.mem(views_.at(a.view).buffer, ts[1], views_.at(a.view).offset), false};
    bool wrote = false;
    ViewId r = applyTo(f, {xs}, ctx, &first, wrote);
    if (!wrote) {
        copyValue(first.view, r, ts[1]);
    }
    auto pointer = [&](const Dest& d, const std::string& prefix) {
        const View& v = views_.at(d.view);
        Buffer p = buffers_.at(v.buffer);
        // A private array of one element is a scalar variable: point at it.
        std::string init =
            (p.scalarVar ? "&" : "") + p.name + (v.offset == Size(0) ? "" : " + " + v.offset.toC());
        p.name = fresh(prefix);
        p.scalarVar = false;
        std::string sp = spaceKeyword(space);
        code_.line((sp.empty() ? "" : sp + " ") + ctype(p.elemType) + "* " + p.name + " = " + init +
                   ";");
        return addBuffer(std::move(p));
    };
    BufferId in = pointer(a, "it_in"), out = pointer(b, "it_out");
    std::string len = fresh("len");
    code_.intVar(len, types.lengthOf(ts[1]), true);
    std::string it = fresh("it");
    code_.openFor(it, 1, k, 1);
    env_.setRange(len, minLen, maxLen);
    TypeId inT = types.array(elem, Size::var(len));
    std::array<TypeId, 1> inArg{inT};
    TypeId outT = infer_.apply(f, inArg, paramTypes_);
    Dest body{views_.mem(out, outT), false};
    r = applyTo(f, {views_.mem(in, inT)}, ctx, &body, wrote);
    if (!wrote) {
        copyValue(body.view, r, outT);
    }
    code_.intVar(len, types.lengthOf(outT), false);
    std::string sp = spaceKeyword(space);
    std::string ptr = (sp.empty() ? "" : sp + " ") + ctype(buffers_[in].elemType) + "*";
    code_.line(ptr + " " + "swap_" + buffers_[in].name + " = " + buffers_[in].name + "; " +
                   buffers_[in].name + " = " + buffers_[out].name + "; " + buffers_[out].name +
                   " = swap_" + buffers_[in].name + ";",
               3);
    code_.close();
    ViewId result = views_.mem(in, ts.back());
    if (dest) {
        copyValue(dest->view, result, ts.back());
        return dest->view;
    }
    return result;
}

} // namespace egopt::codegen::detail
