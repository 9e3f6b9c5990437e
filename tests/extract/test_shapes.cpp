// Lists that keep one term per shape (SearchOptions::distinctShapes, docs/extraction.md,
// "Shapes"): the candidates differ in more than the views they read their data through.
#include "support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <regex>

using namespace egopt;
using namespace egopt::extract;

namespace {

ExtractResult extractFrom(test::Graph& gr, size_t k, bool shapes) {
    ExtractOptions opt;
    opt.k = k;
    opt.sizes = {{"N", 512}};
    opt.distinctKernels = false;
    opt.distinctShapes = shapes;
    return extractCandidates(gr.g, gr.rw.tuning, gr.main.root, gr.main.signature, StructuralCost(),
                             opt);
}

// The position of the parenthesis that closes the one at `open`.
size_t closing(const std::string& s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0) {
            return i;
        }
    }
    return s.size();
}

// An independent skeleton of a candidate's text: views applied to data (`Join $ (x)`,
// `Split(v__1) $ (x)`, `Gather(...) $ x1`, `id $ (x)`, thread-less `Map(Split(..)) $ (x)`, ...)
// replaced by their argument, tuning variables and thread-map dimensions unnamed.
std::string skeleton(std::string s) {
    s = std::regex_replace(s, std::regex(R"(v__[0-9]+)"), "v");
    s = std::regex_replace(s, std::regex(R"(, [012]\))"), ")");
    static const std::regex kView(
        R"((\bid|Join|Transpose|asScalar|(Split|Gather|asVector|Map\((Split|Gather|Join|Transpose))\([^$]*?\)+) \$ \()");
    static const std::regex kViewOfName(
        R"((\bid|Join|Transpose|asScalar|(Split|Gather|asVector)\([^$]*?\)+) \$ (x[0-9]+|xs)\b)");
    std::smatch m;
    for (std::string prev; prev != s;) {
        s = std::regex_replace(s, kViewOfName, "$4");
        prev = s;
        if (std::regex_search(prev, m, kView)) {
            auto at = static_cast<size_t>(m.position(0));
            size_t open = at + static_cast<size_t>(m.length(0)) - 1;
            size_t end = closing(s, open);
            s = s.substr(0, at) + s.substr(open + 1, end - open - 1) + s.substr(end + 1);
        }
    }
    return s;
}

std::map<std::string, size_t> skeletons(const ExtractResult& r) {
    std::map<std::string, size_t> seen;
    for (const Candidate& c : r.candidates) {
        ++seen[skeleton(c.text)];
    }
    return seen;
}

} // namespace

TEST_CASE("the skeleton of the test drops views and names", "[extract]") {
    CHECK(skeleton("Join $ (MapGlb(f, 1) $ (Split(v__3) $ (Gather(ReorderWithStride(N/^v__3)) "
                   "$ (xs))))") == "MapGlb(f) $ (xs)");
    CHECK(skeleton("MapSeq(id) $ (Map(Split(v__2)) $ (xs))") == "MapSeq(id) $ (xs)");
}

TEST_CASE("lists of shapes keep the cheapest term and at most two terms per skeleton",
          "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("partial_asum.lift"), {}, 0);
    test::unionWith(gr, test::data("partial_asum_gpu.lift"));
    test::saturate(gr, {"lower.rules"}, 6);
    test::saturate(gr, {"cycles.rules", "core.rules", "lower.rules"}, 4);
    ExtractResult terms = extractFrom(gr, 16, false);
    ExtractResult shapes = extractFrom(gr, 16, true);
    REQUIRE(terms.candidates.size() == 16);
    REQUIRE(!shapes.candidates.empty());
    // The input has view variants: the lists of terms repeat skeletons.
    size_t most = 0;
    for (const auto& [s, n] : skeletons(terms)) {
        most = std::max(most, n);
    }
    CHECK(most > 2);
    CHECK(shapes.candidates.front().text == terms.candidates.front().text);
    // At most two candidates per skeleton, and every skeleton the list of terms reached.
    std::map<std::string, size_t> reached = skeletons(shapes);
    for (const auto& [s, n] : reached) {
        CHECK(n <= 2);
    }
    for (const auto& [s, n] : skeletons(terms)) {
        CHECK(reached.count(s) == 1);
    }
    // and the room that leaves holds other schedules.
    CHECK(reached.size() > skeletons(terms).size());
    for (size_t i = 1; i < shapes.candidates.size(); ++i) {
        CHECK(shapes.candidates[i - 1].cost <= shapes.candidates[i].cost);
    }
}
