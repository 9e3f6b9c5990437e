// What pattern variables are instantiated with: user functions and small function terms of
// various types (rejection sampling with the type checker keeps the well-typed choices),
// top-level parameters of random array, tuple and vector types, bound variables, and the
// neutral elements of the monoids that reductions use.
#include "soundness_detail.hpp"

#include <array>
#include <memory>
#include <stdexcept>

namespace egopt::rules::detail {

using lift::Op;

namespace {

struct UserFunSpec {
    const char* name;
    const char* params; // space-separated
    const char* types;  // parameter types then the result: f Float, 4 Float4, t (Float, Float)
    const char* body;
};

constexpr std::array kUserFuns = {
    UserFunSpec{"add", "x y", "fff", "{ return x + y; }"},
    UserFunSpec{"mult", "x y", "fff", "{ return x * y; }"},
    UserFunSpec{"sub", "x y", "fff", "{ return x - y; }"},
    UserFunSpec{"maxf", "x y", "fff", "{ return fmax(x, y); }"},
    UserFunSpec{"neg", "x", "ff", "{ return -x; }"},
    UserFunSpec{"plusOne", "x", "ff", "{ return x + 1.0f; }"},
    UserFunSpec{"abs", "x", "ff", "{ return fabs(x); }"},
    UserFunSpec{"id", "x", "ff", "{ return x; }"},
    UserFunSpec{"square", "x", "ff", "{ return x * x; }"},
    UserFunSpec{"addF4", "x y", "444", "{ return x + y; }"},
    UserFunSpec{"pair", "x", "ft", "{ Tuple t; t._0 = x; t._1 = 2.0f * x; return t; }"},
};

TypeId letterType(char c, lift::TypeArena& types) {
    switch (c) {
    case '4':
        return types.vector(lift::ScalarKind::Float, 4);
    case 't': {
        std::array<TypeId, 2> f{types.floatType(), types.floatType()};
        return types.tuple(f);
    }
    default:
        return types.floatType();
    }
}

lift::UserFunDecl declOf(const UserFunSpec& s, lift::TypeArena& types) {
    lift::UserFunDecl d;
    d.name = s.name;
    d.body = s.body;
    std::string params = s.params;
    for (size_t pos = 0; pos < params.size();) {
        size_t end = std::min(params.find(' ', pos), params.size());
        d.paramNames.push_back(params.substr(pos, end - pos));
        pos = end + 1;
    }
    std::string_view t = s.types;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
        d.paramTypes.push_back(letterType(t[i], types));
    }
    d.returnType = letterType(t.back(), types);
    return d;
}

Recipe uf(const char* name) {
    return [name](Builder& b) { return b.userFun(name); };
}

// op(inner) for a pattern taking one function (Map, Gather, ...).
Recipe wrap(Op op, Recipe inner, std::vector<arith::Size> sizes = {}) {
    return [op, inner, sizes](Builder& b) { return b.op(op, 0, {inner(b)}, sizes); };
}

Recipe plain(Op op, std::vector<arith::Size> sizes = {}, int32_t ival = 0) {
    return [op, sizes, ival](Builder& b) { return b.op(op, ival, {}, sizes); };
}

NodeId get(Builder& b, NodeId t, int32_t field) {
    return b.apply(b.op(Op::Get, field), {t});
}

// fun(a => f(a, x)) where x is the value `capture` makes at each occurrence.
Recipe capturing(const char* f, Recipe capture) {
    return [f, capture](Builder& b) {
        NodeId x = capture(b);
        return b.lambda(1, [&](const auto& a) { return b.apply(b.userFun(f), {a[0], x}); });
    };
}

Recipe boundVar(int32_t index) {
    return [index](Builder& b) { return b.env.at(b.env.size() - 1 - static_cast<size_t>(index)); };
}

Recipe tupleOfParams(size_t arity) {
    return [arity](Builder& b) {
        return b.lambda(arity, [&](const auto& a) {
            return b.apply(b.op(Op::Tuple, static_cast<int32_t>(arity)), a);
        });
    };
}

// Closed unary functions of many types.
std::vector<Recipe> unaryPool(Builder& b) {
    auto small = arith::Size(static_cast<int64_t>(1 + pick(b.rng, 4)));
    // A scalar parameter, created at the first use only (a recipe may be invoked repeatedly).
    auto alpha = std::make_shared<std::optional<NodeId>>();
    Recipe scalar = [alpha](Builder& b) {
        if (!*alpha) {
            *alpha = b.topParam(b.p.types.floatType());
        }
        return **alpha;
    };
    std::vector<Recipe> pool{
        uf("plusOne"),
        uf("neg"),
        uf("abs"),
        uf("id"),
        uf("square"),
        uf("pair"),
        plain(Op::Id),
        wrap(Op::Map, uf("plusOne")),
        wrap(Op::Map, wrap(Op::Map, uf("neg"))),
        wrap(Op::Map, uf("pair")),
        wrap(Op::MapSeq, uf("id")), // copies (isCopy)
        wrap(Op::ToGlobal, wrap(Op::MapSeq, uf("id"))),
        wrap(Op::MapSeq, uf("plusOne")), // low-level patterns
        wrap(Op::MapGlb, uf("abs")),
        wrap(Op::ToLocal, wrap(Op::MapLcl, uf("neg"))),
        [](Builder& b) {
            return b.lambda(1, [&](const auto& x) {
                return b.apply(b.op(Op::Tuple, 2), {x[0], x[0]});
            });
        },
        [](Builder& b) {
            return b.lambda(1, [&](const auto& t) {
                return b.apply(b.userFun("add"), {get(b, t[0], 0), get(b, t[0], 1)});
            });
        },
        [](Builder& b) {
            return b.lambda(1, [&](const auto& t) {
                return b.apply(b.op(Op::Tuple, 2), {get(b, t[0], 1), get(b, t[0], 0)});
            });
        },
        [](Builder& b) { // the product of a zipped pair (matrix products, register blocking)
            return b.lambda(1, [&](const auto& t) {
                return b.apply(b.userFun("mult"), {get(b, t[0], 0), get(b, t[0], 1)});
            });
        },
        plain(Op::Join),
        plain(Op::Transpose),
        plain(Op::Split, {small}),
        plain(Op::AsScalar),
        plain(Op::AsVector, {arith::Size(4)}),
        wrap(Op::Gather, plain(Op::Reverse)),
        [](Builder& b) {
            return b.lambda(1, [&](const auto& x) {
                NodeId zero = b.p.addLiteral(b.p.types.floatType(), "0.0f");
                return b.apply(b.op(Op::Reduce, 0, {b.userFun("add")}), {zero, x[0]});
            });
        },
        [](Builder& b) {
            return b.lambda(1, [&](const auto& v) {
                return b.apply(b.userFun("addF4"), {v[0], v[0]});
            });
        },
        wrap(Op::VectorizeUserFun, uf("plusOne"), {arith::Size(4)}),
        [](Builder& b) {
            return b.lambda(1, [&](const auto& x) {
                return b.apply(b.op(Op::Zip, 2), {x[0], x[0]});
            });
        },
        capturing("mult", scalar),
    };
    if (b.sharedOperand) { // a lambda that reads its parameter in a map of its own (readsInMap)
        pool.push_back([](Builder& b) {
            return b.lambda(1, [&](const auto& m) {
                NodeId rowsRead =
                    b.lambda(1, [&](const auto&) { return b.apply(b.op(Op::Join), {m[0]}); });
                return b.apply(b.op(Op::Map, 0, {rowsRead}), {m[0]});
            });
        });
    }
    return pool;
}

// Unary functions that use a variable bound by an enclosing pattern lambda.
std::vector<Recipe> capturingPool(Builder& b, int32_t depth) {
    Recipe x = boundVar(static_cast<int32_t>(pick(b.rng, static_cast<size_t>(depth))));
    return {
        capturing("add", x),
        [x](Builder& b) {
            NodeId v = x(b);
            return b.lambda(1, [&](const auto& a) {
                return b.apply(b.op(Op::Tuple, 2), {a[0], v});
            });
        },
        [x](Builder& b) {
            NodeId v = x(b);
            return b.op(Op::Map, 0, {b.lambda(1, [&](const auto& a) {
                            return b.apply(b.userFun("mult"), {a[0], v});
                        })});
        },
    };
}

Recipe binaryFunction(Builder& b) {
    std::vector<Recipe> pool{
        randomReducer(b),
        randomReducer(b),
        uf("sub"),
        uf("add"),
        uf("mult"),
        uf("maxf"),
        tupleOfParams(2),
        [](Builder& b) { return b.lambda(2, [](const auto& a) { return a[1]; }); },
        wrap(Op::Reduce, randomReducer(b)),
        wrap(Op::ReduceSeq, randomReducer(b)),
        wrap(Op::PartRed, randomReducer(b), {int64_t(1 + pick(b.rng, 2))})};
    return pickOf(b.rng, pool);
}

} // namespace

