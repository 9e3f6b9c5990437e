// Views: pushing access paths through data-layout patterns down to memory (CGO'17 §5.2);
// views_access.cpp turns the element reached into C.
#include "views.hpp"

#include "egopt/support/diagnostic.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::TypeKind;

std::string spaceKeyword(AddrSpace s) {
    switch (s) {
    case AddrSpace::Global:
        return "__global";
    case AddrSpace::Local:
        return "__local";
    case AddrSpace::Private:
        return "";
    }
    return "";
}

std::string Location::read() const {
    if (vectorWidth > 0) {
        return "vload" + std::to_string(vectorWidth) + "(0, " + pointer + ")";
    }
    return lvalue;
}

std::string Location::write(const std::string& value) const {
    if (vectorWidth > 0) {
        return "vstore" + std::to_string(vectorWidth) + "(" + value + ", 0, " + pointer + ");";
    }
    return lvalue + " = " + value + ";";
}

Size reorderIndex(lift::Op fn, const Size& param, const Size& i, const Size& n) {
    switch (fn) {
    case lift::Op::ReorderStride: {
        Size chunk = floorDiv(n, param);
        return floorDiv(i, chunk) + param * mod(i, chunk);
    }
    case lift::Op::Reverse:
        return n - 1 - i;
    case lift::Op::Shift: {
        // (i + k) mod n with k made non-negative, so the operand of mod is never negative.
        auto k = param.constant();
        auto len = n.constant();
        Size shift = (k && len) ? Size(((*k % *len) + *len) % *len) : param;
        return mod(i + shift, n);
    }
    default:
        badInput("codegen: " + std::string(lift::opName(fn)) + " is not an index function");
    }
}

Size inverseReorderIndex(lift::Op fn, const Size& param, const Size& i, const Size& n) {
    switch (fn) {
    case lift::Op::ReorderStride:
        // i -> i/c + s*(i%c) with c = n/s is undone by the same function with stride c.
        return reorderIndex(fn, floorDiv(n, param), i, n);
    case lift::Op::Shift:
        return reorderIndex(fn, -param, i, n);
    default:
        return reorderIndex(fn, param, i, n);
    }
}

ViewId ViewArena::add(View v) {
    views_.push_back(std::move(v));
    return static_cast<ViewId>(views_.size() - 1);
}

ViewId ViewArena::mem(BufferId b, lift::TypeId type, Size offset) {
    View v;
    v.kind = ViewKind::Mem;
    v.type = type;
    v.buffer = b;
    v.offset = std::move(offset);
    return add(std::move(v));
}

ViewId ViewArena::expr(std::string text, lift::TypeId type) {
    View v;
    v.kind = ViewKind::Expr;
    v.type = type;
    v.text = std::move(text);
    return add(std::move(v));
}

ViewId ViewArena::access(ViewId array, const Size& index) {
    View v;
    v.kind = ViewKind::Access;
    v.type = types_.elemOf(at(array).type);
    v.kids = {array};
    v.a = index;
    return add(std::move(v));
}

std::optional<BufferId> ViewArena::bufferOf(ViewId view) const {
    for (ViewId cur = view;;) {
        const View& v = at(cur);
        if (v.kind == ViewKind::Mem) {
            return v.buffer;
        }
        if (v.kids.empty()) {
            return std::nullopt;
        }
        cur = v.kids[0];
    }
}

[[noreturn]] void badPath(const std::string& what) {
    badInput("codegen: unsupported access: " + what);
}

Size popIndex(Path& path, const char* where) {
    if (path.empty() || path.front().isField) {
        badPath(std::string("expected an array index at ") + where);
    }
    Size i = path.front().index;
    path.pop_front();
    return i;
}

int popField(Path& path, const char* where) {
    if (path.empty() || !path.front().isField) {
        badPath(std::string("expected a tuple field at ") + where);
    }
    int f = path.front().field;
    path.pop_front();
    return f;
}

void pushIndex(Path& path, Size i) {
    path.push_front(Step{false, std::move(i), 0});
}

std::string laneSuffix(int lane) {
    return std::string(".s") + "0123456789abcdef"[lane & 15];
}

