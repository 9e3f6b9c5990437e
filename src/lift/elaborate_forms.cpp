// Elaboration of the named forms: sizes and types, data constructors, and Lift's patterns.
#include "elaborate.hpp"

#include <array>

namespace egopt::lift::detail {

namespace {

struct MapOp {
    const char* name;
    Op op;
    bool hasDimension;
    int32_t dimension = 0; // of the forms that fix it
};

constexpr std::array kMaps = {
    MapOp{"Map", Op::Map, false},
    MapOp{"MapSeq", Op::MapSeq, false},
    MapOp{"MapSeqUnroll", Op::MapSeq, false},
    MapOp{"MapVec", Op::MapVec, false},
    MapOp{"MapGlb", Op::MapGlb, true},
    MapOp{"MapWrg", Op::MapWrg, true},
    MapOp{"MapLcl", Op::MapLcl, true},
    // Lift's atomic variants hand out elements through a counter: the same meaning and, here,
    // the static distribution of MapWrg and MapLcl.
    MapOp{"MapAtomWrg", Op::MapWrg, true},
    MapOp{"MapAtomLcl", Op::MapLcl, true},
    // Lift's warp-level maps split local dimension 0 into warps and their lanes: MapWarp hands
    // elements to the warps of a work-group, MapLane to the lanes of a warp. Both mean Map; as
    // a schedule, MapWarp(MapLane(f)) is the two-level local distribution MapLcl(1)(MapLcl(0)(f))
    // (the warp index as local dimension 1, the lane as dimension 0).
    MapOp{"MapWarp", Op::MapLcl, false, 1},
    MapOp{"MapLane", Op::MapLcl, false, 0},
    MapOp{"toGlobal", Op::ToGlobal, false},
    MapOp{"toLocal", Op::ToLocal, false},
    MapOp{"toPrivate", Op::ToPrivate, false},
};

struct SimpleOp {
    const char* name;
    Op op;
    int numSizes; // numeric arguments, all sizes
};

constexpr std::array kSimple = {
    SimpleOp{"Split", Op::Split, 1}, SimpleOp{"Join", Op::Join, 0},
    SimpleOp{"Transpose", Op::Transpose, 0}, SimpleOp{"TransposeW", Op::TransposeW, 0},
    SimpleOp{"asVector", Op::AsVector, 1}, SimpleOp{"asScalar", Op::AsScalar, 0},
    SimpleOp{"Slide", Op::Slide, 2}, SimpleOp{"Id", Op::Id, 0},
    // Lift's early low-level sources place barriers by hand: the identity on data; the code
    // generator inserts the barriers the schedule needs itself.
    SimpleOp{"Barrier", Op::Id, 0}, SimpleOp{"Reorder", Op::Reorder, 0},
    SimpleOp{"Unzip", Op::Unzip, 0}, SimpleOp{"ReorderWithStride", Op::ReorderStride, 1},
    SimpleOp{"reorderStride", Op::ReorderStride, 1}, SimpleOp{"shift", Op::Shift, 1},
    SimpleOp{"Shift", Op::Shift, 1},
    SimpleOp{"At", Op::At, 1},          // x.at(i) as a function, as egopt prints it
    SimpleOp{"ArrayAccess", Op::At, 1}, // Lift's name for the same
};

std::optional<int> generatorDims(const std::string& name) {
    if (name == "ArrayFromUserFunGenerator") {
        return 1;
    }
    if (name == "Array2DFromUserFunGenerator") {
        return 2;
    }
    if (name == "Array3DFromUserFunGenerator") {
        return 3;
    }
    return std::nullopt;
}

bool isIndexFunction(Op op) {
    return op == Op::ReorderStride || op == Op::Reverse || op == Op::Shift;
}

} // namespace

bool envHas(const EnvPtr& env, const std::string& name) {
    for (const Env* e = env.get(); e != nullptr; e = e->parent.get()) {
        if (e->name == name) {
            return true;
        }
    }
    return false;
}

std::optional<Val> Elaborator::typeOrSizeForm(const std::string& name, SyntaxId site,
                                              const Args& args, const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    auto arg = [&](size_t i) { return eval(args[i], env); };
    if (name == "SizeVar" || name == "Var") {
        // Var("N", StartFromRange(2)): the range only guides Lift's own tuning; it is not read.
        expectArgs(site, args, 1, 2, name + "(\"name\")");
        Val n = arg(0);
        const std::string& var = asString(n, n.loc, ("as the name of " + name).c_str());
        if (var.empty() || !std::isalpha(static_cast<unsigned char>(var[0]))) {
            failAt(args[0], "expected a size variable name starting with a letter");
        }
        return sizeVal(sizeVariable(var), loc);
    }
    if (name == "Cst") {
        expectArgs(site, args, 1, 1, "Cst(n)");
        Val n = arg(0);
        return sizeVal(asConstant(n, n.loc, "in Cst(n)"), loc);
    }
    if (name == "ArrayType" || name == "ArrayTypeWSWC") {
        expectArgs(site, args, 2, name == "ArrayType" ? 2 : 3, name + "(element type, length)");
        Val t = arg(0);
        Val n = arg(1);
        TypeId elem = asType(t, t.loc, ("as the element type of " + name).c_str());
        arith::Size len = asSize(n, n.loc, ("as the length of " + name).c_str());
        if (args.size() == 3) {
            Val c = arg(2);
            asSize(c, c.loc, "as the capacity of ArrayTypeWSWC");
        }
        return typeVal(program_.types.array(elem, len), loc);
    }
    if (name == "TupleType") {
        std::vector<TypeId> fields;
        for (SyntaxId a : args) {
            Val t = eval(a, env);
            fields.push_back(asType(t, t.loc, "as a TupleType field"));
        }
        if (fields.size() < 2) {
            failAt(site, "expected at least 2 fields in TupleType");
        }
        return typeVal(program_.types.tuple(fields), loc);
    }
    if (name == "VectorType") {
        expectArgs(site, args, 2, 2, "VectorType(scalar type, width)");
        Val t = arg(0);
        Val w = arg(1);
        TypeId s = asType(t, t.loc, "as the VectorType's scalar type");
        int64_t width = asConstant(w, w.loc, "as the VectorType's width");
        if (program_.types.kind(s) != TypeKind::Scalar ||
            (width != 2 && width != 3 && width != 4 && width != 8 && width != 16)) {
            failAt(site, "expected VectorType(scalar type, 2|3|4|8|16)");
        }
        return typeVal(
            program_.types.vector(program_.types.at(s).scalar, static_cast<uint32_t>(width)), loc);
    }
    if (name == "Array" || name == "Seq") {
        Val v;
        v.kind = Val::Kind::List;
        v.loc = loc;
        for (SyntaxId a : args) {
            v.list.push_back(eval(a, env));
        }
        return v;
    }
    return std::nullopt;
}

std::string Elaborator::zeroText(TypeId t) const {
    const TypeArena& types = program_.types;
    if (types.kind(t) == TypeKind::Tuple) {
        std::string text = "{ ";
        const auto& elems = types.at(t).elems;
        for (size_t i = 0; i < elems.size(); ++i) {
            text += (i ? ", " : "") + zeroText(elems[i]);
        }
        return text + " }";
    }
    ScalarKind k = types.at(types.scalarBase(t)).scalar;
    return k == ScalarKind::Float ? "0.0f" : k == ScalarKind::Double ? "0.0" : "0";
}

std::optional<Val> Elaborator::dataForm(const std::string& name, SyntaxId site, const Args& args,
                                        const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    if (name == "Value") {
        expectArgs(site, args, 1, 2, "Value(\"0.0f\", type)");
        Val v = eval(args[0], env);
        if (v.kind == Val::Kind::Expr && program_.op(v.node) == Op::Literal) {
            if (args.size() == 1) {
                return v; // Value(0.0f)
            }
            Val tv = eval(args[1], env);
            TypeId t = asType(tv, tv.loc, "as the type of Value");
            const LiteralDecl& lit =
                program_.literals[static_cast<size_t>(program_.node(v.node).ival)];
            return exprVal(program_.addLiteral(t, lit.text, loc), loc); // Value(0.0f, Float)
        }
        if (v.kind == Val::Kind::Type && args.size() == 1) {
            // Value(Float): a value of the type whose contents do not matter; zero here.
            return exprVal(program_.addLiteral(v.type, zeroText(v.type), loc), loc);
        }
        const std::string& text = asString(v, v.loc, "as the text of Value");
        TypeId t = program_.types.floatType();
        if (args.size() == 2) {
            Val tv = eval(args[1], env);
            t = asType(tv, tv.loc, "as the type of Value");
        }
        return exprVal(program_.addLiteral(t, text, loc), loc);
    }
    if (name == "ArrayFromValue") {
        // ArrayFromValue(v, ArrayType(T, N)): every element is v, a broadcast literal.
        expectArgs(site, args, 2, 2, "ArrayFromValue(value, array type)");
        Val v = eval(args[0], env);
        NodeId lit = asExpr(v, v.loc, "as the value of ArrayFromValue");
        if (program_.op(lit) != Op::Literal) {
            failAt(args[0],
                   "expected a constant value (a literal or Value(...)) for ArrayFromValue");
        }
        Val tv = eval(args[1], env);
        TypeId t = asType(tv, tv.loc, "as the array type of ArrayFromValue");
        TypeId elem = t;
        while (program_.types.isArray(elem)) {
            elem = program_.types.elemOf(elem);
        }
        const LiteralDecl& decl =
            program_.literals.at(static_cast<size_t>(program_.node(lit).ival));
        if (!program_.types.isArray(t) || elem != decl.type) {
            failAt(args[1], "expected an array type of " + program_.types.show(decl.type) +
                                " elements for ArrayFromValue");
        }
        return exprVal(program_.addLiteral(t, decl.text, loc), loc);
    }
    if (auto dims = generatorDims(name)) {
        // ArrayFromUserFunGenerator(f, ArrayType(T, N)) and the 2D/3D forms: the type gives
        // the lengths (outermost first); typing checks f against them.
        expectArgs(site, args, 2, 2, name + "(user function, array type)");
        Val f = eval(args[0], env);
        NodeId fn = asFunction(f, f.loc, ("as the generator of " + name).c_str());
        if (program_.op(fn) != Op::UserFun) {
            failAt(args[0], "expected a user function as the generator of " + name);
        }
        Val tv = eval(args[1], env);
        TypeId t = asType(tv, tv.loc, ("as the array type of " + name).c_str());
        std::vector<arith::Size> lengths;
        for (int d = 0; d < *dims; ++d, t = program_.types.elemOf(t)) {
            if (!program_.types.isArray(t)) {
                failAt(args[1], "expected an array type of " + std::to_string(*dims) +
                                    " dimensions for " + name);
            }
            lengths.push_back(program_.types.lengthOf(t));
        }
        return exprVal(node(Op::Generate, *dims, {fn}, lengths, loc), loc);
    }
    if (name == "FunCall") {
        if (args.empty()) {
            failAt(site, "expected FunCall(function, arguments...)");
        }
        Val f = eval(args[0], env);
        return applyValue(f, site, Args(args.begin() + 1, args.end()), env);
    }
    if (name != "Zip" && name != "Tuple" && name != "Get" && name != "Filter") {
        return std::nullopt;
    }
    std::vector<Val> vals;
    for (SyntaxId a : args) {
        vals.push_back(eval(a, env));
    }
    bool functionForm = vals.empty() || (vals.size() == 1 && vals[0].kind == Val::Kind::Size);
    if (name == "Get") {
        if (functionForm) {
            expectArgs(site, args, 1, 1, "Get(i)");
            int32_t i = static_cast<int32_t>(asConstant(vals[0], vals[0].loc, "as Get's field"));
            return funVal(node(Op::Get, i, {}, {}, loc), loc);
        }
        expectArgs(site, args, 2, 2, "Get(tuple, i)");
        NodeId t = asExpr(vals[0], vals[0].loc, "as Get's tuple");
        int64_t i = asConstant(vals[1], vals[1].loc, "as Get's field index");
        if (i < 0 || i > 64) {
            failAt(args[1], "expected a field index between 0 and 64");
        }
        return exprVal(program_.apply(node(Op::Get, static_cast<int32_t>(i), {}, {}, loc),
                                      std::vector{t}, loc),
                       loc);
    }
    Op op = name == "Zip" ? Op::Zip : name == "Tuple" ? Op::Tuple : Op::Filter;
    if (functionForm) {
        int64_t arity = vals.empty() ? 2 : asConstant(vals[0], vals[0].loc, "as the arity");
        if (arity < 1 || arity > 64) {
            failAt(site, "expected an arity between 1 and 64 in " + name + "(n)");
        }
        return funVal(node(op, static_cast<int32_t>(arity), {}, {}, loc), loc);
    }
    std::vector<NodeId> data;
    for (const Val& v : vals) {
        data.push_back(asExpr(v, v.loc, ("as an argument of " + name).c_str()));
    }
    int32_t ival = op == Op::Filter ? 0 : static_cast<int32_t>(data.size());
    return exprVal(program_.apply(node(op, ival, {}, {}, loc), data, loc), loc);
}

std::optional<Val> Elaborator::patternForm(const std::string& name, SyntaxId site, const Args& args,
                                           const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    for (const MapOp& m : kMaps) {
        if (name != m.name) {
            continue;
        }
        expectArgs(site, args, 1, m.hasDimension ? 2 : 1, name + "(f)");
        Val first = eval(args[0], env);
        if (m.hasDimension && first.kind == Val::Kind::Size) {
            int64_t dim = asConstant(first, first.loc, ("as the dimension of " + name).c_str());
            if (dim < 0 || dim > 2) {
                failAt(args[0], "expected a dimension 0, 1 or 2 for " + name);
            }
            Val partial;
            partial.kind = Val::Kind::Partial;
            partial.text = name;
            partial.ival = static_cast<int32_t>(dim);
            partial.loc = loc;
            return args.size() == 2 ? completePartial(partial, site, Args{args[1]}, env) : partial;
        }
        expectArgs(site, args, 1, 1, name + "(f)");
        NodeId f = asFunction(first, first.loc, ("as the argument of " + name).c_str());
        int32_t ival = name == "MapSeqUnroll" ? kUnrolled : m.dimension;
        return funVal(node(m.op, ival, {f}, {}, loc), loc);
    }
    if (name == "Reduce" || name == "ReduceSeq" || name == "ReduceSeqUnroll" || name == "PartRed") {
        Op op = name == "Reduce" ? Op::Reduce : name == "PartRed" ? Op::PartRed : Op::ReduceSeq;
        bool part = op == Op::PartRed;
        expectArgs(site, args, part ? 2 : 1, part ? 3 : 2,
                   part ? "PartRed(f, init, m)" : name + "(f, init)");
        Val f = eval(args[0], env);
        NodeId fn = asFunction(f, f.loc, ("as the operator of " + name).c_str());
        std::vector<arith::Size> sizes;
        if (part) {
            Val m = eval(args.back(), env);
            sizes.push_back(asSize(m, m.loc, "as the number of results of PartRed"));
        }
        NodeId red = node(op, name == "ReduceSeqUnroll" ? kUnrolled : 0, {fn}, sizes, loc);
        if (args.size() == (part ? 2u : 1u)) {
            return funVal(red, loc);
        }
        Val init = eval(args[1], env);
        Val v = funVal(red, loc);
        v.fun.kind = Callable::Kind::Bound;
        v.fun.bound = {asExpr(init, init.loc, ("as the initial value of " + name).c_str())};
        return v;
    }
    if (auto v = sequentialForm(name, site, args, env)) {
        return v;
    }
    if (name == "Iterate") {
        expectArgs(site, args, 1, 2, "Iterate(n)(f)");
        Val n = eval(args[0], env);
        Val partial;
        partial.kind = Val::Kind::Partial;
        partial.text = name;
        partial.sizes = {static_cast<int64_t>(asConstant(n, n.loc, "as the Iterate count"))};
        partial.loc = loc;
        return args.size() == 2 ? completePartial(partial, site, Args{args[1]}, env) : partial;
    }
    if (name == "transposeFunction") {
        // IndexFunction.transposeFunction(outer, inner): i -> i / inner + (i % inner) * outer,
        // the index function of a transpose of an outer x inner matrix stored flat.
        expectArgs(site, args, 2, 2, "transposeFunction(outer size, inner size)");
        Val partial;
        partial.kind = Val::Kind::Partial;
        partial.text = name;
        for (SyntaxId a : args) {
            Val n = eval(a, env);
            partial.sizes.push_back(asSize(n, n.loc, "as a size of transposeFunction"));
        }
        partial.loc = loc;
        return partial;
    }
    if (name == "Gather" || name == "Scatter") {
        expectArgs(site, args, 1, 1, name + "(index function)");
        Val f = eval(args[0], env);
        if (f.kind == Val::Kind::Partial && f.text == "transposeFunction") {
            return flatTranspose(name == "Gather", f.sizes, loc);
        }
        NodeId fn = asFunction(f, f.loc, ("as the index function of " + name).c_str());
        if (!isIndexFunction(program_.op(fn))) {
            failAt(args[0],
                   "expected an index function for " + name +
                       ": ReorderWithStride(s), reverse, shift(k) or transposeFunction(m, n)");
        }
        return funVal(node(name == "Gather" ? Op::Gather : Op::Scatter, 0, {fn}, {}, loc), loc);
    }
    if (name == "ReorderStride") { // the pattern of Lift's early sources: a strided Gather
        expectArgs(site, args, 1, 1, "ReorderStride(s)");
        Val s = eval(args[0], env);
        NodeId fn = node(Op::ReorderStride, 0, {}, {asSize(s, s.loc, "as the stride")}, loc);
        return funVal(node(Op::Gather, 0, {fn}, {}, loc), loc);
    }
    if (name == "VectorizeUserFun") {
        expectArgs(site, args, 2, 2, "VectorizeUserFun(width, f)");
        Val w = eval(args[0], env);
        Val f = eval(args[1], env);
        arith::Size width = asSize(w, w.loc, "as the vector width");
        NodeId fn = asFunction(f, f.loc, "as the function of VectorizeUserFun");
        return funVal(node(Op::VectorizeUserFun, 0, {fn}, {width}, loc), loc);
    }
    if (name == "Pad" || name == "PadConstant") {
        return pad1D(site, args, env, name == "PadConstant");
    }
    if (name == "Pad2D" || name == "PadConstant2D") {
        return pad2D(site, args, env, name == "PadConstant2D");
    }
    if (name == "Pad3D" || name == "PadConstant3D") {
        return pad3D(site, args, env, name == "PadConstant3D");
    }
    if (name == "Slide2D") {
        return slide2D(site, args, env);
    }
    if (name == "Slide3D") {
        return slide3D(site, args, env);
    }
    if (name == "Zip2D" || name == "Zip3D") {
        return zipND(site, args, env, name == "Zip2D" ? 2 : 3);
    }
    for (const SimpleOp& s : kSimple) {
        if (name != s.name) {
            continue;
        }
        expectArgs(site, args, static_cast<size_t>(s.numSizes), static_cast<size_t>(s.numSizes),
                   name + (s.numSizes == 0 ? "()" : "(n)"));
        std::vector<arith::Size> sizes;
        for (SyntaxId a : args) {
            Val v = eval(a, env);
            sizes.push_back(asSize(v, v.loc, ("as an argument of " + name).c_str()));
        }
        return funVal(node(s.op, 0, {}, sizes, loc), loc);
    }
    return std::nullopt;
}

Val Elaborator::completePartial(const Val& partial, SyntaxId site, const Args& args,
                                const EnvPtr& env) {
    if (partial.text == "Pad" || partial.text == "Boundary") {
        failAt(site, "expected Pad(left, right, boundary) or Pad.Boundary.X");
    }
    expectArgs(site, args, 1, 1, partial.text + "(...)(f)");
    Val f = eval(args[0], env);
    NodeId fn = asFunction(f, f.loc, ("as the function of " + partial.text).c_str());
    SourceLoc loc = partial.loc;
    if (partial.text == "Iterate") {
        return funVal(node(Op::Iterate, 0, {fn}, partial.sizes, loc), loc);
    }
    for (const MapOp& m : kMaps) {
        if (partial.text == m.name) {
            return funVal(node(m.op, partial.ival, {fn}, {}, loc), loc);
        }
    }
    failAt(site, "cannot apply " + partial.text + " here");
}

// Gather(transposeFunction(outer, inner)) reads element i / inner + (i % inner) * outer of a flat
// outer x inner matrix: Join o Transpose o Split(outer) as a view. Scatter(...) writes there,
// which is reading with the sizes swapped: Join o Transpose o Split(inner).
Val Elaborator::flatTranspose(bool gather, const std::vector<arith::Size>& sizes, SourceLoc loc) {
    arith::Size rowLength = gather ? sizes.at(0) : sizes.at(1);
    Val split = funVal(node(Op::Split, 0, {}, {rowLength}, loc), loc);
    Val transpose = funVal(node(Op::Transpose, 0, {}, {}, loc), loc);
    Val join = funVal(node(Op::Join, 0, {}, {}, loc), loc);
    return compose(join, compose(transpose, split, loc), loc);
}

} // namespace egopt::lift::detail
