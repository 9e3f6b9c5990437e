// The type rule of every pattern (pattern_typing.hpp), dispatched on the pattern's Semantics
// (patterns.hpp): the lowered patterns type like their high-level counterparts, since the OpenCL
// mapping does not change types. The checks and their messages are the front end's; the other
// callers report them through their TypingSite.
#include "egopt/lift/pattern_typing.hpp"

#include "egopt/lift/patterns.hpp"
#include "pattern_checks.hpp"

#include <algorithm>
#include <array>

namespace egopt::lift {

namespace {

using detail::argName;
using detail::constantWidth;
using detail::vectorizeLanes;

// Iterate re-types its function once per iteration while the length changes; beyond this many
// the program is rejected rather than spending unbounded time (fuzzed iteration counts).
constexpr int64_t kMaxIterations = 1 << 16;

// One application of a pattern: the rule of its Semantics with the checks it needs.
class Rule : private detail::RuleChecks {
public:
    Rule(TypingSite& site, const PatternUse& use, std::span<const TypeId> args)
        : RuleChecks(site, use, args) {}

    TypeId run() {
        const PatternInfo& info = patternInfo(use_.op);
        switch (info.kind) {
        case PatternKind::Expression:
        case PatternKind::Function:
            fail(site_.describe() + " is not a function");
        case PatternKind::IndexFunction:
            fail(site_.describe() + " is an index function: it can only be used inside "
                                    "Gather or Scatter");
        case PatternKind::Computation:
            return computation(info.semantics);
        case PatternKind::Layout:
            break;
        }
        Semantics s = info.semantics;
        if (s == Semantics::Gather || s == Semantics::Scatter || s == Semantics::Reorder ||
            s == Semantics::Identity) {
            return reorder(s);
        }
        if (use_.numChildren != 0 && s != Semantics::Pad) { // PadConstant's value: pad()
            fail(site_.describe() + " takes no function argument, found " +
                 std::to_string(use_.numChildren));
        }
        return layout(s);
    }

private:
    TypeId computation(Semantics s) {
        switch (s) {
        case Semantics::Map:
            return map();
        case Semantics::MapLanes:
            return mapLanes();
        case Semantics::Reduce:
        case Semantics::PartialReduce:
            return reduce(s == Semantics::PartialReduce);
        case Semantics::Iterate:
            return iterate();
        case Semantics::Scan:
            return scan();
        case Semantics::ReduceWhile:
            return reduceWhile();
        case Semantics::Sort:
            return sort();
        case Semantics::Place:
            onlyChild();
            return site_.applyChild(0, args_);
        case Semantics::VectorizeFun:
            return vectorizeFun();
        default:
            break;
        }
        fail("cannot type " + site_.describe() + ": unknown pattern");
    }

    TypeId layout(Semantics s) {
        switch (s) {
        case Semantics::Split:
            return split();
        case Semantics::Join:
            return join();
        case Semantics::Transpose:
            return transpose();
        case Semantics::Zip:
            return zip();
        case Semantics::Unzip:
            return unzip();
        case Semantics::Tuple:
            return tuple();
        case Semantics::Get:
            return get();
        case Semantics::AsVector:
            return asVector();
        case Semantics::AsScalar:
            return asScalar();
        case Semantics::Slide:
            return slide();
        case Semantics::Pad:
            return pad();
        case Semantics::At:
            return at();
        case Semantics::Filter:
            return filter();
        default:
            break;
        }
        fail("cannot type " + site_.describe() + ": unknown pattern");
    }

    // ------------------------------------------------------------ patterns with functions

    TypeId map() {
        onlyChild();
        expectArgCount(1);
        TypeId xs = expectArray(0);
        std::array<TypeId, 1> elem{types_.elemOf(xs)};
        TypeId result = site_.applyChild(0, elem);
        return types_.array(result, types_.lengthOf(xs));
    }

    TypeId mapLanes() {
        onlyChild();
        expectArgCount(1);
        const TypeNode& v = types_.at(args_[0]);
        if (v.kind != TypeKind::Vector) {
            fail(argName(0) + " of " + site_.describe() + ": expected a vector, found " +
                 show(args_[0]));
        }
        uint32_t width = v.width;
        std::array<TypeId, 1> lane{types_.scalar(v.scalar)};
        return vectorizeResult(site_.applyChild(0, lane), width);
    }