namespace {

// Where the vectorised index at position `pos` of the path is after view `kind` rewrote the
// front of the path (-2: MapOf takes it into its hole; -1: already there, Hole restores it).
int movedVectorIndex(ViewKind kind, int pos) {
    switch (kind) {
    case ViewKind::Access: // pushes an index
    case ViewKind::Get:    // pushes a field
        return pos + 1;
    case ViewKind::Join: // i -> (i / a, i % a): the lanes stay in the second
        return pos + 1;
    case ViewKind::Split: // (i, j) -> i * a + j
    case ViewKind::Slide:
    case ViewKind::Zip: // (i, field) -> i
        return pos <= 1 ? 0 : pos - 1;
    case ViewKind::Unzip: // (field, i) -> (i, field)
        return pos == 1 ? 0 : pos;
    case ViewKind::TupleOf: // pops a field
        return pos - 1;
    case ViewKind::MapOf: // pops the element index into its hole
        return pos == 0 ? -2 : pos - 1;
    case ViewKind::Hole: // pushes it back
        return pos + 1;
    default: // Transpose swaps the first two; the others rewrite the first index in place
        return pos;
    }
}

// Where a Join of inner length `a` puts the w lanes of its index i -> (i / a, i % a).
enum class JoinLanes : uint8_t { Inner, Outer, Split };
JoinLanes joinLanes(const Size& a, int width, const arith::RangeEnv& env) {
    if (width == 0 || arith::provablyDivides(Size(width), a, env)) {
        return JoinLanes::Inner;
    }
    return a.constant() == 1 ? JoinLanes::Outer : JoinLanes::Split;
}

} // namespace

Size ViewArena::padIndex(const View& v, const Size& i, const arith::RangeEnv& env) const {
    Size n = types_.lengthOf(at(v.kids[0]).type);
    Size j = arith::simplify(i - v.a, env);
    if (arith::provablyNonNegative(j, env) && arith::provablyLess(j, n, env)) {
        return j; // inside the unpadded array: no boundary handling
    }
    auto boundary = static_cast<lift::PadBoundary>(v.ival);
    if (boundary == lift::PadBoundary::Wrap && arith::provablyNonNegative(j + n, env)) {
        return mod(j + n, n);
    }
    // An opaque index: a variable whose name is the C expression (printed verbatim by toC).
    using Fn = IndexFunction::Kind;
    Fn kind = boundary == lift::PadBoundary::Clamp    ? Fn::Clamp
              : boundary == lift::PadBoundary::Mirror ? Fn::Mirror
                                                      : Fn::Wrap;
    std::string c = kind == Fn::Clamp    ? "clamp((int)(" + j.toC() + "), 0, " + (n - 1).toC() + ")"
                    : kind == Fn::Mirror ? "egopt_mirror((int)(" + j.toC() + "), " + n.toC() + ")"
                                         : "egopt_wrap((int)(" + j.toC() + "), " + n.toC() + ")";
    if (kind != Fn::Clamp) {
        // clamp is an OpenCL builtin; the others are the generator's helpers (FunctionDef).
        logCall(kind == Fn::Mirror ? "egopt_mirror" : "egopt_wrap");
    }
    indexFunctions_[c] = {kind, j, n};
    return Size::var(c);
}

std::string ViewArena::padGuard(const Size& j, const Size& n, const arith::RangeEnv& env) {
    std::string c = "(" + j.toC() + ")";
    bool low = arith::provablyNonNegative(j, env);
    bool high = arith::provablyLess(j, n, env);
    if (low && high) {
        return "";
    }
    return low ? c + " < " + n.toC() : high ? c + " >= 0" : c + " >= 0 && " + c + " < " + n.toC();
}

// A Transpose one of whose two lengths is 1 keeps every element where it is.
bool ViewArena::unitTranspose(const View& v) const {
    if (!types_.isArray(v.type) || !types_.isArray(types_.elemOf(v.type))) {
        return false;
    }
    return types_.lengthOf(v.type).constant() == 1 ||
           types_.lengthOf(types_.elemOf(v.type)).constant() == 1;
}

