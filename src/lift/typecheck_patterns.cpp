// The typing rule of every pattern (the table in ir.hpp's header comment). Low-level patterns
// type like their high-level counterparts: the OpenCL mapping does not change types.
#include "typecheck_impl.hpp"

#include <array>
#include <vector>

namespace egopt::lift::detail {

namespace {

// Iterate re-types its function once per iteration while the length changes; beyond this many
// the program is rejected rather than spending unbounded time (fuzzed iteration counts).
constexpr int64_t kMaxIterations = 1 << 16;

std::string argName(size_t index) {
    return "argument " + std::to_string(index + 1);
}

} // namespace

TypeId TypeChecker::applyPattern(CallSite site, std::span<const TypeId> args) {
    switch (program_.op(site.fun)) {
    case Op::Map:
    case Op::MapSeq:
    case Op::MapGlb:
    case Op::MapWrg:
    case Op::MapLcl:
        return typeMap(site, args);
    case Op::MapVec:
        return typeMapVec(site, args);
    case Op::Reduce:
    case Op::ReduceSeq:
        return typeReduce(site, args);
    case Op::PartRed:
        return typePartRed(site, args);
    case Op::Iterate:
        return typeIterate(site, args);
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return applyFunction({onlyChild(site), site.apply}, args);
    case Op::Gather:
    case Op::Scatter:
    case Op::Id:
    case Op::Reorder:
        return typeReorder(site, args);
    case Op::VectorizeUserFun:
        return typeVectorize(site, args);
    case Op::ReorderStride:
    case Op::Reverse:
    case Op::Shift:
        fail(site, describe(site.fun) + " is an index function: it can only be used inside "
                                        "Gather or Scatter");
    default:
        break;
    }
    return applyDataPattern(site, args);
}

TypeId TypeChecker::applyDataPattern(CallSite site, std::span<const TypeId> args) {
    Op op = program_.op(site.fun);
    if (isExpression(op) || op == Op::Lambda || op == Op::UserFun) {
        fail(site, describe(site.fun) + " is not a function");
    }
    if (!program_.children(site.fun).empty() && op != Op::Pad) { // PadConstant's value: typePad
        fail(site, describe(site.fun) + " takes no function argument, found " +
                       std::to_string(program_.children(site.fun).size()));
    }
    switch (op) {
    case Op::Split:
        return typeSplit(site, args);
    case Op::Join:
        return typeJoin(site, args);
    case Op::Transpose:
    case Op::TransposeW:
        return typeTranspose(site, args);
    case Op::Zip:
        return typeZip(site, args);
    case Op::Unzip:
        return typeUnzip(site, args);
    case Op::Tuple:
        return typeTuple(site, args);
    case Op::Get:
        return typeGet(site, args);
    case Op::AsVector:
        return typeAsVector(site, args);
    case Op::AsScalar:
        return typeAsScalar(site, args);
    case Op::Slide:
        return typeSlide(site, args);
    case Op::Pad:
        return typePad(site, args);
    case Op::At:
        return typeAt(site, args);
    case Op::Filter:
        return typeFilter(site, args);
    default:
        break;
    }
    fail(site, "cannot type " + describe(site.fun) + ": unknown pattern");
}

// ---------------------------------------------------------------- patterns with functions

TypeId TypeChecker::typeMap(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    std::array<TypeId, 1> elem{types_.elemOf(xs)};
    TypeId result = applyFunction({f, site.apply}, elem);
    return types_.array(result, types_.lengthOf(xs));
}

TypeId TypeChecker::typeMapVec(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    expectArgCount(site, args, 1);
    const TypeNode& v = types_.at(args[0]);
    if (v.kind != TypeKind::Vector) {
        fail(site, argName(0) + " of " + describe(site.fun) + ": expected a vector, found " +
                       show(args[0]));
    }
    uint32_t width = v.width;
    std::array<TypeId, 1> lane{types_.scalar(v.scalar)};
    TypeId result = applyFunction({f, site.apply}, lane);
    return vectorizeResult(site, result, width);
}

TypeId TypeChecker::typeReduce(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    expectArgCount(site, args, 2);
    TypeId xs = expectArray(site, args, 1);
    std::array<TypeId, 2> operands{args[0], types_.elemOf(xs)};
    TypeId result = applyFunction({f, site.apply}, operands);
    expectFunctionResult(site, f, args[0], result);
    return types_.array(args[0], 1);
}

TypeId TypeChecker::typePartRed(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    expectArgCount(site, args, 2);
    TypeId xs = expectArray(site, args, 1);
    const arith::Size& m = sizeArg(site, 0, "result length");
    checkDivides(site, m, types_.lengthOf(xs), "result length");
    std::array<TypeId, 2> operands{args[0], types_.elemOf(xs)};
    TypeId result = applyFunction({f, site.apply}, operands);
    expectFunctionResult(site, f, args[0], result);
    return types_.array(args[0], m);
}

// Types f once per iteration with the actual length (which may shrink or grow each time), but
// stops early at a fixed point: typing is deterministic, so later iterations would agree.
TypeId TypeChecker::typeIterate(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    expectArgCount(site, args, 1);
    expectArray(site, args, 0);
    int64_t k = constantSize(site, 0, "iteration count");
    if (k < 0) {
        fail(site, describe(site.fun) + ": the iteration count must not be negative");
    }
    std::array<TypeId, 1> current{args[0]};
    for (int64_t i = 0; i < k; ++i) {
        if (i == kMaxIterations) {
            fail(site, describe(site.fun) + ": too many iterations to type-check (more than " +
                           std::to_string(kMaxIterations) + ")");
        }
        TypeId next = applyFunction({f, site.apply}, current);
        checkIterateStep(site, current[0], next);
        if (next == current[0]) {
            break;
        }
        current[0] = next;
    }
    return current[0];
}

TypeId TypeChecker::typeReorder(CallSite site, std::span<const TypeId> args) {
    Op op = program_.op(site.fun);
    if (op == Op::Gather || op == Op::Scatter) {
        NodeId r = onlyChild(site);
        if (isExpression(program_.op(r))) {
            fail(site, "the index function of " + describe(site.fun) + " is not a function");
        }
    } else if (!program_.children(site.fun).empty()) {
        fail(site, describe(site.fun) + " takes no function argument");
    }
    expectArgCount(site, args, 1);
    if (op != Op::Id) {
        expectArray(site, args, 0);
    }
    return args[0];
}

TypeId TypeChecker::typeVectorize(CallSite site, std::span<const TypeId> args) {
    NodeId f = onlyChild(site);
    uint32_t width = vectorWidth(site, 0);
    std::vector<TypeId> lanes;
    lanes.reserve(args.size());
    bool vectors = false;
    for (size_t i = 0; i < args.size(); ++i) {
        TypeId lane = devectorize(args[i], width);
        // A numeric scalar is broadcast to every lane (a value the vectorised lambda captures).
        bool broadcast = lane == kNoType && types_.kind(args[i]) == TypeKind::Scalar;
        if (lane == kNoType && !broadcast) {
            fail(site, argName(i) + " of " + describe(site.fun) + ": expected a vector of width " +
                           std::to_string(width) + ", found " + show(args[i]));
        }
        vectors = vectors || !broadcast;
        lanes.push_back(broadcast ? args[i] : lane);
    }
    if (!vectors) {
        fail(site, describe(site.fun) + " needs at least one vector argument");
    }
    TypeId result = applyFunction({f, site.apply}, lanes);
    return vectorizeResult(site, result, width);
}

// ---------------------------------------------------------------- data layout

TypeId TypeChecker::typeSplit(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    const arith::Size& k = sizeArg(site, 0, "chunk size");
    const arith::Size& n = types_.lengthOf(xs);
    checkDivides(site, k, n, "chunk size");
    return types_.array(types_.array(types_.elemOf(xs), k), exactDiv(n, k));
}

TypeId TypeChecker::typeJoin(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId outer = expectNestedArray(site, args, 0);
    TypeId inner = types_.elemOf(outer);
    arith::Size length = types_.lengthOf(inner) * types_.lengthOf(outer);
    return types_.array(types_.elemOf(inner), length);
}

TypeId TypeChecker::typeTranspose(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId outer = expectNestedArray(site, args, 0);
    TypeId inner = types_.elemOf(outer);
    TypeId swapped = types_.array(types_.elemOf(inner), types_.lengthOf(outer));
    return types_.array(swapped, types_.lengthOf(inner));
}

TypeId TypeChecker::typeZip(CallSite site, std::span<const TypeId> args) {
    int32_t arity = program_.node(site.fun).ival;
    if (arity < 1) {
        fail(site, describe(site.fun) + ": invalid arity " + std::to_string(arity));
    }
    expectArgCount(site, args, static_cast<size_t>(arity));
    std::vector<TypeId> fields;
    const arith::Size& n = types_.lengthOf(expectArray(site, args, 0));
    for (size_t i = 0; i < args.size(); ++i) {
        TypeId elem = types_.elemOf(expectArray(site, args, i));
        expectEqual(site, i, types_.array(elem, n), args[i]);
        fields.push_back(elem);
    }
    return types_.array(types_.tuple(fields), n);
}

TypeId TypeChecker::typeUnzip(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    TypeNode elem = types_.at(types_.elemOf(xs)); // copy: interning below may reallocate
    if (elem.kind != TypeKind::Tuple) {
        fail(site, argName(0) + " of " + describe(site.fun) +
                       ": expected an array of tuples, found " + show(xs));
    }
    std::vector<TypeId> arrays;
    for (TypeId field : elem.elems) {
        arrays.push_back(types_.array(field, types_.lengthOf(xs)));
    }
    return types_.tuple(arrays);
}

TypeId TypeChecker::typeTuple(CallSite site, std::span<const TypeId> args) {
    int32_t arity = program_.node(site.fun).ival;
    if (arity < 1) {
        fail(site, describe(site.fun) + ": invalid arity " + std::to_string(arity));
    }
    expectArgCount(site, args, static_cast<size_t>(arity));
    return types_.tuple(args);
}

TypeId TypeChecker::typeGet(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    const TypeNode& t = types_.at(args[0]);
    if (t.kind != TypeKind::Tuple) {
        fail(site, argName(0) + " of " + describe(site.fun) + ": expected a tuple, found " +
                       show(args[0]));
    }
    int32_t field = program_.node(site.fun).ival;
    if (field < 0 || static_cast<size_t>(field) >= t.elems.size()) {
        fail(site, describe(site.fun) + " on " + show(args[0]) + ": the tuple has only " +
                       std::to_string(t.elems.size()) + " fields");
    }
    return t.elems[static_cast<size_t>(field)];
}

TypeId TypeChecker::typeAsVector(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    uint32_t width = vectorWidth(site, 0);
    const TypeNode& elem = types_.at(types_.elemOf(xs));
    if (elem.kind != TypeKind::Scalar) {
        fail(site, argName(0) + " of " + describe(site.fun) +
                       ": expected an array of scalars, found " + show(xs));
    }
    ScalarKind scalar = elem.scalar;
    const arith::Size& n = types_.lengthOf(xs);
    checkDivides(site, arith::Size(width), n, "vector width");
    return types_.array(types_.vector(scalar, width), exactDiv(n, arith::Size(width)));
}

TypeId TypeChecker::typeAsScalar(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    const TypeNode& elem = types_.at(types_.elemOf(xs));
    if (elem.kind != TypeKind::Vector) {
        fail(site, argName(0) + " of " + describe(site.fun) +
                       ": expected an array of vectors, found " + show(xs));
    }
    ScalarKind scalar = elem.scalar;
    arith::Size length = types_.lengthOf(xs) * arith::Size(elem.width);
    return types_.array(types_.scalar(scalar), length);
}

// With constant sizes the number of windows is computed exactly (windows that do not fit are
// dropped, as in Lift); with symbolic ones the step is asserted to divide evenly.
TypeId TypeChecker::typeSlide(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    const arith::Size& size = sizeArg(site, 0, "window size");
    const arith::Size& step = sizeArg(site, 1, "step");
    const arith::Size& n = types_.lengthOf(xs);
    expectPositive(site, size, "window size");
    expectPositive(site, step, "step");
    auto cn = n.constant();
    auto csize = size.constant();
    if (cn && csize && *csize > *cn) {
        fail(site, describe(site.fun) + " on an array of length " + std::to_string(*cn) +
                       ": the window is longer than the array");
    }
    arith::Size span = n - size + step;
    auto cspan = span.constant();
    auto cstep = step.constant();
    arith::Size windows = cspan && cstep ? arith::Size(*cspan / *cstep) : exactDiv(span, step);
    return types_.array(types_.array(types_.elemOf(xs), size), windows);
}

TypeId TypeChecker::typePad(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    const arith::Size& left = sizeArg(site, 0, "left padding");
    const arith::Size& right = sizeArg(site, 1, "right padding");
    for (const arith::Size* s : {&left, &right}) {
        auto c = s->constant();
        if (c && *c < 0) {
            fail(site, describe(site.fun) + ": padding must not be negative");
        }
    }
    int32_t boundary = program_.node(site.fun).ival;
    if (boundary < static_cast<int32_t>(PadBoundary::Clamp) ||
        boundary > static_cast<int32_t>(PadBoundary::Constant)) {
        fail(site, describe(site.fun) + ": unknown boundary handling " + std::to_string(boundary));
    }
    auto kids = program_.children(site.fun);
    bool constant = boundary == static_cast<int32_t>(PadBoundary::Constant);
    if (kids.size() != (constant ? 1u : 0u)) {
        fail(site, describe(site.fun) + (constant ? ": a constant padding needs its value"
                                                  : ": only a constant padding has a value"));
    }
    if (constant) {
        // The value fills each padded element: its type is the element's innermost non-array
        // type, a scalar or a vector.
        TypeId value = typeOfExpr(kids[0]);
        TypeId inner = types_.elemOf(xs);
        while (types_.isArray(inner)) {
            inner = types_.elemOf(inner);
        }
        if (value != inner || types_.kind(value) == TypeKind::Tuple) {
            fail(site, describe(site.fun) + ": a padding value of type " + show(value) +
                           " for elements of type " + show(types_.elemOf(xs)) +
                           " (expected a scalar or vector of the innermost element type)");
        }
    }
    return types_.array(types_.elemOf(xs), left + types_.lengthOf(xs) + right);
}

TypeId TypeChecker::typeAt(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 1);
    TypeId xs = expectArray(site, args, 0);
    auto index = sizeArg(site, 0, "index").constant();
    auto n = types_.lengthOf(xs).constant();
    if (index && (*index < 0 || (n && *index >= *n))) {
        fail(site, describe(site.fun) + " on " + show(xs) + ": index out of bounds");
    }
    return types_.elemOf(xs);
}

