// Conditions on user functions and function classes: the algebraic properties that reduce rules
// need (associativity, commutativity, a neutral initial value), identity functions (copies),
// and vectorizable functions. Properties are recognised from the C body, not from the name, so
// a user-declared `add` with another body is not mistaken for addition.
#include "egopt/lift/patterns.hpp"
#include "library_parts.hpp"

#include <algorithm>
#include <cstdlib>

namespace egopt::egraph::detail {

namespace {

enum class BinOp : uint8_t { None, Add, Mul, Max, Min };

std::string squeeze(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            out.push_back(c);
        }
    }
    return out;
}

// The operator a two-parameter user function computes, if it is one of the associative and
// commutative ones (x + y, x * y, fmax, fmin, in either argument order).
BinOp binOp(const lift::UserFunDecl& d) {
    if (d.paramNames.size() != 2 || d.paramTypes[0] != d.paramTypes[1] ||
        d.paramTypes[0] != d.returnType) {
        return BinOp::None;
    }
    std::string body = squeeze(d.body);
    const std::string& a = d.paramNames[0];
    const std::string& b = d.paramNames[1];
    auto either = [&](const std::string& pre, const std::string& mid, const std::string& post) {
        return body == "{return" + pre + a + mid + b + post + ";}" ||
               body == "{return" + pre + b + mid + a + post + ";}";
    };
    if (either("", "+", "")) {
        return BinOp::Add;
    }
    if (either("", "*", "")) {
        return BinOp::Mul;
    }
    if (either("fmax(", ",", ")") || either("max(", ",", ")")) {
        return BinOp::Max;
    }
    if (either("fmin(", ",", ")") || either("min(", ",", ")")) {
        return BinOp::Min;
    }
    return BinOp::None;
}

// The operator of a class holding such a user function, or its lane-wise extension to vectors
// (VectorizeUserFun(w, f): associative, commutative, and neutral lane by lane when f is).
BinOp classOp(const EGraph& g, EClassId c, bool lanes = true) {
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& e = g.node(n);
        BinOp op = BinOp::None;
        if (e.op == Op::UserFun) {
            op = binOp(g.userFuns.at(static_cast<size_t>(e.ival)));
        } else if (e.op == Op::VectorizeUserFun && lanes) {
            op = classOp(g, e.children[0], false);
        }
        if (op != BinOp::None) {
            return op;
        }
    }
    return BinOp::None;
}

// The numeric value of a literal such as 0.0f, 1, 0.0 (a vector literal holds it in every lane).
std::optional<double> literalValue(const std::string& text) {
    std::string t = text;
    if (!t.empty() && (t.back() == 'f' || t.back() == 'F')) {
        t.pop_back();
    }
    if (t.empty()) {
        return std::nullopt;
    }
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) {
        return std::nullopt;
    }
    return v;
}

bool isNeutral(const EGraph& g, EClassId z, BinOp op) {
    if (op != BinOp::Add && op != BinOp::Mul) {
        return false; // max/min have no literal neutral element we can recognise
    }
    double want = op == BinOp::Add ? 0.0 : 1.0;
    for (ENodeId n : g.eclass(z).nodes) {
        const ENode& e = g.node(n);
        if (e.op == Op::Literal) {
            auto v = literalValue(g.literals.at(static_cast<size_t>(e.ival)).text);
            if (v && *v == want) {
                return true;
            }
        }
    }
    return false;
}

bool isIdentityUserFun(const lift::UserFunDecl& d) {
    return d.paramNames.size() == 1 && d.paramTypes[0] == d.returnType &&
           squeeze(d.body) == "{return" + d.paramNames[0] + ";}";
}

bool isCopyFun(const EGraph& g, EClassId c, int depth);

// An application `f $ x` whose argument class holds the innermost bound variable.
bool appliesToParam0(const EGraph& g, const ENode& apply) {
    for (ENodeId m : g.eclass(apply.children[1]).nodes) {
        if (g.node(m).op == Op::Param && g.node(m).ival == 0) {
            return true;
        }
    }
    return false;
}

// fun(x => x) or fun(x => f $ x) with f a copy.
bool isCopyLambda(const EGraph& g, const ENode& lam, int depth) {
    if (lam.ival != 1) {
        return false;
    }
    for (ENodeId n : g.eclass(lam.children[0]).nodes) {
        const ENode& e = g.node(n);
        if (e.op == Op::Param && e.ival == 0) {
            return true;
        }
        // The argument first: it is one class to scan, while isCopyFun searches the function's
        // members to depth 4 (a body with many applications would repeat that search for each).
        if (e.op == Op::Apply && e.children.size() == 2 && appliesToParam0(g, e) &&
            isCopyFun(g, e.children[0], depth + 1)) {
            return true;
        }
    }
    return false;
}