size_t pick(Rng& rng, size_t n) {
    return static_cast<size_t>(rng() % n);
}

Builder::Builder(Rng& r) : rng(r) {
    static constexpr std::array<int64_t, 8> kN{1, 2, 3, 4, 6, 8, 12, 16};
    static constexpr std::array<int64_t, 6> kM{1, 2, 3, 4, 6, 8};
    n = kN[pick(rng, kN.size())];
    m = kM[pick(rng, kM.size())];
    k = 2 + static_cast<int64_t>(pick(rng, 3));
    monoid = pick(rng, monoids().size());
    TypeId f = p.types.floatType();
    std::array<TypeId, 2> ff{f, f};
    std::vector<TypeId> elems{
        f, f, f, p.types.tuple(ff), p.types.vector(lift::ScalarKind::Float, 4), p.types.intType()};
    elem = pickOf(rng, elems);
}

NodeId Builder::userFun(const std::string& name) {
    if (auto it = declared.find(name); it != declared.end()) {
        return p.refUserFun(it->second);
    }
    for (const UserFunSpec& s : kUserFuns) {
        if (name == s.name) {
            declared[name] = static_cast<uint32_t>(p.userFuns.size());
            return p.addUserFun(declOf(s, p.types));
        }
    }
    throw std::logic_error("soundness: no user function " + name);
}

