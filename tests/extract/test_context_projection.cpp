// Context projection (docs/extraction.md, "States"): a term in a device context gets only the
// context fields that it, its subterms and their costs read, so the search ranks terms that do
// not depend on where they run once; the candidates must be those of the unprojected search.
#include "support.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::extract;

namespace {

Context device(uint8_t glb, uint8_t wrg, uint8_t lcl, bool seq, bool top) {
    Context c = Context::at(Level::Device);
    c.glb = glb;
    c.wrg = wrg;
    c.lcl = lcl;
    c.seq = seq;
    c.top = top;
    return c;
}

// StructuralCost that declares nothing about the contexts it reads: the search then keeps every
// field of every context (CostFunction's default), the reference for the projected search.
class ReadsEveryField : public CostFunction {
public:
    explicit ReadsEveryField(const CostFunction& inner) : inner_(inner) {}
    double cost(const CostInput& in) const override { return inner_.cost(in); }

private:
    const CostFunction& inner_;
};

std::string candidateList(const ExtractResult& r) {
    std::string s;
    for (const Candidate& c : r.candidates) {
        s += std::to_string(c.cost) + " " + c.text + "\n";
    }
    return s;
}

ExtractResult extractWith(test::Graph& gr, const arith::Bindings& sizes, const CostFunction& cost) {
    ExtractOptions opt;
    opt.k = 16;
    opt.sizes = sizes;
    opt.distinctKernels = false;
    opt.multipleKernels = true;
    return extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, cost, opt);
}

} // namespace

TEST_CASE("a device context keeps the mask dimensions only where a thread map can start",
          "[extract]") {
    // At the top of a MapGlb(0)'s body a MapGlb(1) may start, a MapGlb(0) may not.
    CHECK(device(1, 0, 0, false, true).projected(kAllContextFields & ~kMaskBitsField) ==
          device(1, 0, 0, false, true));
    CHECK(device(1, 0, 0, false, true).projected(kAllContextFields & ~kMaskBitsField) !=
          device(2, 0, 0, false, true).projected(kAllContextFields & ~kMaskBitsField));
    // Below a sequential loop, or once a thread computes the value, only emptiness matters.
    uint8_t fields = kAllContextFields & ~kMaskBitsField;
    CHECK(device(6, 0, 0, true, false).projected(fields) == device(1, 0, 0, true, false));
    CHECK(device(0, 3, 5, false, false).projected(fields) == device(0, 1, 1, false, false));
    // Inside a MapLcl no MapWrg may start: the work-group dimensions do not matter; the local
    // ones do at the top of the MapLcl's body.
    CHECK(device(0, 6, 2, false, true).projected(fields) == device(0, 1, 2, false, true));
    // A cost that reads the dimensions keeps them.
    CHECK(device(6, 0, 0, true, false).projected(kAllContextFields) ==
          device(6, 0, 0, true, false));
    // Fields no term below reads are dropped.
    CHECK(device(1, 0, 0, true, false).projected(kTopField) == device(0, 0, 0, false, false));
    // Outside the kernel nothing changes.
    Context host = Context::host();
    host.seq = true;
    CHECK(host.projected(0) == host);
}

TEST_CASE("the projected search finds the candidates of the unprojected one with fewer states",
          "[extract]") {
    struct Case {
        const char* program;
        arith::Bindings sizes;
    };
    for (const Case& c :
         {Case{"mm.lift", {{"M", 64}, {"N", 64}, {"K", 64}}}, Case{"asum.lift", {{"N", 4096}}}}) {
        test::Graph gr;
        test::insertAndSaturate(gr, test::shared(c.program), {"core.rules", "lower_both.rules"}, 4);
        StructuralCost cost(gr.g, gr.rw.tuning, c.sizes, StructuralCost::Params::gpu());
        ExtractResult projected = extractWith(gr, c.sizes, cost);
        ExtractResult reference = extractWith(gr, c.sizes, ReadsEveryField(cost));
        INFO(c.program << "\n" << candidateList(reference));
        REQUIRE(!reference.candidates.empty());
        CHECK(candidateList(projected) == candidateList(reference));
        CHECK(projected.stats.states < reference.stats.states);
    }
}
