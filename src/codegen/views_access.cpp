// Views, the memory side: an access path resolved to a buffer element becomes a C lvalue
// (vector loads and stores, scalar lanes of vector memory, private memory divided among
// work-items), read or written whole (tuples field by field, vectors lane by lane).
#include "egopt/support/diagnostic.hpp"
#include "views.hpp"

namespace egopt::codegen::detail {

using arith::Size;
using lift::TypeKind;

std::string ViewArena::fieldSuffix(lift::TypeId type, Path& path) const {
    std::string s;
    while (!path.empty()) {
        if (!path.front().isField) {
            badPath("an array index into a non-array value");
        }
        int f = popField(path, "field");
        const lift::TypeNode& n = types_.at(type);
        if (n.kind == TypeKind::Vector) {
            s += laneSuffix(f);
            type = types_.scalarBase(type);
        } else if (n.kind == TypeKind::Tuple) {
            s += "._" + std::to_string(f);
            type = n.elems.at(static_cast<size_t>(f));
        } else {
            badPath("a field of a scalar");
        }
    }
    return s;
}

Size ViewArena::ownPart(const Buffer& b, const Size& flat, const arith::RangeEnv& env) const {
    Size owner = 0;
    for (const auto& [dim, extent] : b.owners) {
        auto index = localIndex(dim);
        if (!index) {
            badPath("private memory of a MapLcl used outside a MapLcl(" + std::to_string(dim) +
                    ") with one iteration per work-item");
        }
        owner = owner * extent + *index;
    }
    Size s = arith::simplify(flat, env);
    if (arith::simplify(floorDiv(s, b.perThread), env) != arith::simplify(owner, env)) {
        badPath("private memory of a MapLcl read by another work-item than its writer (element " +
                s.toString() + " of " + b.name + ")");
    }
    return arith::simplify(mod(s, b.perThread), env);
}

Location ViewArena::memLocation(const Resolved& r, const arith::RangeEnv& env) const {
    const View& v = at(r.leaf);
    const Buffer& b = buffers_.at(v.buffer);
    Path path = r.path;
    Size flat = v.offset;
    lift::TypeId t = v.type;
    while (types_.isArray(t)) {
        Size stride = 1;
        for (lift::TypeId e = types_.elemOf(t); types_.isArray(e); e = types_.elemOf(e)) {
            stride = stride * types_.lengthOf(e);
        }
        flat = flat + popIndex(path, "memory") * stride;
        t = types_.elemOf(t);
    }
    if (b.perThread != Size(0)) {
        flat = ownPart(b, flat, env);
    }
    Location loc;
    loc.access.buffer = b.name;
    loc.access.space = b.space;
    if (!r.lanes.empty()) {
        // A scalar lane of vector memory: the buffer seen as scalars.
        const lift::TypeNode& n = types_.at(t);
        if (n.kind != TypeKind::Vector || r.lanes.size() != 1) {
            badPath("asScalar of non-vector memory");
        }
        Size idx = arith::simplify(flat * n.width + r.lanes[0], env);
        std::string space = spaceKeyword(b.space);
        // The lanes' scalar type; a single private variable (an accumulator) by its address.
        std::string scalars = "((" + space + (space.empty() ? "" : " ") +
                              types_.cName(types_.scalar(n.scalar)) + "*)" +
                              (b.scalarVar ? "&" : "") + b.name + ")";
        auto scalarBytes = static_cast<int64_t>(types_.byteSize(types_.scalar(n.scalar)));
        loc.access.index = idx;
        loc.access.elementBytes = static_cast<uint32_t>(scalarBytes);
        loc.access.bytes = static_cast<uint32_t>(scalarBytes);
        if (r.vectorWidth > 0) { // asVector(w) of asScalar: w consecutive lanes
            loc.pointer = scalars + " + " + idx.toC();
            loc.vectorWidth = r.vectorWidth;
            loc.access.bytes = static_cast<uint32_t>(scalarBytes * r.vectorWidth);
            loc.access.vectorWidth = static_cast<uint32_t>(r.vectorWidth);
            return loc;
        }
        loc.lvalue = scalars + "[" + idx.toC() + "]";
        return loc;
    }
    flat = arith::simplify(flat, env);
    // C indexes and offsets pointers in elements of the buffer's declared type.
    auto elemBytes = static_cast<int64_t>(types_.byteSize(b.elemType));
    if (r.vectorWidth > 0) {
        auto c = flat.constant();
        loc.pointer = (c && *c == 0) ? b.name : b.name + " + " + flat.toC();
        loc.vectorWidth = r.vectorWidth;
        loc.access.index = flat;
        loc.access.elementBytes = static_cast<uint32_t>(elemBytes);
        loc.access.bytes = static_cast<uint32_t>(elemBytes * r.vectorWidth);
        loc.access.vectorWidth = static_cast<uint32_t>(r.vectorWidth);
        return loc;
    }
    auto [offset, bytes] = fieldPlace(t, path);
    loc.access.index = b.scalarVar ? Size(0) : flat;
    loc.access.elementBytes = static_cast<uint32_t>(elemBytes);
    loc.access.offset = static_cast<uint32_t>(offset);
    loc.access.bytes = static_cast<uint32_t>(bytes);
    loc.lvalue = b.scalarVar ? b.name : b.name + "[" + flat.toC() + "]";
    loc.lvalue += fieldSuffix(t, path);
    return loc;
}

std::pair<int64_t, int64_t> ViewArena::fieldPlace(lift::TypeId type, const Path& path) const {
    int64_t offset = 0;
    for (const Step& s : path) {
        const lift::TypeNode& n = types_.at(type);
        if (!s.isField || (n.kind != TypeKind::Vector && n.kind != TypeKind::Tuple)) {
            break; // fieldSuffix reports the bad path
        }
        if (n.kind == TypeKind::Vector) {
            type = types_.scalarBase(type);
            offset += s.field * static_cast<int64_t>(types_.byteSize(type));
            continue;
        }
        for (int f = 0; f < s.field; ++f) {
            offset += static_cast<int64_t>(types_.byteSize(n.elems.at(static_cast<size_t>(f))));
        }
        type = n.elems.at(static_cast<size_t>(s.field));
    }
    return {offset, static_cast<int64_t>(types_.byteSize(type))};
}

void ViewArena::logAccess(const Location& loc, bool write) const {
    if (log_) {
        log_->accesses.push_back(loc.access);
        log_->accesses.back().write = write;
        log_->statements += write ? 1 : 0;
    }
}

void ViewArena::logCall(const std::string& name) const {
    if (log_) {
        log_->calls.push_back(name);
    }
}

std::string ViewArena::read(ViewId view, Path path, const arith::RangeEnv& env) const {
    return readFrom(view, std::move(path), {}, env);
}

std::string ViewArena::readFrom(ViewId view, Path path, std::vector<Entered> holes,
                                const arith::RangeEnv& env) const {
    Resolved r = resolve(view, std::move(path), env, std::move(holes));
    std::string s = readResolved(r, env);
    for (auto g = r.guards.rbegin(); g != r.guards.rend(); ++g) {
        s = "((" + g->inside + ") ? " + s + " : " + g->value + ")";
    }
    return s;
}

std::string ViewArena::readResolved(Resolved& r, const arith::RangeEnv& env) const {
    if (r.byLanes) {
        // A vector whose lanes are not consecutive in memory (asVector of a transposed or
        // gathered array): a vector literal of the lanes, each read as a scalar.
        const Resolved::LaneRead& lr = *r.laneRead;
        std::string s = "(" + types_.cName(lr.vectorType) + ")(";
        for (int l = 0; l < lr.width; ++l) {
            Path lane;
            pushIndex(lane, arith::simplify(lr.index * lr.width + l, env));
            s += (l ? ", " : "") + read(lr.kid, std::move(lane), env);
        }
        return s + ")";
    }
    const View& leaf = at(r.leaf);
    switch (leaf.kind) {
    case ViewKind::Mem: {
        Location loc = memLocation(r, env);
        logAccess(loc, false);
        return loc.read();
    }
    case ViewKind::Generate: {
        logCall(leaf.text);
        std::string call = leaf.text + "(";
        for (size_t d = 0; d < leaf.dims.size(); ++d) {
            call += (d ? ", " : "") + arith::simplify(popIndex(r.path, "generator"), env).toC();
        }
        for (const Size& n : leaf.dims) {
            call += ", " + n.toC();
        }
        call += ")";
        lift::TypeId t = leaf.type;
        for (size_t d = 0; d < leaf.dims.size(); ++d) {
            t = types_.elemOf(t);
        }
        std::string suffix = fieldSuffix(t, r.path);
        return suffix.empty() ? call : "(" + call + ")" + suffix;
    }
    case ViewKind::Expr: {
        // An array-typed expression is a Value broadcast to every element (Lift's
        // Value("0.0f", ArrayType(Float, 4))): array indices select the same value.
        lift::TypeId t = leaf.type;
        while (types_.isArray(t) && !r.path.empty() && !r.path.front().isField) {
            r.path.pop_front();
            t = types_.elemOf(t);
        }
        std::string suffix = fieldSuffix(t, r.path);
        return suffix.empty() ? leaf.text : "(" + leaf.text + ")" + suffix;
    }
    default:
        break;
    }
    // A whole tuple from a zip or a tuple of values: a struct literal of the fields.
    lift::TypeId tupleType = leaf.kind == ViewKind::Zip ? types_.elemOf(leaf.type) : leaf.type;
    std::string s = "(" + types_.cName(tupleType) + "){";
    for (size_t f = 0; f < leaf.kids.size(); ++f) {
        Path p = r.path;
        p.push_back(Step{true, 0, static_cast<int>(f)});
        s += (f ? ", " : "") + readFrom(r.leaf, std::move(p), r.holes, env);
    }
    return s + "}";
}

// A vector stored where its lanes are not consecutive (asVector of a transposed or gathered
// array, e.g. a tile stored transposed through TransposeW): the value once into a temporary,
// then lane by lane.
std::string ViewArena::writeByLanes(const Resolved& r, const std::string& value,
                                    const arith::RangeEnv& env) const {
    const Resolved::LaneRead& lr = *r.laneRead;
    if (log_) {
        ++log_->statements; // the temporary
    }
    std::string s = "{ " + types_.cName(lr.vectorType) + " lanes_ = " + value + ";";
    for (int l = 0; l < lr.width; ++l) {
        Path lane;
        pushIndex(lane, arith::simplify(lr.index * lr.width + l, env));
        s += " " + write(lr.kid, std::move(lane), "lanes_" + laneSuffix(l), env);
    }
    return s + " }";
}

std::string ViewArena::write(ViewId view, Path path, const std::string& value,
                             const arith::RangeEnv& env) const {
    Resolved r = resolve(view, std::move(path), env);
    if (!r.guards.empty()) {
        badPath("writing into a constant-padded array");
    }
    if (r.byLanes) {
        return writeByLanes(r, value, env);
    }
    const View& leaf = at(r.leaf);
    if (leaf.kind == ViewKind::Mem) {
        Location loc = memLocation(r, env);
        logAccess(loc, true);
        return loc.write(value);
    }
    if (leaf.kind == ViewKind::Expr || leaf.kind == ViewKind::Generate) {
        badPath("writing to an expression");
    }
    // A tuple stored into zipped arrays: field by field (value is a variable, read repeatedly).
    std::string s;
    for (size_t f = 0; f < leaf.kids.size(); ++f) {
        Path p = r.path;
        p.push_back(Step{true, 0, static_cast<int>(f)});
        s += (f ? " " : "") + write(r.leaf, std::move(p), value + "._" + std::to_string(f), env);
    }
    return s;
}

} // namespace egopt::codegen::detail
