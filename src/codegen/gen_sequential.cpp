// The sequential patterns that run in one thread with an accumulator or a data-dependent loop:
// ReduceSeq and ReduceWhileSeq (a private accumulator; the latter breaks out of its loop where
// its predicate fails), ScanSeq (the accumulator stored after every step) and InsertionSortSeq
// (an insertion sort in the destination, as Lift's generator writes it).
#include "egopt/support/diagnostic.hpp"
#include "generator.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

// The loop of a fold over xs: each step applies the function to the accumulator and the element
// and writes into `step` (the accumulator itself, or a second buffer copied back).
void Generator::reduceLoop(NodeId fun, ViewId acc, ViewId step, ViewId xs, const Ctx& ctx,
                           const Fold& fold) {
    TypeId accT = typeOf(acc);
    Size n = program_.types.lengthOf(typeOf(xs));
    std::string var = fresh("i");
    Size idx = Size::var(var);
    bool early = fold.predicate != lift::kNoNode;
    bool loop = n != Size(1) || early; // a break needs a loop even for one element
    if (loop) {
        // Unrolled: ReduceSeqUnroll.
        code_.openFor(var, 0, n, 1, program_.node(fun).ival == lift::kUnrolled);
        env_.setRange(var, 0, n - 1);
    } else {
        idx = 0;
    }
    ViewId x = views_.access(xs, idx);
    int barriers = barriers_, globalBarriers = globalBarriers_;
    if (early) {
        bool unused = false;
        ViewId ok = applyTo(fold.predicate, {acc, x}, ctx, nullptr, unused);
        code_.breakUnless(read(ok));
    }
    Dest stepDest{step, false};
    bool wrote = false;
    ViewId r = applyTo(program_.child(fun, 0), {acc, x}, ctx, &stepDest, wrote);
    if (!wrote) {
        copyValue(step, r, accT);
    }
    if (step != acc) {
        copyAccumulator(acc, step, accT);
    }
    if (fold.prefixes) {
        copyValue(views_.access(*fold.prefixes, idx), acc, accT);
    }
    if (early && barriers_ > barriers) {
        // Work-items whose predicates differ would leave the loop at different barriers.
        failAt(program_, fun, "the functions of ReduceWhileSeq must not synchronise work-items");
    }
    if (loop && ctx.inWrg() && ctx.lclDepth == 0 && barriers_ > barriers) {
        // The step shared memory among the work-items (tiles in local memory): the next step
        // overwrites it only after every work-item has read it.
        emitBarrier(globalBarriers_ > globalBarriers ? AddrSpace::Global : AddrSpace::Local);
    }
    if (loop) {
        code_.close();
    }
}

// A scalar accumulator is a private variable updated in place. An array accumulator (register
// blocking: one accumulator per column of a block) is a private array; each step writes the
// function's result into a second private array and copies it back, so a function that reads
// other elements of the accumulator than the one it writes (a reversal, say) still sees the
// previous step's values; for the element-wise functions of register blocking the compiler
// removes the copy once it unrolls the constant-length loops.
Generator::Accumulator Generator::accumulator(NodeId fun, ViewId init, const Ctx& ctx) {
    auto& types = program_.types;
    TypeId accT = typeOf(init);
    Accumulator a;
    a.ctx = ctx;
    a.divided = dividedArray(init, accT);
    if (a.divided) {
        // A work-group's accumulator divided among its work-items (a MapLcl initialised it):
        // each work-item copies and updates only its part.
        if (program_.op(fun) != Op::ReduceSeq) {
            failAt(program_, fun,
                   "an initial value divided among work-items is supported for ReduceSeq only");
        }
        a.acc = cloneDivided(*a.divided, accT);
        copyPart(*views_.bufferOf(a.acc), *a.divided);
        a.step = cloneDivided(*a.divided, accT);
    } else if (types.isArray(accT)) {
        a.ctx.space = AddrSpace::Private;
        a.acc = allocate(fun, accT, AddrSpace::Private, a.ctx).view;
        copyValue(a.acc, init, accT);
        a.step = allocate(fun, accT, AddrSpace::Private, a.ctx).view;
    } else {
        Buffer b{fresh("acc"), AddrSpace::Private, accT, 1, true, false};
        usedTypes_.push_back(accT);
        code_.line(ctype(accT) + " " + b.name + " = " + read(init) + ";");
        a.acc = a.step = views_.mem(addBuffer(std::move(b)), accT);
    }
    return a;
}

