// Classes shared by contexts whose variables have other types: a class that does not depend on
// a variable is one class in every context that holds it, and a rule that dropped a subterm left
// a member there that names the variable at its type in one context. A match through that
// member must not combine it with a class of another context (rewrite_parts.hpp,
// crossesContexts).
#include "egopt/egraph/runner.hpp"
#include "egopt/rules/loader.hpp"
#include "test_helpers.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <oneapi/tbb/task_arena.h>

using namespace egopt;
using namespace egopt::egraph;

namespace {

// The program saturated for two iterations with the rules (the second rewrites through what the
// first merged, where contexts may mix), rebuilt: its root class and the run's report.
std::pair<EClassId, RunReport> runTwoIterations(EGraph& g, const std::string& ruleText,
                                                const std::string& program) {
    Library lib = Library::standard();
    auto rules = rules::parseRules(ruleText, "t.rules", lib);
    lift::Program p = lift::parseProgram(program, "t.lift");
    EClassId root = insertProgram(g, p).root;
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 2;
    RunReport report = runner.run();
    g.rebuild();
    return {root, std::move(report)};
}

// The types of the variables free in a term, indexed from its root; false where the term
// gives one variable two types.
bool varTypes(const TermArena& t, TermId id, int32_t depth, std::map<int32_t, TypeId>& out) {
    const TermNode& n = t.at(id);
    bool ok = true;
    if (n.op == lift::Op::Param && n.ival >= depth && !n.types.empty()) {
        auto [it, fresh] = out.emplace(n.ival - depth, n.types[0]);
        ok = fresh || it->second == n.types[0];
    }
    int32_t inner = n.op == lift::Op::Lambda ? depth + n.ival : depth;
    for (TermId child : n.children) {
        ok = varTypes(t, child, inner, out) && ok;
    }
    return ok;
}

// The e-nodes of class `c` whose children's smallest terms give a variable two types.
size_t mixedMembers(const EGraph& g, EClassId c) {
    size_t mixed = 0;
    for (ENodeId n : g.eclass(c).nodes) {
        const ENode& node = g.node(n);
        int32_t bound = node.op == lift::Op::Lambda ? node.ival : 0;
        std::map<int32_t, TypeId> all;
        bool ok = true;
        for (EClassId child : node.children) {
            TermArena t;
            std::map<int32_t, TypeId> vars;
            ok = varTypes(t, g.extract(child, t), 0, vars) && ok;
            for (auto [v, type] : vars) {
                auto [it, fresh] =
                    v < bound ? std::pair{all.end(), true} : all.emplace(v - bound, type);
                ok = ok && (fresh || it->second == type);
            }
        }
        mixed += !ok;
    }
    return mixed;
}

} // namespace

// Row r's split, `Split(2) $ r`, is one class under both inner maps, which bind variable 0 to a
// Float (s) and to a pair (t). Under t, map-get-zip-first makes the projection of its zip with
// `Map(fun(c => t)) $ ...` a member of the split's class; map-fusion under s, matching
// `Map(?f) $ (Map(?g) $ ?x)` through that member, would zip s's function with t's array.
TEST_CASE("a map fusion does not combine a member another context left with its own function",
          "[egraph]") {
    EGraph g;
    auto [root, report] = runTwoIterations(
        g,
        "rule map-get-zip-first: Map(fun(u => Get(0) $ u)) $ (Zip $ (?a, ?b)) => ?a\n"
        "rule map-get-first: Map(Get(0)) $ (Zip $ (?a, ?b)) => ?a\n"
        "rule map-fusion: Map(?f) $ (Map(?g) $ ?x) => Map(fun(y => ?f $ (?g $ y))) $ ?x\n",
        "fun(ArrayType(ArrayType(Float, 4), 8), ArrayType(Float, 3),\n"
        "    ArrayType(TupleType(Float, Float), 3), (a, v, w) =>\n"
        "  Map(fun(r => Zip(\n"
        "    Map(fun(s => Map(fun(c => Map(fun(e => add(e, s))) $ c)) $ (Split(2) $ r))) $ v,\n"
        "    Map(fun(t => Map(fun(u => u._0)) $ Zip(Split(2) $ r,\n"
        "      Map(fun(c => t)) $ (Split(2) $ r)))) $ w))) $ a)");
    size_t mixed = 0;
    for (EClassId c : g.classIds()) {
        mixed += mixedMembers(g, c);
    }
    INFO(g.show(root));
    CHECK(mixed == 0);
}

namespace {

// The free variables of c's smallest term with their types, read from the extracted term
// (kMixedType where it gives one two types): what EGraph::smallestVarTypes keeps.
std::vector<VarType> extractedVarTypes(const EGraph& g, EClassId c) {
    TermArena t;
    TermId root = g.extract(c, t);
    std::vector<VarType> out;
    std::vector<std::pair<TermId, int32_t>> todo{{root, 0}}; // term, binders above it
    while (!todo.empty()) {
        auto [id, depth] = todo.back();
        todo.pop_back();
        const TermNode& n = t.at(id);
        if (n.op == lift::Op::Param && n.ival >= depth && !n.types.empty()) {
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const VarType& v) { return v.var == n.ival - depth; });
            if (it == out.end()) {
                out.push_back({n.ival - depth, n.types[0]});
            } else if (it->type != n.types[0]) {
                it->type = kMixedType;
            }
        }
        for (TermId child : n.children) {
            todo.push_back({child, n.op == lift::Op::Lambda ? depth + n.ival : depth});
        }
    }
    std::sort(out.begin(), out.end(),
              [](const VarType& a, const VarType& b) { return a.var < b.var; });
    return out;
}

