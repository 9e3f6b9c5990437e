// The search itself: determinism, cycles, what is never extracted, rejected candidates, tuning
// variables, and pluggable cost functions.
#include "egopt/lift/typecheck.hpp"
#include "support.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>

using egopt::testenv::contains;

using namespace egopt;
using namespace egopt::extract;

namespace {

ExtractResult extractFrom(test::Graph& gr, const arith::Bindings& sizes, size_t k,
                          const CostFunction& cost = StructuralCost()) {
    ExtractOptions opt;
    opt.k = k;
    opt.sizes = sizes;
    // These tests count the search's distinct terms; test_lowering.cpp covers dropping
    // candidates whose kernels repeat a better one's.
    opt.distinctKernels = false;
    return extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, cost, opt);
}

std::string ranked(const ExtractResult& r) {
    std::string s;
    for (const Candidate& c : r.candidates) {
        s += std::to_string(c.cost) + " " + c.text + " " + std::to_string(c.tuning.size()) + "\n";
    }
    return s;
}

} // namespace

TEST_CASE("extraction is deterministic and independent of insertion order", "[extract]") {
    arith::Bindings sizes{{"N", 512}};
    test::Graph a;
    test::insertAndSaturate(a, test::data("partial_asum.lift"), {}, 0);
    test::unionWith(a, test::data("partial_asum_gpu.lift"));
    test::saturate(a, {"lower.rules"}, 6);
    test::Graph b; // the same programs, the other way round: other class ids
    test::insertAndSaturate(b, test::data("partial_asum_gpu.lift"), {}, 0);
    test::unionWith(b, test::data("partial_asum.lift"));
    test::saturate(b, {"lower.rules"}, 6);
    REQUIRE(a.g.numNodes() == b.g.numNodes());
    std::string first = ranked(extractFrom(a, sizes, 16));
    CHECK(!first.empty());
    CHECK(first == ranked(extractFrom(a, sizes, 16)));
    CHECK(first == ranked(extractFrom(b, sizes, 16)));
}

TEST_CASE("cycles in the e-graph still give finite candidates", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"),
                            {"cycles.rules", "core.rules", "lower.rules"}, 4);
    arith::Bindings sizes{{"N", 256}};
    ExtractResult r = extractFrom(gr, sizes, 16);
    INFO(test::listing(r));
    CHECK(!r.stats.truncated);
    CHECK(r.stats.cutCycles > 0); // Id $ (Id $ ...) and the like were cut
    REQUIRE(r.candidates.size() == 16);
    for (const Candidate& c : r.candidates) {
        INFO(c.text);
        CHECK(!contains(c.text, "Id $ (Id $"));
        CHECK(test::hierarchyError(c.program).empty());
        codegen::RunResult run = test::validate(c, sizes);
        INFO(run.summary());
        CHECK(run.ok);
    }
}

TEST_CASE("invalid hierarchies are never extracted", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("chunk_asum.lift"), {}, 0);
    test::unionWith(gr, test::data("chunk_asum_lcl_outside.lift"));
    test::unionWith(gr, test::data("chunk_asum_glb_nested.lift"));
    ExtractResult r = extractFrom(gr, {{"N", 64}}, 4);
    CHECK(r.candidates.empty());
    CHECK(r.rejected.empty()); // not even offered to the code generator
    // With lowering rules there are valid ones, and still none of the invalid ones.
    test::saturate(gr, {"lower.rules"}, 3);
    r = extractFrom(gr, {{"N", 64}}, 16);
    INFO(test::listing(r));
    // Exactly 8 of the lowerings are valid: the outer map is MapGlb(0), MapGlb(1), MapWrg(0)
    // or one thread's MapSeq; in MapGlb(d) the middle map is MapGlb(1-d) or MapSeq, in MapWrg
    // MapLcl or MapSeq; the map under the reduction is sequential except in MapWrg's MapSeq
    // (a uniform loop of the work-group), where it may also be a MapLcl.
    CHECK(r.candidates.size() == 8);
    for (const Candidate& c : r.candidates) {
        CHECK(test::hierarchyError(c.program).empty());
    }
}

TEST_CASE("candidates the code generator rejects are reported with the reason", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("chunk_asum.lift"), {}, 0);
    test::unionWith(gr, test::data("chunk_asum_private_local.lift"));
    ExtractResult r = extractFrom(gr, {{"N", 64}}, 4);
    CHECK(r.candidates.empty());
    REQUIRE(r.rejected.size() == 1);
    CHECK(contains(r.rejected[0].text, "toLocal"));
    CHECK(contains(r.rejected[0].reason, "local memory"));
}

TEST_CASE("tuning variables stay symbolic with their constraints", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"), {"lower.rules", "core.rules"}, 3);
    arith::Bindings sizes{{"N", 1024}};
    ExtractResult r = extractFrom(gr, sizes, 16);
    const Candidate* split = nullptr;
    for (const Candidate& c : r.candidates) {
        if (c.tuning.size() == 1 && !split) {
            split = &c;
        }
    }
    REQUIRE(split);
    INFO(split->text);
    const TuningVar& v = split->tuning[0];
    REQUIRE(v.divides.size() == 1);
    CHECK(v.divides[0] == arith::Size::var("N"));
    CHECK(split->tuningValues.at(v.name) == 64); // the largest divisor of 1024 up to 64
    CHECK(split->program.sizeVars == std::vector<std::string>{"N", v.name});
    CHECK(chooseTuningValues(split->tuning, {{"N", 96}}, {}, 64).at(v.name) == 48);
    CHECK(chooseTuningValues(split->tuning, sizes, {{v.name, 8}}, 64).at(v.name) == 8);

    // A tuner's choice: substitute 16 and run.
    Candidate fixed = *split;
    fixed.program = substituteSizes(split->program, {{v.name, 16}});
    fixed.tuningValues.clear();
    CHECK(fixed.program.sizeVars == std::vector<std::string>{"N"});
    CHECK(tuningVariables(gr.rw.tuning, fixed.program).empty());
    lift::Program copy = fixed.program;
    CHECK(lift::typecheck(copy).resultType != lift::kNoType);
    codegen::RunResult run = test::validate(fixed, sizes);
    INFO(run.summary());
    CHECK(run.ok);
}

namespace {

// Prefers sequential code, and checks that every node comes with a context it is valid in.
class SequentialFirst : public CostFunction {
public:
    mutable bool contextsOk = true;
    double cost(const CostInput& in) const override {
        double sum = 1;
        for (const ChildChoice& c : in.children) {
            sum += c.cost;
        }
        lift::Op op = in.node.op;
        if (op == lift::Op::MapLcl) {
            contextsOk = contextsOk && in.context.wrg != 0;
        }
        if (op == lift::Op::Map || op == lift::Op::Reduce) {
            contextsOk = false;
        }
        bool parallel = op == lift::Op::MapGlb || op == lift::Op::MapWrg || op == lift::Op::MapLcl;
        return sum + (parallel ? 100 : 0);
    }
};

} // namespace

TEST_CASE("cost functions are pluggable", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"), {"lower.rules"}, 3);
    SequentialFirst seq;
    ExtractResult r = extractFrom(gr, {{"N", 64}}, 4, seq);
    REQUIRE(!r.candidates.empty());
    CHECK(seq.contextsOk);
    CHECK(r.candidates.front().text == "MapSeq(fun(x1 => mult $ (alpha, x1))) $ xs");
    ExtractResult d = extractFrom(gr, {{"N", 64}}, 4);
    CHECK(!contains(d.candidates.front().text, "MapSeq"));
    CHECK(contains(d.candidates.back().text, "MapSeq"));
}
