// The incremental search (only the edges whose children changed are enumerated again, cyclic
// components iterated on their own) against the simple one (every edge of a state on every
// update, one worklist): the same lists. And the removal of no-op layout chains.
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"
#include "sanitizer_run.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <oneapi/tbb/task_arena.h>

using namespace egopt;
using namespace egopt::extract;

namespace {

// The pipeline's phases on a small budget: the shipped algorithmic rules, then the lowering.
void saturateShipped(test::Graph& gr, size_t nodes) {
    egraph::Library lib = egraph::Library::standard();
    auto phase = [&](const std::vector<std::string>& files, size_t iterations) {
        std::vector<egraph::Rule> rs;
        for (const std::string& f : files) {
            auto more = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/" + f, lib);
            rs.insert(rs.end(), more.begin(), more.end());
        }
        egraph::Runner runner(gr.g, rs, lib, gr.rw);
        runner.limits.iterations = iterations;
        runner.limits.nodes = nodes;
        runner.run();
    };
    phase({"core.rules", "algorithmic.rules"}, 3);
    phase({"opencl.rules"}, 3);
}

// Every ranked term of the root with its cost, one per line.
std::string listing(const test::Graph& gr, const arith::Bindings& sizes, bool incremental, bool gpu,
                    size_t perState) {
    SearchOptions so;
    so.count = 48;
    so.perState = perState;
    so.sizes = sizes;
    so.multipleKernels = true;
    so.incremental = incremental;
    StructuralCost cost(gr.g, gr.rw.tuning, sizes,
                        gpu ? StructuralCost::Params::gpu() : StructuralCost::Params{});
    std::string out;
    for (const RankedTerm& t : extractTerms(gr.g, gr.main.root, cost, so)) {
        out += std::to_string(t.cost) + " " +
               egraph::showTerm(gr.g, t.terms, t.root, gr.main.signature.names) + "\n";
    }
    return out;
}

void sameAsReference(const test::Graph& gr, const arith::Bindings& sizes) {
    for (bool gpu : {false, true}) {
        for (size_t perState : {size_t(2), size_t(8)}) {
            INFO("gpu " << gpu << ", terms per state " << perState);
            std::string reference = listing(gr, sizes, false, gpu, perState);
            CHECK(std::count(reference.begin(), reference.end(), '\n') > 4);
            CHECK(listing(gr, sizes, true, gpu, perState) == reference);
        }
    }
}

} // namespace

TEST_CASE("incremental search: the reference's lists on asum, scal and mm", "[extract]") {
    // E-node limits just large enough for lowered candidates (mm's lowering needs more). The
    // sanitizer run (scripts/test --sanitize) leaves mm out: its reference search takes minutes
    // there, through the same paths as asum's and scal's.
    std::vector<std::pair<const char*, size_t>> programs{{"asum.lift", 2000}, {"scal.lift", 2000}};
    if (!testenv::sanitizerRun()) {
        programs.emplace_back("mm.lift", 3000);
    }
    for (auto [program, nodes] : programs) {
        INFO(program);
        test::Graph gr;
        lift::Program p = lift::parseFile(test::shared(program));
        gr.main = egraph::insertProgram(gr.g, p);
        saturateShipped(gr, nodes);
        sameAsReference(gr, {{"N", 1024}, {"M", 64}, {"K", 64}});
    }
}

TEST_CASE("incremental search: the reference's lists with cycles", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::shared("scal.lift"),
                            {"cycles.rules", "core.rules", "lower.rules"}, 4);
    sameAsReference(gr, {{"N", 256}});
}

// The two cost views' searches run side by side and the code generator filter examines terms in
// parallel: neither may change what is extracted. asum with the shipped rules under the
// pipeline's GPU views, with 1 thread and with 4.
TEST_CASE("candidates do not depend on the number of threads", "[extract]") {
    test::Graph gr;
    lift::Program p = lift::parseFile(test::shared("asum.lift"));
    gr.main = egraph::insertProgram(gr.g, p);
    saturateShipped(gr, 2000);
    arith::Bindings sizes{{"N", 1 << 20}};
    StructuralCost cost(gr.g, gr.rw.tuning, sizes, StructuralCost::Params::gpu());
    StructuralCost occupancy(gr.g, gr.rw.tuning, sizes, StructuralCost::Params::gpuOccupancy());
    ExtractOptions opt;
    opt.k = 8;
    opt.sizes = sizes;
    opt.multipleKernels = true;
    opt.secondCost = &occupancy;
    opt.secondK = 4;
    auto extractWith = [&](int threads) {
        std::string out;
        tbb::task_arena(threads).execute([&] {
            ExtractResult r =
                extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, cost, opt);
            out = test::listing(r);
            for (const Candidate& c : r.candidates) {
                out += c.secondView ? "second view\n" : "";
            }
            out += std::to_string(r.stats.states) + " states, " + std::to_string(r.stats.terms) +
                   " terms";
        });
        return out;
    };
    std::string one = extractWith(1);
    INFO(one);
    CHECK(std::count(one.begin(), one.end(), '\n') > 4);
    CHECK(extractWith(4) == one);
}

TEST_CASE("no-op layout chains are removed with the tuning variables only they use", "[extract]") {
    Candidate c;
    c.program = lift::parseFile(test::data("noop_scal.lift"));
    c.text = c.program.show(c.program.root);
    c.tuning = {{"v__1", {}}, {"v__2", {}}};
    REQUIRE(c.program.sizeVars == std::vector<std::string>{"N", "v__1", "v__2"});
    std::optional<Candidate> plain = withoutNoOpLayouts(c);
    REQUIRE(plain);
    CHECK(plain->text == "MapGlb(fun(x1 => mult $ (alpha, x1)), 0) $ xs");
    CHECK(plain->tuning.empty());
    CHECK(plain->program.sizeVars == std::vector<std::string>{"N"});
    CHECK(test::validate(*plain, {{"N", 1024}}).ok);
    CHECK(!withoutNoOpLayouts(*plain)); // nothing left to remove
}