TypeId TypeChecker::typeFilter(CallSite site, std::span<const TypeId> args) {
    expectArgCount(site, args, 2);
    TypeId xs = expectArray(site, args, 0);
    TypeId ids = expectArray(site, args, 1);
    expectEqual(site, 1, types_.array(types_.intType(), types_.lengthOf(ids)), ids);
    return types_.array(types_.elemOf(xs), types_.lengthOf(ids));
}

// ---------------------------------------------------------------- helpers for vectors, Iterate

void TypeChecker::checkIterateStep(CallSite site, TypeId in, TypeId out) const {
    bool ok = types_.isArray(out) && types_.elemOf(out) == types_.elemOf(in);
    if (ok) {
        const arith::Size& n = types_.lengthOf(in);
        const arith::Size& m = types_.lengthOf(out);
        bool constants = n.isConstant() && m.isConstant();
        ok = constants || exactDiv(m, n).isConstant() || exactDiv(n, m).isConstant();
    }
    if (!ok) {
        fail(site, "the function of " + describe(site.fun) + " must map " + show(in) +
                       " to an array of " + show(types_.elemOf(in)) +
                       " whose length is scaled by a constant factor, found " + show(out));
    }
}

uint32_t TypeChecker::vectorWidth(CallSite site, size_t sizeIndex) const {
    int64_t w = constantSize(site, sizeIndex, "vector width");
    if (w != 2 && w != 3 && w != 4 && w != 8 && w != 16) {
        fail(site, describe(site.fun) + ": vector width must be 2, 3, 4, 8 or 16, found " +
                       std::to_string(w));
    }
    return static_cast<uint32_t>(w);
}