    TypeId reduce(bool partial) {
        onlyChild();
        TypeId xs = foldStep();
        arith::Size parts(1);
        if (partial) {
            parts = sizeArg(0, "result length");
            checkDivides(parts, types_.lengthOf(xs), "result length");
        }
        return types_.array(args_[0], parts);
    }

    // The folds' arguments (init: A, xs: [T]n) and their function f: (A, T) -> A; returns xs.
    TypeId foldStep() {
        expectArgCount(2);
        TypeId xs = expectArray(1);
        std::array<TypeId, 2> operands{args_[0], types_.elemOf(xs)};
        TypeId result = site_.applyChild(0, operands);
        if (result != args_[0]) {
            fail("the function " + site_.describeChild(0) + " of " + site_.describe() +
                 " must return " + show(args_[0]) + " (the type of the initial value), found " +
                 show(result));
        }
        return xs;
    }

    TypeId scan() {
        onlyChild();
        TypeId xs = foldStep();
        return types_.array(args_[0], types_.lengthOf(xs));
    }

    TypeId reduceWhile() {
        if (use_.numChildren != 2) {
            fail(site_.describe() + " needs two function arguments (the operator and the " +
                 "predicate), found " + std::to_string(use_.numChildren));
        }
        TypeId xs = foldStep();
        std::array<TypeId, 2> operands{args_[0], types_.elemOf(xs)};
        expectCondition(1, operands, "predicate");
        return types_.array(args_[0], arith::Size(1));
    }

    TypeId sort() {
        onlyChild();
        expectArgCount(1);
        TypeId xs = expectArray(0);
        std::array<TypeId, 2> pair{types_.elemOf(xs), types_.elemOf(xs)};
        expectCondition(0, pair, "comparison");
        return xs;
    }

    // Types f once per iteration with the actual length (which may shrink or grow each time),
    // but stops early at a fixed point: typing is deterministic, so later iterations agree.
    TypeId iterate() {
        onlyChild();
        expectArgCount(1);
        expectArray(0);
        int64_t k = constantSize(0, "iteration count");
        if (k < 0) {
            fail(site_.describe() + ": the iteration count must not be negative");
        }
        // Where the function has one signature (T -> T in the e-graph), it is typed even when it
        // is applied 0 times.
        int64_t typed = site_.iterateMayResize() ? k : std::max<int64_t>(k, 1);
        std::array<TypeId, 1> current{args_[0]};
        for (int64_t i = 0; i < typed; ++i) {
            if (i == kMaxIterations) {
                fail(site_.describe() + ": too many iterations to type-check (more than " +
                     std::to_string(kMaxIterations) + ")");
            }
            TypeId next = site_.applyChild(0, current);
            checkIterateStep(current[0], next);
            if (next == current[0]) {
                break;
            }
            current[0] = next;
        }
        return current[0];
    }

    TypeId reorder(Semantics s) {
        if (s == Semantics::Gather || s == Semantics::Scatter) {
            onlyChild();
            if (!site_.childIsFunction(0)) {
                fail("the index function of " + site_.describe() + " is not a function");
            }
        } else if (use_.numChildren != 0) {
            fail(site_.describe() + " takes no function argument");
        }
        expectArgCount(1);
        if (s != Semantics::Identity) {
            expectArray(0);
        }
        return args_[0];
    }

    TypeId vectorizeFun() {
        onlyChild();
        uint32_t width = vectorWidth(0);
        std::vector<TypeId> lanes;
        bool vectors = false;
        size_t bad = vectorizeLanes(types_, args_, width, lanes, vectors);
        if (bad < args_.size()) {
            fail(argName(bad) + " of " + site_.describe() + ": expected a vector of width " +
                 std::to_string(width) + ", found " + show(args_[bad]));
        }
        if (!vectors) {
            fail(site_.describe() + " needs at least one vector argument");
        }
        return vectorizeResult(site_.applyChild(0, lanes), width);
    }

    // ------------------------------------------------------------ data layout

    TypeId split() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        const arith::Size& k = sizeArg(0, "chunk size");
        const arith::Size& n = types_.lengthOf(xs);
        checkDivides(k, n, "chunk size");
        return types_.array(types_.array(types_.elemOf(xs), k), exactDiv(n, k));
    }