size_t wrongVarTypes(const EGraph& g) {
    size_t wrong = 0;
    for (EClassId c : g.classIds()) {
        VarTypeScratch scratch;
        std::span<const VarType> kept = g.smallestVarTypes(c, scratch);
        std::vector<VarType> want = extractedVarTypes(g, c);
        wrong += !std::equal(kept.begin(), kept.end(), want.begin(), want.end());
    }
    return wrong;
}

// mm with core's and the algorithmic rules for `iterations` iterations.
void saturateMm(EGraph& g, size_t iterations) {
    Library lib = Library::standard();
    auto rules = test::loadSourceRules(lib, "rules/core.rules,rules/algorithmic.rules");
    lift::Program p = lift::parseFile(test::example("mm.lift"));
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = iterations;
    runner.run();
}

} // namespace

// The kept lists stay those of the smallest terms through merges that change smallest terms
// before any rebuild (as the apply phase merges), through settling and rebuilding.
TEST_CASE("the smallest terms' variable types are kept through merges and rebuilds", "[egraph]") {
    EGraph g;
    saturateMm(g, 3);
    g.rebuild();
    CHECK(wrongVarTypes(g) == 0);
    // Merge data classes of one type pairwise, the smaller term into the larger where it
    // wins: their readers' smallest terms change.
    std::map<TypeId, std::vector<EClassId>> byType;
    for (EClassId c : g.classIds()) {
        if (g.data(c).isData() && g.data(c).hasFreeVarAtLeast(0)) {
            byType[g.data(c).type].push_back(c);
        }
    }
    size_t merged = 0;
    for (auto& [type, classes] : byType) {
        for (size_t i = 1; i < classes.size() && merged < 40; i += 7, ++merged) {
            g.merge(classes[i - 1], classes[i], {});
        }
    }
    REQUIRE(merged > 0);
    CHECK(wrongVarTypes(g) == 0);
    g.settleVarTypes();
    CHECK(wrongVarTypes(g) == 0);
    g.rebuild();
    CHECK(wrongVarTypes(g) == 0);
}

// One thread settles lists on demand only, so a run leaves most new classes unsettled; settling
// them all at once works them out in parallel chunks, most from their children's settled lists
// directly (EGraph::settleVarTypes): every list must be the one the smallest term gives.
TEST_CASE("the variable types of thousands of classes settled in parallel chunks are the terms'",
          "[egraph]") {
    EGraph g;
    saturateMm(g, 4);
    size_t unsettled = 0;
    for (EClassId c : g.classIds()) {
        unsettled += !g.varTypesSettled(c);
    }
    REQUIRE(unsettled >= 2048); // chunks of 128 on every thread
    tbb::task_arena arena(4);
    arena.execute([&] { g.settleVarTypes(); });
    for (EClassId c : g.classIds()) {
        REQUIRE(g.varTypesSettled(c));
    }
    CHECK(wrongVarTypes(g) == 0);
}

namespace {

// The lambdas whose body's smallest term gives one of their parameters another type than the
// lambda's (or two types): a body built in another context.
size_t lambdasOfOtherContexts(const EGraph& g) {
    size_t wrong = 0;
    for (EClassId c : g.classIds()) {
        for (ENodeId n : g.eclass(c).nodes) {
            const ENode& node = g.node(n);
            if (node.op != lift::Op::Lambda) {
                continue;
            }
            const std::vector<TypeId>& params = g.attrOf(node).types;
            VarTypeScratch scratch;
            for (VarType vt : g.smallestVarTypes(node.children[0], scratch)) {
                auto last = static_cast<int32_t>(params.size()) - 1;
                wrong += vt.var <= last && vt.type != params[static_cast<size_t>(last - vt.var)];
            }
        }
    }
    return wrong;
}

} // namespace

// Under x, a 3×4 matrix, map-get-zip-first makes `Map(fun(u => u._0)) $ Zip(a, Transpose() $ x)`
// a member of a's class, which is also the body of `fun(y => a)` with y a row of 4. Matched
// through that member, flat-distribute-nest (`Map(fun(x => Map(?f) $ ?e)) $ ?xs` with ?e the
// zip) would build `fun(y => Zip(a, Transpose $ y))`, a lambda that transposes its Float row;
// its class type comes from another context (the copy-elim failure of a deep register-block
// derivation).
TEST_CASE("a class variable under a lambda does not match a member of another context",
          "[egraph]") {
    EGraph g;
    auto [root, report] = runTwoIterations(
        g,
        "rule map-get-zip-first: Map(fun(u => Get(0) $ u)) $ (Zip $ (?a, ?b)) => ?a\n"
        "rule flat-distribute-nest: Map(fun(x => Map(?f) $ ?e)) $ ?xs => "
        "Map(Map(?f)) $ (Map(fun(x => ?e)) $ ?xs)\n",
        "fun(ArrayType(Float, 4), ArrayType(ArrayType(ArrayType(Float, 4), 3), 5),\n"
        "    ArrayType(ArrayType(Float, 4), 5), (a, bs, cs) =>\n"
        "  Zip(Map(fun(x => Map(fun(u => u._0)) $ Zip(a, Transpose() $ x))) $ bs,\n"
        "      Map(fun(y => a)) $ cs))");
    INFO(g.show(root));
    CHECK(report.rules.at(1).applications > 0); // under x, where ?e is x's own
    CHECK(lambdasOfOtherContexts(g) == 0);
}