NodeId Builder::topParam(TypeId type) {
    top.push_back(p.addParam("p" + std::to_string(top.size()), type));
    return top.back();
}

NodeId Builder::lambda(size_t arity,
                       const std::function<NodeId(const std::vector<NodeId>&)>& body) {
    std::vector<NodeId> params;
    for (size_t i = 0; i < arity; ++i) {
        params.push_back(p.addParam("x" + std::to_string(p.params.size())));
    }
    NodeId b = body(params);
    return p.lambda(params, b);
}

NodeId Builder::op(Op o, int32_t ival, std::vector<NodeId> children,
                   std::vector<arith::Size> sizes) {
    return p.add(o, ival, children, sizes);
}

TypeId Builder::randomType() {
    // Reusing a type already given to another parameter makes instances of patterns such as
    // Zip $ (?a, ?b) or add $ (?x, ?y) well-typed far more often.
    if (!used.empty() && pick(rng, 2) == 0) {
        return pickOf(rng, used);
    }
    lift::TypeArena& t = p.types;
    TypeId f = t.floatType();
    // Arrays of this instance's element type, at this instance's lengths.
    std::vector<TypeId> choices{
        f,
        f,
        elem,
        t.array(elem, n),
        t.array(elem, n),
        t.array(elem, m),
        t.array(t.array(elem, m), n),
        t.array(t.array(elem, m), n),
        t.array(t.array(elem, n), m),
        t.array(t.array(t.array(elem, k), m), n),
        t.array(f, n),
        t.array(f, m), // a row and the rows of a matrix of floats (zips of rows with columns)
        t.array(t.array(f, m), n),
    };
    if (rank4) {
        choices.push_back(t.array(t.array(t.array(t.array(elem, k), k), m), n));
    }
    used.push_back(pickOf(rng, choices));
    return used.back();
}

const std::vector<Monoid>& monoids() {
    static const std::vector<Monoid> kMonoids{
        {"add", "0.0f", 'f'}, {"mult", "1.0f", 'f'}, {"add", "0.0f", 'f'}, {"addF4", "0.0f", '4'}};
    return kMonoids;
}