ViewId Generator::genReduce(NodeId fun, ViewId init, ViewId xs, const Ctx& ctx, const Dest* dest) {
    auto& types = program_.types;
    TypeId accT = typeOf(init);
    Accumulator a = accumulator(fun, init, ctx);
    Fold fold;
    if (program_.op(fun) == Op::ReduceWhileSeq) {
        fold.predicate = program_.child(fun, 1);
    }
    reduceLoop(fun, a.acc, a.step, xs, a.ctx, fold);
    if (dest && a.divided) {
        copyOwnPart(views_.access(dest->view, 0), a.acc, accT, dest->final);
        return dest->view;
    }
    if (dest) {
        copyValue(views_.access(dest->view, 0), a.acc, accT);
        return dest->view;
    }
    // The accumulator's view starts at offset 0: the one-element result array is the same
    // memory seen with one more dimension.
    return views_.mem(*views_.bufferOf(a.acc), types.array(accT, 1));
}

// ScanSeq: ReduceSeq's loop, storing the accumulator into element i of the result after step i.
ViewId Generator::genScan(NodeId fun, ViewId init, ViewId xs, const Ctx& ctx, const Dest* dest) {
    std::array<TypeId, 2> argT{typeOf(init), typeOf(xs)};
    TypeId outT = infer_.apply(fun, argT, paramTypes_);
    Dest out = dest ? *dest : allocate(fun, outT, ctx.space, ctx);
    Accumulator a = accumulator(fun, init, ctx);
    Fold fold;
    fold.prefixes = out.view;
    reduceLoop(fun, a.acc, a.step, xs, a.ctx, fold);
    return out.view;
}

// InsertionSortSeq(compare) as Lift generates it, in the destination: element i, held in a
// private copy x, moves down past out[j - 1] while compare(x, out[j - 1]) is true.
//   for (i = 0; i < n; ++i) { x = xs[i]; j = i;
//     for (k = 0; k < i; ++k) { if (!compare(x, out[j - 1])) break; out[j] = out[j - 1]; j--; }
//     out[j] = x; }
ViewId Generator::genSort(NodeId fun, ViewId xs, const Ctx& ctx, const Dest* dest) {
    auto& types = program_.types;
    TypeId xsT = arrayArg(fun, xs);
    TypeId elemT = types.elemOf(xsT);
    Size n = types.lengthOf(xsT);
    Dest out = dest ? *dest : allocate(fun, xsT, ctx.space, ctx);
    std::string i = fresh("i"), j = fresh("j"), k = fresh("k");
    code_.openFor(i, 0, n, 1);
    env_.setRange(i, 0, n - 1);
    ViewId x = allocate(fun, elemT, AddrSpace::Private, ctx).view;
    copyValue(x, views_.access(xs, Size::var(i)), elemT);
    code_.intVar(j, Size::var(i), true);
    env_.setRange(j, 0, n - 1);
    code_.openFor(k, 0, Size::var(i), 1);
    env_.setRange(k, 0, n - 1);
    ViewId before = views_.access(out.view, Size::var(j) - 1);
    int barriers = barriers_;
    bool unused = false;
    ViewId goesBefore = applyTo(program_.child(fun, 0), {x, before}, ctx, nullptr, unused);
    if (barriers_ > barriers) {
        failAt(program_, fun, "the comparison of InsertionSortSeq must not synchronise work-items");
    }
    code_.breakUnless(read(goesBefore));
    copyValue(views_.access(out.view, Size::var(j)), before, elemT);
    code_.intVar(j, Size::var(j) - 1, false);
    code_.close();
    copyValue(views_.access(out.view, Size::var(j)), x, elemT);
    code_.close();
    return out.view;
}

} // namespace egopt::codegen::detail