// The function class computes the identity (possibly copying): Id, an identity user function,
// maps of copies, memory placement of copies, or a lambda wrapping one. Lowered variants of a
// map share their child class, so each distinct child is examined once.
bool isCopyFun(const EGraph& g, EClassId c, int depth) {
    if (depth > 4) {
        return false; // a bound on the search; deeper copies are not recognised
    }
    std::vector<EClassId> inner;
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& e = g.node(n);
        switch (e.op) {
        case Op::Id:
            return true;
        case Op::UserFun:
            if (isIdentityUserFun(g.userFuns.at(static_cast<size_t>(e.ival)))) {
                return true;
            }
            break;
        case Op::Lambda:
            if (isCopyLambda(g, e, depth)) {
                return true;
            }
            break;
        default: {
            // A map or a memory placement copies when its function does.
            lift::Semantics meaning = lift::semantics(e.op);
            if (meaning != lift::Semantics::Map && meaning != lift::Semantics::Place) {
                break;
            }
            EClassId child = g.findConst(e.children[0]);
            if (std::find(inner.begin(), inner.end(), child) == inner.end()) {
                inner.push_back(child);
            }
            break;
        }
        }
    }
    return std::any_of(inner.begin(), inner.end(),
                       [&](EClassId i) { return isCopyFun(g, i, depth + 1); });
}

bool hasOp(const EGraph& g, EClassId c, std::initializer_list<Op> ops) {
    for (ENodeId n : g.eclass(c).nodes) {
        for (Op op : ops) {
            if (g.node(n).op == op) {
                return true;
            }
        }
    }
    return false;
}

// The class holds an application of a function class that holds `op` (`AsScalar $ x`).
bool holdsApplicationOf(const EGraph& g, EClassId c, Op op) {
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& e = g.node(n);
        if (e.op == Op::Apply && !e.children.empty() && hasOp(g, e.children[0], {op})) {
            return true;
        }
    }
    return false;
}

// Whether the smallest term of class c (under `depth` binders below the lambda whose parameter
// is read) holds a map whose function is a lambda reading that parameter, within `budget` nodes.
bool mapReadsParameter(const EGraph& g, EClassId c, int32_t depth, int& budget) {
    if (--budget < 0) {
        return false;
    }
    const ENode& n = g.node(g.data(c).best);
    if (lift::isMapLike(n.op) && !n.children.empty()) {
        const ENode& f = g.node(g.data(n.children[0]).best);
        if (f.op == Op::Lambda) {
            auto fv = g.smallestTermFreeVars(f.children[0]);
            if (std::binary_search(fv.begin(), fv.end(), depth + f.ival)) {
                return true;
            }
        }
    }
    int32_t inner = n.op == Op::Lambda ? depth + n.ival : depth;
    for (EClassId child : n.children) {
        if (mapReadsParameter(g, child, inner, budget)) {
            return true;
        }
    }
    return false;
}

// Whether function class fn holds a one-parameter lambda whose body reads the parameter in a
// map of its own (a shared operand, which every iteration of that map reads).
bool readsParameterInMap(const EGraph& g, EClassId fn) {
    constexpr int kNodes = 64; // a shared operand is read near the top of the lambda's body
    for (ENodeId n : g.eclass(fn).nodes) {
        const ENode& lambda = g.node(n);
        int budget = kNodes;
        if (lambda.op == Op::Lambda && lambda.ival == 1 &&
            mapReadsParameter(g, lambda.children[0], 0, budget)) {
            return true;
        }
    }
    return false;
}

bool isNumericScalar(const lift::TypeArena& t, TypeId ty) {
    const auto& n = t.at(ty);
    return n.kind == lift::TypeKind::Scalar &&
           (n.scalar == lift::ScalarKind::Float || n.scalar == lift::ScalarKind::Int);
}

// The element `depth` array levels down (1: the element of an array, 2: of a matrix), if the
// type has that many.
std::optional<TypeId> elementAt(const lift::TypeArena& types, TypeId t, int depth) {
    for (int i = 0; i < depth; ++i) {
        if (t == lift::kNoType || !types.isArray(t)) {
            return std::nullopt;
        }
        t = types.elemOf(t);
    }
    return t;
}

