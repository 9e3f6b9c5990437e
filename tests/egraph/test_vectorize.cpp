// Vectorisation in the e-graph: size assumptions let `divides` prove a symbolic length, the
// reduce vectorisation rule builds its vector initial value with @broadcast (a class computed in
// a `where` clause), and asum and dot reach their vectorised forms with the shipped rules.
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

lift::Program vectorProgram(const std::string& body,
                            const std::string& params = "ArrayType(Float, N)",
                            const std::string& names = "xs") {
    return lift::parseProgram(
        "val N = SizeVar(\"N\")\nfun(" + params + ", " + names + " => " + body + ")", "t.lift");
}

const char* kVectorizeMap =
    "rule v8: Map(?f) $ ?x => AsScalar $ (Map(MapVec(?f)) $ (AsVector(8) $ ?x))\n"
    "    if vectorizable(?f, ?x), divides(8, ?x)\n";

// `facts` as the pipeline states them (SizeFacts: none by default).
size_t applications(EGraph& g, const std::vector<Rule>& rules, const Library& lib,
                    const SizeFacts& facts = {}) {
    RewriteContext ctx{{}, facts, {}};
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 1;
    RunReport r = runner.run();
    size_t n = 0;
    for (const auto& s : r.rules) {
        n += s.applications;
    }
    return n;
}

// Saturates `a` with the OpenCL rules (16 | N assumed) and checks that `b` joins its class.
bool reaches(lift::Program a, lift::Program b, size_t iterations) {
    Library lib = Library::standard();
    auto rules = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/opencl.rules", lib);
    EGraph g;
    RewriteContext ctx;
    ctx.facts.assumeDivides(arith::Size(16), arith::Size::var("N"));
    EClassId ra = insertProgram(g, a).root;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = iterations;
    runner.limits.nodes = 20'000;
    runner.run();
    EClassId rb = insertProgram(g, b).root;
    g.rebuild();
    return g.find(ra) == g.find(rb);
}

// Whether the rules apply once to `a` and put `b` in its class.
bool rewritesOnceTo(const std::vector<Rule>& rules, const Library& lib, lift::Program a,
                    lift::Program b) {
    EGraph g;
    EClassId ra = insertProgram(g, a).root;
    size_t applied = applications(g, rules, lib);
    EClassId rb = insertProgram(g, b).root;
    g.rebuild();
    return applied == 1 && g.find(ra) == g.find(rb);
}

} // namespace

TEST_CASE("divides proves a symbolic length only under an assumption", "[egraph]") {
    Library lib = Library::standard();
    auto rules = rules::parseRules(kVectorizeMap, "v.rules", lib);
    lift::Program p = vectorProgram("Map(abs) $ xs");
    {
        EGraph g;
        insertProgram(g, p);
        CHECK(applications(g, rules, lib) == 0); // N may be odd
    }
    {
        EGraph g;
        SizeFacts facts;
        facts.assumeDivides(arith::Size(4), arith::Size::var("N"));
        insertProgram(g, p);
        CHECK(applications(g, rules, lib, facts) == 0); // 4 | N does not give 8 | N
        CHECK_FALSE(facts.divides(arith::Size(8), arith::Size::var("N")));
    }
    {
        EGraph g;
        SizeFacts facts;
        facts.assumeDivides(arith::Size(16), arith::Size::var("N"));
        insertProgram(g, p);
        CHECK(applications(g, rules, lib, facts) == 1); // 8 | 16 | N
        CHECK(facts.divides(arith::Size(8), arith::Size::var("N")));
        CHECK_FALSE(facts.divides(arith::Size(32), arith::Size::var("N")));
    }
}

TEST_CASE("a user function is vectorised only when its body is one return", "[egraph]") {
    // The vector version keeps the body and widens the types: a scalar local or a loop would
    // not build on float4 (`float acc = x` from a float4 x).
    Library lib = Library::standard();
    auto rules = rules::parseRules(kVectorizeMap, "v.rules", lib);
    SizeFacts facts;
    facts.assumeDivides(arith::Size(16), arith::Size::var("N"));
    auto applied = [&](const std::string& body) {
        std::string decl =
            "val f = UserFun(\"f\", \"x\", \"\"\"" + body + "\"\"\", Float, Float)\n";
        lift::Program p = lift::parseProgram("val N = SizeVar(\"N\")\n" + decl +
                                                 "fun(ArrayType(Float, N), xs => Map(f) $ xs)",
                                             "t.lift");
        EGraph g;
        insertProgram(g, p);
        return applications(g, rules, lib, facts);
    };
    CHECK(applied("{ return x > 0.0f ? 2.0f * x : fabs(x); }") == 1);
    CHECK(applied("#define TWO 2.0f\n{ return TWO * x; }") == 1);
    CHECK(applied("{ float t = x * x; return t; }") == 0);
    CHECK(applied("{ return (float)(x) * 2.0f; }") == 0);
    CHECK(applied("{ if (x > 0.0f) { return x; } return -x; }") == 0);
}