// Whether index `pos` of memory of type t has stride 1: it is the innermost index, or every
// index inside it has length 1.
bool ViewArena::innermostInMemory(lift::TypeId t, int pos) const {
    if (pos < 0) {
        return false;
    }
    for (int d = 0; d <= pos; ++d) {
        if (!types_.isArray(t)) {
            return false;
        }
        t = types_.elemOf(t);
    }
    for (; types_.isArray(t); t = types_.elemOf(t)) {
        if (types_.lengthOf(t).constant() != 1) {
            return false;
        }
    }
    return true;
}

bool ViewArena::tuplesInMemory(lift::TypeId t, int pos) const {
    for (int d = 0; d <= pos && types_.isArray(t); ++d) {
        t = types_.elemOf(t);
    }
    while (types_.isArray(t)) {
        t = types_.elemOf(t);
    }
    return types_.at(t).kind == TypeKind::Tuple;
}

ViewArena::Resolved ViewArena::resolve(ViewId view, Path path, const arith::RangeEnv& env,
                                       std::vector<Entered> holes) const {
    Resolved r;
    // After asVector: the position in the path of the vectorised index (the w lanes are
    // consecutive in it), or -1 once it went into a MapOf's hole.
    int vecPos = -1;
    for (ViewId cur = view;;) {
        const View& v = at(cur);
        // A vector load/store reads w consecutive elements: a view that reorders the
        // vectorised index (Gather, Pad, Filter at its position; Transpose of it or of the
        // index above it) breaks that; views of outer indices do not.
        // A Join keeps w consecutive lanes in its inner index only when w divides the inner
        // length; inner arrays of one element put them in the outer index (a transposed matrix
        // of one-element results, read by rows, is strided); other lengths split them.
        JoinLanes joined = v.kind == ViewKind::Join && vecPos == 0
                               ? joinLanes(v.a, r.vectorWidth, env)
                               : JoinLanes::Inner;
        bool reorders =
            v.kind == ViewKind::Transpose ? (vecPos == 0 || vecPos == 1) && !unitTranspose(v)
            : v.kind == ViewKind::Gather || v.kind == ViewKind::Pad || v.kind == ViewKind::Filter
                ? vecPos == 0
                : joined == JoinLanes::Split;
        if (r.vectorWidth != 0 && reorders) {
            if (r.laneRead && r.lanes.empty() && !r.laneRead->rest) {
                r.byLanes = true; // read() gathers the lanes one by one
                return r;
            }
            badPath("asVector of a reordered view (Gather, Transpose, Pad or Filter)");
        }
        if (vecPos >= 0) {
            vecPos = joined == JoinLanes::Outer ? vecPos : movedVectorIndex(v.kind, vecPos);
        }
        switch (v.kind) {
        case ViewKind::Generate:
            if (r.vectorWidth != 0 && r.laneRead && r.lanes.empty() && !r.laneRead->rest) {
                r.byLanes = true; // a vector of generated elements: built lane by lane
                return r;
            }
            if (r.vectorWidth != 0 || !r.lanes.empty()) {
                badPath("asVector or asScalar of a generated array");
            }
            r.leaf = cur;
            r.path = std::move(path);
            return r;
        case ViewKind::Mem:
        case ViewKind::Expr:
            // The lanes must be the innermost (unit-stride) index of the memory.
            if (r.vectorWidth != 0 && v.kind == ViewKind::Mem && r.lanes.empty() &&
                !innermostInMemory(v.type, vecPos)) {
                badPath("asVector of an index that is not the innermost one in memory");
            }
            // The lanes of one field of an array of tuples lie a tuple apart: a vector load
            // there would read the other fields, so the lanes are read one by one.
            if (r.vectorWidth != 0 && v.kind == ViewKind::Mem && r.lanes.empty() &&
                tuplesInMemory(v.type, vecPos)) {
                if (r.laneRead && !r.laneRead->rest) {
                    r.byLanes = true;
                    return r;
                }
                badPath("asVector of a field of an array of tuples");
            }
            r.leaf = cur;
            r.path = std::move(path);
            return r;
        case ViewKind::Access:
            pushIndex(path, v.a);
            break;
        case ViewKind::Split: {
            Size i = popIndex(path, "Split");
            Size j = popIndex(path, "Split");
            pushIndex(path, i * v.a + j);
            break;
        }
        case ViewKind::Join: {
            Size i = popIndex(path, "Join");
            pushIndex(path, mod(i, v.a));
            pushIndex(path, floorDiv(i, v.a));
            break;
        }
        case ViewKind::Transpose: {
            Size i = popIndex(path, "Transpose");
            Size j = popIndex(path, "Transpose");
            pushIndex(path, i);
            pushIndex(path, j);
            break;
        }
        case ViewKind::Zip: {
            if (path.size() < 2 || !path[1].isField) {
                r.leaf = cur; // the whole tuple: built from the zipped arrays' elements
                r.path = std::move(path);
                r.holes = std::move(holes);
                return r;
            }
            Size i = popIndex(path, "Zip");
            int f = popField(path, "Zip");
            pushIndex(path, i);
            cur = v.kids.at(static_cast<size_t>(f));
            continue;
        }
        case ViewKind::Unzip: {
            int f = popField(path, "Unzip");
            Size i = popIndex(path, "Unzip");
            path.push_front(Step{true, 0, f});
            pushIndex(path, i);
            break;
        }
        case ViewKind::TupleOf:
            if (path.empty() || !path.front().isField) {
                r.leaf = cur;
                r.path = std::move(path);
                r.holes = std::move(holes);
                return r;
            }
            cur = v.kids.at(static_cast<size_t>(popField(path, "Tuple")));
            continue;
        case ViewKind::Get:
            path.push_front(Step{true, 0, v.ival});
            break;
        case ViewKind::Gather: {
            Size i = popIndex(path, "Gather");
            pushIndex(path, v.ival == 0 ? reorderIndex(v.fn, v.a, i, v.b)
                                        : inverseReorderIndex(v.fn, v.a, i, v.b));
            break;
        }
        case ViewKind::Slide: {
            Size i = popIndex(path, "Slide");
            Size j = popIndex(path, "Slide");
            pushIndex(path, i * v.b + j);
            break;
        }
        case ViewKind::Pad: {
            Size i = popIndex(path, "Pad");
            if (v.ival != static_cast<int32_t>(lift::PadBoundary::Constant)) {
                pushIndex(path, padIndex(v, i, env));
                break;
            }
            // The element is read only where the condition holds (C's ?: evaluates one side).
            Size j = arith::simplify(i - v.a, env);
            std::string inside = padGuard(j, types_.lengthOf(at(v.kids[0]).type), env);
            if (!inside.empty()) {
                r.guards.push_back({std::move(inside), v.text});
            }
            pushIndex(path, j);
            break;
        }
        case ViewKind::AsVector: {
            if (r.vectorWidth != 0 || !r.lanes.empty()) {
                badPath("asVector of a vectorised or scalarised view");
            }
            Size i = popIndex(path, "asVector");
            r.laneRead =
                Resolved::LaneRead{v.kids.at(0), types_.elemOf(v.type), i, v.ival, !path.empty()};
            pushIndex(path, i * v.ival);
            r.vectorWidth = v.ival;
            vecPos = 0;
            break;
        }
        case ViewKind::Filter: {
            // The index is read from memory: an opaque variable printed verbatim by toC.
            Size i = popIndex(path, "Filter");
            std::string loaded = "(int)(" + read(v.kids.at(1), Path{Step{false, i, 0}}, env) + ")";
            indexFunctions_[loaded] = {IndexFunction::Kind::Loaded, i, 0};
            pushIndex(path, Size::var(loaded));
            break;
        }
        case ViewKind::AsScalar: {
            Size i = popIndex(path, "asScalar");
            pushIndex(path, floorDiv(i, v.ival));
            r.lanes.push_back(mod(i, v.ival));
            break;
        }
        case ViewKind::MapOf:
            // Only the outer index moves; the function's views are checked as they are visited.
            holes.push_back({v.kids.at(0), popIndex(path, "Map"), vecPos == -2});
            vecPos = vecPos == -2 ? -1 : vecPos;
            cur = v.kids.at(1);
            continue;
        case ViewKind::Hole: {
            if (holes.empty()) {
                badPath("a mapped layout function's element outside its map");
            }
            Entered e = holes.back();
            holes.pop_back();
            pushIndex(path, e.index);
            vecPos = e.vector ? 0 : vecPos;
            cur = e.array;
            continue;
        }
        }
        cur = v.kids.at(0);
    }
}

} // namespace egopt::codegen::detail