TypeId TypeChecker::devectorize(TypeId t, uint32_t width) {
    TypeNode n = types_.at(t); // copy: interning below may reallocate
    if (n.kind == TypeKind::Vector) {
        return n.width == width ? types_.scalar(n.scalar) : kNoType;
    }
    if (n.kind != TypeKind::Tuple) {
        return kNoType;
    }
    std::vector<TypeId> lanes;
    for (TypeId field : n.elems) {
        lanes.push_back(devectorize(field, width));
        if (lanes.back() == kNoType) {
            return kNoType;
        }
    }
    return types_.tuple(lanes);
}

TypeId TypeChecker::vectorizeResult(CallSite site, TypeId lane, uint32_t width) {
    TypeNode n = types_.at(lane); // copy: interning below may reallocate
    if (n.kind == TypeKind::Scalar) {
        return types_.vector(n.scalar, width);
    }
    if (n.kind != TypeKind::Tuple) {
        fail(site, "the function of " + describe(site.fun) +
                       " must return a scalar (or a tuple of scalars), found " + show(lane));
    }
    std::vector<TypeId> fields;
    for (TypeId field : n.elems) {
        fields.push_back(vectorizeResult(site, field, width));
    }
    return types_.tuple(fields);
}

} // namespace egopt::lift::detail