    TypeId join() {
        expectArgCount(1);
        TypeId outer = expectNestedArray(0);
        TypeId inner = types_.elemOf(outer);
        arith::Size length = types_.lengthOf(inner) * types_.lengthOf(outer);
        return types_.array(types_.elemOf(inner), length);
    }

    TypeId transpose() {
        expectArgCount(1);
        TypeId outer = expectNestedArray(0);
        TypeId inner = types_.elemOf(outer);
        TypeId swapped = types_.array(types_.elemOf(inner), types_.lengthOf(outer));
        return types_.array(swapped, types_.lengthOf(inner));
    }

    TypeId zip() {
        expectArity();
        std::vector<TypeId> fields;
        const arith::Size n = types_.lengthOf(expectArray(0));
        for (size_t i = 0; i < args_.size(); ++i) {
            TypeId elem = types_.elemOf(expectArray(i));
            expectEqual(i, types_.array(elem, n), args_[i]);
            fields.push_back(elem);
        }
        return types_.array(types_.tuple(fields), n);
    }

    TypeId unzip() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        TypeNode elem = types_.at(types_.elemOf(xs)); // copy: interning below may reallocate
        if (elem.kind != TypeKind::Tuple) {
            fail(argName(0) + " of " + site_.describe() + ": expected an array of tuples, found " +
                 show(xs));
        }
        std::vector<TypeId> arrays;
        for (TypeId field : elem.elems) {
            arrays.push_back(types_.array(field, types_.lengthOf(xs)));
        }
        return types_.tuple(arrays);
    }

    TypeId tuple() {
        expectArity();
        return types_.tuple(args_);
    }

    TypeId get() {
        expectArgCount(1);
        const TypeNode& t = types_.at(args_[0]);
        if (t.kind != TypeKind::Tuple) {
            fail(argName(0) + " of " + site_.describe() + ": expected a tuple, found " +
                 show(args_[0]));
        }
        int32_t field = use_.ival;
        if (field < 0 || static_cast<size_t>(field) >= t.elems.size()) {
            fail(site_.describe() + " on " + show(args_[0]) + ": the tuple has only " +
                 std::to_string(t.elems.size()) + " fields");
        }
        return t.elems[static_cast<size_t>(field)];
    }