TEST_CASE("a where clause computes a class: the broadcast vector literal", "[egraph]") {
    Library lib = Library::standard();
    auto rules = rules::parseRules(
        "rule r: Reduce(?f) $ (?z, ?x) => Reduce(?f) $ (?z, AsScalar $ (Reduce(VectorizeUserFun(4, "
        "?f)) $ (?zv, AsVector(4) $ ?x)))\n"
        "    if associative(?f), neutral(?z, ?f), divides(4, ?x)\n"
        "    where ?zv = @broadcast(?z, 4)\n",
        "r.rules", lib);
    REQUIRE(rules.size() == 1);
    CHECK(rules[0].computed.size() == 1);
    lift::Program a = vectorProgram("Reduce(add, 0.0f) $ xs", "ArrayType(Float, 8)");
    lift::Program b =
        vectorProgram("Reduce(add, 0.0f) o asScalar() o Reduce(VectorizeUserFun(4, add), "
                      "Value(\"0.0f\", Float4)) o asVector(4) $ xs",
                      "ArrayType(Float, 8)");
    CHECK(rewritesOnceTo(rules, lib, a, b));

    // A right-hand-side variable that neither side nor a where clause binds is an error.
    CHECK_THROWS_WITH(rules::parseRules("rule s: Id $ ?x => Tuple $ (?x, ?y)\n", "s.rules", lib),
                      Catch::Contains("?y is not bound by the left-hand side"));
    // A where clause cannot compute a variable the left-hand side binds.
    CHECK_THROWS(
        rules::parseRules("rule s: Id $ ?x => ?x where ?x = @broadcast(?x, 4)\n", "s.rules", lib));
}

TEST_CASE("a where clause computes the identity user function of a class's type", "[egraph]") {
    // identityOf gives the copy a macro writes as toLocal(MapSeq(?id)); `id` in rule syntax is
    // the Id view, which copies nothing.
    Library lib = Library::standard();
    auto rules = rules::parseRules("rule r: Reduce(?f) $ (?z, ?x) => toGlobal(MapSeq(?id)) $ "
                                   "(Reduce(?f) $ (?z, ?x))\n"
                                   "    where ?id = @identityOf(?z)\n",
                                   "r.rules", lib);
    REQUIRE(rules.size() == 1);
    lift::Program a = vectorProgram("Reduce(add, 0.0f) $ xs", "ArrayType(Float, 8)");
    lift::Program b =
        vectorProgram("toGlobal(MapSeq(id)) o Reduce(add, 0.0f) $ xs", "ArrayType(Float, 8)");
    CHECK(rewritesOnceTo(rules, lib, a, b));

    // No identity for a type without one (a tuple): the rule does not apply.
    lift::Program t = vectorProgram("Reduce(fun((a, p) => a), Tuple(0.0f, 0.0f)) $ Zip(xs, xs)",
                                    "ArrayType(Float, 8)");
    EGraph h;
    insertProgram(h, t);
    CHECK(applications(h, rules, lib) == 0);
}

TEST_CASE("asum reaches the vectorised fused partial reduction", "[egraph]") {
    lift::Program a = vectorProgram("Reduce(add, 0.0f) o Map(abs) $ xs");
    lift::Program b =
        vectorProgram("Reduce(add, 0.0f) o asScalar() o Reduce(VectorizeUserFun(8, add), "
                      "Value(\"0.0f\", Float8)) o Map(MapVec(abs)) o asVector(8) $ xs");
    CHECK(reaches(a, b, 3));
}

TEST_CASE("dot reaches the vectorised element-wise product", "[egraph]") {
    const char* params = "ArrayType(Float, N), ArrayType(Float, N)";
    lift::Program a =
        vectorProgram("Reduce(add, 0.0f) o Map(fun(p => mult(Get(p, 0), Get(p, 1)))) $ Zip(xs, ys)",
                      params, "(xs, ys)");
    lift::Program b =
        vectorProgram("Reduce(add, 0.0f) o asScalar() o Reduce(VectorizeUserFun(8, add), "
                      "Value(\"0.0f\", Float8)) o Map(fun(p => VectorizeUserFun(8, "
                      "mult)(Get(p, 0), Get(p, 1)))) $ Zip(asVector(8)(xs), "
                      "asVector(8)(ys))",
                      params, "(xs, ys)");
    CHECK(reaches(a, b, 3));
}

TEST_CASE("scal reaches the vectorised map with alpha broadcast", "[egraph]") {
    const char* params = "ArrayType(Float, N), Float";
    lift::Program a = vectorProgram("Map(fun(x => mult(alpha, x))) $ xs", params, "(xs, alpha)");
    for (int w : {4, 8, 16}) {
        INFO(w);
        std::string v = std::to_string(w);
        lift::Program b = vectorProgram("asScalar() o Map(fun(x => VectorizeUserFun(" + v +
                                            ", mult)(alpha, x))) o asVector(" + v + ") $ xs",
                                        params, "(xs, alpha)");
        CHECK(reaches(a, b, 1));
    }
    // The captured value on the other side, and a literal.
    lift::Program c = vectorProgram("Map(fun(x => mult(x, 2.0f))) $ xs");
    lift::Program d = vectorProgram(
        "asScalar() o Map(fun(x => VectorizeUserFun(4, mult)(x, 2.0f))) o asVector(4) $ xs");
    CHECK(reaches(c, d, 1));
    // Not when the "captured" argument is the element itself (notFree: x * x captures nothing).
    lift::Program e = vectorProgram("Map(fun(x => mult(x, x))) $ xs");
    lift::Program f = vectorProgram(
        "asScalar() o Map(fun(x => VectorizeUserFun(4, mult)(x, x))) o asVector(4) $ xs");
    CHECK_FALSE(reaches(e, f, 1));
}