Recipe randomReducer(Builder& b) {
    return uf(monoids()[b.monoid].fun);
}

Recipe neutralElement(Builder& b) {
    const Monoid& mo = monoids()[b.monoid];
    return [mo](Builder& b) { return b.p.addLiteral(letterType(mo.type, b.p.types), mo.neutral); };
}

Recipe randomIndexFunction(Builder& b) {
    std::vector<Recipe> pool{plain(Op::Reverse),
                             plain(Op::ReorderStride, {int64_t(1 + pick(b.rng, 4))}),
                             plain(Op::Shift, {int64_t(pick(b.rng, 3))})};
    return pickOf(b.rng, pool);
}

Recipe randomScalarUserFun(Builder& b) {
    // id: the lane-wise identity, a vector copy (isCopy).
    std::vector<Recipe> pool{uf("plusOne"), uf("neg"), uf("abs"), uf("add"), uf("mult"), uf("id")};
    return pickOf(b.rng, pool);
}

Recipe randomFunction(Builder& b, size_t arity, int32_t depth) {
    if (arity == 1) {
        std::vector<Recipe> pool = unaryPool(b);
        if (depth > 0 && pick(b.rng, 3) == 0) {
            pool = capturingPool(b, depth);
        }
        return pickOf(b.rng, pool);
    }
    if (arity == 2) {
        return binaryFunction(b);
    }
    if (arity == 3 && pick(b.rng, 2) == 0) {
        return [](Builder& b) {
            return b.lambda(3, [&](const auto& a) {
                return b.apply(b.userFun("add"), {a[0], b.apply(b.userFun("mult"), {a[1], a[2]})});
            });
        };
    }
    return tupleOfParams(arity);
}

// acc + x[0][0] + y[0][0] for a fold step fun((acc, t) => ...) over pairs (x, y) of matrices:
// a body that reads both halves of its element (stage-fold-slices' applier declines others).
NodeId readsBothHalves(Builder& b) {
    NodeId acc = b.env.at(b.env.size() - 2), t = b.env.at(b.env.size() - 1);
    auto first = [&](NodeId half) {
        NodeId row = b.apply(b.op(Op::At, 0, {}, {arith::Size(0)}), {half});
        return b.apply(b.op(Op::At, 0, {}, {arith::Size(0)}), {row});
    };
    NodeId sum = b.apply(b.userFun("add"), {first(get(b, t, 0)), first(get(b, t, 1))});
    return b.apply(b.userFun("add"), {acc, sum});
}

Recipe randomData(Builder& b, int32_t depth) {
    size_t choice = pick(b.rng, 20);
    if (b.sliceFold && depth == 2 && choice < 10) {
        return readsBothHalves;
    }
    if (depth > 0 && choice < 6) { // a variable of an enclosing lambda
        return boundVar(static_cast<int32_t>(pick(b.rng, static_cast<size_t>(depth))));
    }
    if (depth > 0 && choice < 9) { // a function of it
        Recipe f = randomFunction(b, 1, 0);
        Recipe x = boundVar(static_cast<int32_t>(pick(b.rng, static_cast<size_t>(depth))));
        return [f, x](Builder& b) { return b.apply(f(b), {x(b)}); };
    }
    if (choice >= 18) { // a constant (also for isLiteral conditions)
        static const std::vector<std::string> kLiterals{"0.0f", "1.0f", "2.0f", "-1.0f"};
        std::string text = pickOf(b.rng, kLiterals);
        return [text](Builder& b) { return b.p.addLiteral(b.p.types.floatType(), text); };
    }
    NodeId param = b.topParam(b.randomType());
    if (depth > 0 && choice < 11) { // combined with a top-level parameter
        Recipe x = boundVar(static_cast<int32_t>(pick(b.rng, static_cast<size_t>(depth))));
        Recipe f = binaryFunction(b);
        return [f, x, param](Builder& b) { return b.apply(f(b), {x(b), param}); };
    }
    return [param](Builder&) { return param; };
}

} // namespace egopt::rules::detail