// Whether a user function's C body also computes lane by lane on vectors: the code generator's
// vector version (f_v4) keeps the body and widens the parameter and result types, so the body
// must be one `return` of an expression (after any #define lines). Local variables, loops and
// branches (`float t = x; ...`, `while (x > 1.0f)`) and casts to scalar types stay scalar and do
// not build with vector parameters.
bool laneSafe(const lift::UserFunDecl& d) {
    std::string body;
    size_t start = 0;
    while (start < d.body.size()) { // drop preprocessor lines
        size_t end = d.body.find('\n', start);
        end = end == std::string::npos ? d.body.size() : end;
        std::string line = d.body.substr(start, end - start);
        size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] != '#') {
            body += line + "\n";
        }
        start = end + 1;
    }
    body = squeeze(body);
    while (body.starts_with("{{") && body.ends_with("}}")) { // a block around the directives'
        body = body.substr(1, body.size() - 2);
    }
    if (!body.starts_with("{return") || !body.ends_with(";}")) {
        return false;
    }
    std::string expr = body.substr(7, body.size() - 9);
    for (const char* scalarCast : {"(float)", "(int)", "(double)", "(uint)", "(long)", "(bool)"}) {
        if (expr.find(scalarCast) != std::string::npos) {
            return false;
        }
    }
    return expr.find_first_of(";{}") == std::string::npos;
}

// No user function of the class is unsafe lane by lane (a lambda is not vectorised in code).
bool laneSafeClass(const EGraph& g, EClassId f) {
    for (ENodeId n : g.eclass(f).nodes) {
        const ENode& e = g.node(n);
        if (e.op == Op::UserFun && !laneSafe(g.userFuns.at(static_cast<size_t>(e.ival)))) {
            return false;
        }
    }
    return true;
}

// ?f combines two numeric scalars of one type into one, and ?x is an array of them: the
// reduction by f can run lane-wise on vectors (VectorizeUserFun).
bool vectorizableReducer(const EGraph& g, EClassId f, EClassId x, int depth) {
    const ClassData& xd = g.data(x);
    auto e = xd.isData() ? elementAt(g.types, xd.type, depth) : std::nullopt;
    if (!e) {
        return false;
    }
    TypeId elem = *e;
    const FunSig& sig = g.data(f).fun;
    return isNumericScalar(g.types, elem) && sig.kind == FunSig::Kind::Mono &&
           sig.params.size() == 2 && sig.params[0] == elem && sig.params[1] == elem &&
           sig.result == elem && laneSafeClass(g, f);
}

// ?f maps one numeric scalar to a numeric scalar and ?x is an array of that scalar: f can be
// applied lane-wise to vectors (MapVec, VectorizeUserFun).
// With several arguments: f takes one element of each array, and a numeric scalar value as it is
// (VectorizeUserFun broadcasts it to every lane); at least one argument is an array.
bool vectorizable(const EGraph& g, EClassId f, std::span<const ArgValue> xs, int depth) {
    const FunSig& sig = g.data(f).fun;
    if (sig.kind != FunSig::Kind::Mono || sig.params.size() != xs.size() ||
        !isNumericScalar(g.types, sig.result)) {
        return false;
    }
    if (!laneSafeClass(g, f)) {
        return false;
    }
    bool arrays = false;
    for (size_t i = 0; i < xs.size(); ++i) {
        const ClassData& xd = g.data(xs[i].eclass);
        if (!xd.isData() || xd.type == lift::kNoType) {
            return false;
        }
        auto deep = elementAt(g.types, xd.type, depth);
        bool array = deep.has_value() && g.types.isArray(xd.type);
        TypeId elem = array ? *deep : xd.type;
        if ((!array && xs.size() == 1) || !isNumericScalar(g.types, elem) ||
            sig.params[i] != elem) {
            return false;
        }
        arrays = arrays || array;
    }
    return arrays;
}

} // namespace

