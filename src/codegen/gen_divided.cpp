// Private memory divided among the work-items of a work-group (CGO'17 §5.1: a private
// allocation made for a MapLcl holds one work-item's part, not the whole array). A work-group's
// register-blocked accumulator, for instance: toPrivate(MapLcl(1)(MapLcl(0)(...))) initialises
// it, a ReduceSeq over tiles of the inputs updates it, and each work-item keeps its own blocks in
// registers. The views (views.cpp, ownPart) check that every access stays in the accessing
// work-item's part, so a program whose work-items read each other's private memory is rejected
// instead of miscompiled.
#include "egopt/support/diagnostic.hpp"
#include "generator.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::NodeId;
using lift::Op;
using lift::TypeId;

// A MapLcl over n elements in dimension `dim` runs one iteration per work-item. Before the
// launch is known (the first pass) every MapLcl is taken to, as the launch is chosen from them.
bool Generator::oneEach(const Size& n, int dim) const {
    return !plan_.known ||
           arith::simplify(n - plan_.lcl.at(static_cast<size_t>(dim)), env_) == Size(0);
}

// The MapLcl whose result is each element of f's result (f is a MapLcl, or a lambda whose body
// applies one), or kNoNode.
NodeId Generator::innerLclMap(NodeId f) const {
    switch (program_.op(f)) {
    case Op::ToPrivate:
        return innerLclMap(program_.child(f, 0));
    case Op::MapLcl:
        return f;
    case Op::Lambda: {
        NodeId body = program_.lambdaBody(f);
        return program_.op(body) == Op::Apply ? innerLclMap(program_.child(body, 0))
                                              : lift::kNoNode;
    }
    default:
        return lift::kNoNode;
    }
}

// Private memory for the result of an outermost MapLcl: each of the nested MapLcls that run one
// iteration per work-item divides it further; with none, every work-item holds all of it.
Dest Generator::allocateDivided(NodeId map, TypeId type, const Ctx& ctx) {
    auto& types = program_.types;
    std::vector<std::pair<int, Size>> owners;
    TypeId part = type;
    for (NodeId m = map; m != lift::kNoNode && types.isArray(part);
         m = innerLclMap(program_.child(m, 0))) {
        int dim = program_.node(m).ival;
        Size n = types.lengthOf(part);
        if (!oneEach(n, dim)) {
            break;
        }
        owners.emplace_back(dim, n);
        part = types.elemOf(part);
    }
    if (owners.empty()) {
        return allocate(map, type, AddrSpace::Private, ctx);
    }
    BufferId b = views_.at(allocate(map, part, AddrSpace::Private, ctx).view).buffer;
    buffers_[b].perThread = buffers_[b].count;
    buffers_[b].owners = std::move(owners);
    return Dest{views_.mem(b, type), false};
}

// The divided buffer holding exactly the array `v` (of type `type`), if any.
std::optional<BufferId> Generator::dividedArray(ViewId v, TypeId type) const {
    const View& view = views_.at(v);
    if (view.kind != ViewKind::Mem || view.offset != Size(0) || view.type != type ||
        buffers_.at(view.buffer).perThread == Size(0)) {
        return std::nullopt;
    }
    return view.buffer;
}

// A new private buffer divided like `like`, seen as `type`.
ViewId Generator::cloneDivided(BufferId like, TypeId type) {
    Buffer b = buffers_.at(like);
    b.name = fresh("p");
    int64_t n = upperBound(b.perThread);
    privateBytes_ += static_cast<size_t>(n) * program_.types.byteSize(b.elemType);
    code_.line(ctype(b.elemType) + " " + b.name +
               (b.scalarVar ? "" : "[" + std::to_string(n) + "]") + ";");
    return views_.mem(addBuffer(std::move(b)), type);
}

// The work-item copies its part of `src` into its part of `dst` (both divided alike).
void Generator::copyPart(BufferId dst, BufferId src) {
    const Buffer& d = buffers_.at(dst);
    const Buffer& s = buffers_.at(src);
    if (d.scalarVar) {
        code_.line(d.name + " = " + s.name + ";");
        return;
    }
    std::string c = fresh("c");
    code_.openFor(c, 0, d.perThread, 1);
    code_.line(d.name + "[" + c + "] = " + s.name + "[" + c + "];");
    code_.close();
}

void Generator::copyAccumulator(ViewId dst, ViewId src, TypeId type) {
    auto d = dividedArray(dst, type);
    auto s = dividedArray(src, type);
    if (d && s) {
        copyPart(*d, *s);
    } else {
        copyValue(dst, src, type);
    }
}

// Outside any MapLcl, each work-item copies its own part of the divided array `src` to `dst`:
// the part at its local ids.
void Generator::copyOwnPart(ViewId dst, ViewId src, TypeId type, bool final) {
    const Buffer& b = buffers_.at(*views_.bufferOf(src));
    auto owners = b.owners;
    for (const auto& [dim, extent] : owners) {
        std::string var = fresh("lid");
        code_.intVar(var, Size::var(threadIndexVar(ThreadIndex::Local, dim)), true);
        env_.setRange(var, 0, extent - 1);
        views_.setLocalIndex(dim, Size::var(var));
        dst = views_.access(dst, Size::var(var));
        src = views_.access(src, Size::var(var));
        type = program_.types.elemOf(type);
    }
    copyValue(dst, src, type);
    for (const auto& owner : owners) {
        views_.setLocalIndex(owner.first, std::nullopt);
    }
    if (!final) {
        auto written = views_.bufferOf(dst);
        emitBarrier(written ? buffers_.at(*written).space : AddrSpace::Private);
    }
}

namespace {

constexpr const char* kLocalBarrier = "barrier(CLK_LOCAL_MEM_FENCE);";
constexpr const char* kGlobalBarrier = "barrier(CLK_GLOBAL_MEM_FENCE);";

} // namespace

void Generator::emitBarrier(AddrSpace space) {
    if (space == AddrSpace::Private) {
        return;
    }
    code_.barrier(space == AddrSpace::Local ? kLocalBarrier : kGlobalBarrier);
    ++barriers_;
    globalBarriers_ += space == AddrSpace::Global ? 1 : 0;
}

std::optional<AddrSpace> Generator::dropTrailingBarrier() {
    if (code_.dropLast(kLocalBarrier)) {
        --barriers_;
        return AddrSpace::Local;
    }
    if (code_.dropLast(kGlobalBarrier)) {
        --barriers_;
        --globalBarriers_;
        return AddrSpace::Global;
    }
    return std::nullopt;
}

} // namespace egopt::codegen::detail