    TypeId asVector() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        uint32_t width = vectorWidth(0);
        const TypeNode& elem = types_.at(types_.elemOf(xs));
        if (elem.kind != TypeKind::Scalar) {
            fail(argName(0) + " of " + site_.describe() + ": expected an array of scalars, found " +
                 show(xs));
        }
        ScalarKind scalar = elem.scalar;
        const arith::Size n = types_.lengthOf(xs);
        checkDivides(arith::Size(width), n, "vector width");
        return types_.array(types_.vector(scalar, width), exactDiv(n, arith::Size(width)));
    }

    TypeId asScalar() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        const TypeNode& elem = types_.at(types_.elemOf(xs));
        if (elem.kind != TypeKind::Vector) {
            fail(argName(0) + " of " + site_.describe() + ": expected an array of vectors, found " +
                 show(xs));
        }
        ScalarKind scalar = elem.scalar;
        arith::Size length = types_.lengthOf(xs) * arith::Size(elem.width);
        return types_.array(types_.scalar(scalar), length);
    }

    // With constant sizes the number of windows is computed exactly (windows that do not fit
    // are dropped, as in Lift); with symbolic ones the step is asserted to divide evenly.
    TypeId slide() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        const arith::Size& size = sizeArg(0, "window size");
        const arith::Size& step = sizeArg(1, "step");
        const arith::Size n = types_.lengthOf(xs);
        expectPositive(size, "window size");
        expectPositive(step, "step");
        auto cn = n.constant();
        auto csize = size.constant();
        if (cn && csize && *csize > *cn && site_.checksSizeValues()) {
            fail(site_.describe() + " on an array of length " + std::to_string(*cn) +
                 ": the window is longer than the array");
        }
        arith::Size span = n - size + step;
        auto cspan = span.constant();
        auto cstep = step.constant();
        arith::Size windows = cspan && cstep ? arith::Size(*cspan / *cstep) : exactDiv(span, step);
        return types_.array(types_.array(types_.elemOf(xs), size), windows);
    }

    TypeId pad() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        const arith::Size& left = sizeArg(0, "left padding");
        const arith::Size& right = sizeArg(1, "right padding");
        for (const arith::Size* s : {&left, &right}) {
            auto c = s->constant();
            if (c && *c < 0 && site_.checksSizeValues()) {
                fail(site_.describe() + ": padding must not be negative");
            }
        }
        int32_t boundary = use_.ival;
        if (boundary < static_cast<int32_t>(PadBoundary::Clamp) ||
            boundary > static_cast<int32_t>(PadBoundary::Constant)) {
            fail(site_.describe() + ": unknown boundary handling " + std::to_string(boundary));
        }
        bool constant = boundary == static_cast<int32_t>(PadBoundary::Constant);
        if (use_.numChildren != (constant ? 1u : 0u)) {
            fail(site_.describe() + (constant ? ": a constant padding needs its value"
                                              : ": only a constant padding has a value"));
        }
        if (constant) {
            checkPadValue(xs);
        }
        return types_.array(types_.elemOf(xs), left + types_.lengthOf(xs) + right);
    }

    // The value fills each padded element: its type is the element's innermost non-array type,
    // a scalar or a vector.
    void checkPadValue(TypeId xs) {
        TypeId value = site_.childValueType(0);
        TypeId inner = types_.elemOf(xs);
        while (types_.isArray(inner)) {
            inner = types_.elemOf(inner);
        }
        if (value != inner || types_.kind(value) == TypeKind::Tuple) {
            fail(site_.describe() + ": a padding value of type " + show(value) +
                 " for elements of type " + show(types_.elemOf(xs)) +
                 " (expected a scalar or vector of the innermost element type)");
        }
    }

    TypeId at() {
        expectArgCount(1);
        TypeId xs = expectArray(0);
        auto index = sizeArg(0, "index").constant();
        auto n = types_.lengthOf(xs).constant();
        if (index && (*index < 0 || (n && *index >= *n)) && site_.checksSizeValues()) {
            fail(site_.describe() + " on " + show(xs) + ": index out of bounds");
        }
        return types_.elemOf(xs);
    }

    TypeId filter() {
        expectArgCount(2);
        TypeId xs = expectArray(0);
        TypeId ids = expectArray(1);
        expectEqual(1, types_.array(types_.intType(), types_.lengthOf(ids)), ids);
        return types_.array(types_.elemOf(xs), types_.lengthOf(ids));
    }
};

} // namespace

TypeId typePattern(TypingSite& site, const PatternUse& use, std::span<const TypeId> args) {
    return Rule(site, use, args).run();
}

std::optional<std::vector<TypeId>> nestedArgTypes(TypeArena& types, const PatternUse& use,
                                                  std::span<const TypeId> args) {
    auto arrayAt = [&](size_t i) { return i < args.size() && types.isArray(args[i]); };
    switch (semantics(use.op)) {
    case Semantics::Map:
        if (args.size() != 1 || !arrayAt(0)) {
            return std::nullopt;
        }
        return std::vector<TypeId>{types.elemOf(args[0])};
    case Semantics::Reduce:
    case Semantics::PartialReduce:
    case Semantics::Scan:
    case Semantics::ReduceWhile: // the operator and the predicate take the same arguments
        if (args.size() != 2 || !arrayAt(1)) {
            return std::nullopt;
        }
        return std::vector<TypeId>{args[0], types.elemOf(args[1])};
    case Semantics::Sort:
        if (args.size() != 1 || !arrayAt(0)) {
            return std::nullopt;
        }
        return std::vector<TypeId>{types.elemOf(args[0]), types.elemOf(args[0])};
    case Semantics::MapLanes:
        if (args.size() != 1 || types.kind(args[0]) != TypeKind::Vector) {
            return std::nullopt;
        }
        return std::vector<TypeId>{types.scalar(types.at(args[0]).scalar)};
    case Semantics::VectorizeFun: {
        auto width = constantWidth(use.sizes);
        std::vector<TypeId> lanes;
        bool vectors = false;
        if (!width || vectorizeLanes(types, args, *width, lanes, vectors) < args.size() ||
            !vectors) {
            return std::nullopt;
        }
        return lanes;
    }
    case Semantics::Iterate:
    case Semantics::Place:
        return std::vector<TypeId>(args.begin(), args.end());
    default:
        return std::vector<TypeId>{};
    }
}

} // namespace egopt::lift