void addFunctionConditions(Library& lib) {
    using Args = std::span<const ArgValue>;
    lib.conditions["associative"] = {
        {"c", "the function is an associative user function (x+y, x*y, fmax, fmin)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return classOp(g, a[0].eclass) != BinOp::None;
        }};
    lib.conditions["commutative"] = {
        {"c", "the function is a commutative user function (x+y, x*y, fmax, fmin)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return classOp(g, a[0].eclass) != BinOp::None;
        }};
    lib.conditions["neutral"] = {
        {"cc", "the value is a literal neutral element of the function (0 for +, 1 for *)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return isNeutral(g, a[0].eclass, classOp(g, a[1].eclass));
        }};
    lib.conditions["isCopy"] = {
        {"c", "the function computes the identity (a copy)"},
        [](const EGraph& g, const SizeFacts&, Args a) { return isCopyFun(g, a[0].eclass, 0); }};
    lib.conditions["isReduce"] = {
        {"c", "the function class holds a reduction"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return hasOp(g, a[0].eclass, {Op::Reduce, Op::ReduceSeq, Op::PartRed});
        }};
    // A lambda's body class, not its type: a bound variable's class has no type, so the lengths
    // inside a lambda are unknown; a reduction's result has one element whatever it reduces.
    lib.conditions["reducesChunk"] = {
        {"c", "the function class holds a one-parameter lambda whose body is a reduction's result"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            for (ENodeId n : g.eclass(a[0].eclass).nodes) {
                const ENode& e = g.node(n);
                if (e.op == Op::Lambda && e.ival == 1 &&
                    (holdsApplicationOf(g, e.children[0], Op::Reduce) ||
                     holdsApplicationOf(g, e.children[0], Op::ReduceSeq))) {
                    return true;
                }
            }
            return false;
        }};
    lib.conditions["isLayout"] = {
        {"c", "the function class holds a data-layout pattern (a view worth materialising)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return hasOp(g, a[0].eclass,
                         {Op::Split, Op::Transpose, Op::Gather, Op::Slide, Op::Pad});
        }};
    lib.conditions["monomorphic"] = {
        {"c", "the function class has one signature (a lambda or user function)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return g.data(a[0].eclass).fun.kind == FunSig::Kind::Mono;
        }};
    lib.conditions["notReordered"] = {
        {"c", "the class holds no Gather, Scatter or Reorder (a reordering is not stacked)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return !hasOp(g, a[0].eclass, {Op::Gather, Op::Scatter, Op::Reorder});
        }};
    lib.conditions["notVectorized"] = {
        {"c", "the class holds no asScalar view (its elements are not already vector lanes)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return !holdsApplicationOf(g, a[0].eclass, Op::AsScalar);
        }};
    lib.conditions["vectorizableReducer"] = {
        {"cc", "the function combines two numeric scalars into one, the array holds them"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return vectorizableReducer(g, a[0].eclass, a[1].eclass, 1);
        }};
    lib.conditions["vectorizable"] = {
        {"cc+",
         "the function maps numeric scalars (one element of each array, or a scalar value, which "
         "vectorisation broadcasts) to a numeric scalar"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return vectorizable(g, a[0].eclass, a.subspan(1), 1);
        }};
    // The same for the elements of matrices (arrays of arrays): a rule that vectorises rows.
    lib.conditions["vectorizableReducerInner"] = {
        {"cc", "the function combines two numeric scalars into one, the matrix holds them"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return vectorizableReducer(g, a[0].eclass, a[1].eclass, 2);
        }};
    // A matrix that a vector view of its rows can read: `Map(asVector(w))` types on it.
    lib.conditions["scalarMatrix"] = {{"c", "the class is an array of arrays of numeric scalars"},
                                      [](const EGraph& g, const SizeFacts&, Args a) {
                                          const ClassData& d = g.data(a[0].eclass);
                                          auto e = d.isData() ? elementAt(g.types, d.type, 2)
                                                              : std::nullopt;
                                          return e && isNumericScalar(g.types, *e);
                                      }};
    lib.conditions["readsInMap"] = {
        {"c", "the function class holds a one-parameter lambda whose body reads its parameter "
              "inside a map of its own (every iteration of that map reads the parameter)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return readsParameterInMap(g, a[0].eclass);
        }};
    // A map whose elements are matrices (a split's blocks of rows): a copy of an element is a
    // map of maps of the scalars' identity (stage-local).
    lib.conditions["matrixElements"] = {
        {"c", "the class is an array of arrays of arrays of numeric scalars"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            const ClassData& d = g.data(a[0].eclass);
            auto e = d.isData() ? elementAt(g.types, d.type, 3) : std::nullopt;
            return e && isNumericScalar(g.types, *e);
        }};
    // A fold over slices of tiles (arrays of matrices of scalars or float4s): a copy of a
    // slice is a map of maps of the element's identity (stage-fold-slices).
    lib.conditions["tileSlices"] = {
        {"c", "the class is an array of arrays of arrays of numeric scalars or float4s"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            const ClassData& d = g.data(a[0].eclass);
            auto e = d.isData() ? elementAt(g.types, d.type, 3) : std::nullopt;
            if (!e) {
                return false;
            }
            const auto& n = g.types.at(*e);
            return isNumericScalar(g.types, *e) ||
                   (n.kind == lift::TypeKind::Vector && n.scalar == lift::ScalarKind::Float &&
                    n.width == 4);
        }};
    // A local copy stored transposed copies the transposed view (local-copy-transposed): not
    // again of what is a transposed view already.
    lib.conditions["notTransposed"] = {
        {"c", "the class holds no Transpose application (a transposed view)"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return !holdsApplicationOf(g, a[0].eclass, Op::Transpose);
        }};
    lib.conditions["vectorizableInner"] = {
        {"cc+", "the function maps numeric scalars (one element of each matrix) to a numeric "
                "scalar"},
        [](const EGraph& g, const SizeFacts&, Args a) {
            return vectorizable(g, a[0].eclass, a.subspan(1), 2);
        }};
}

} // namespace egopt::egraph::detail
