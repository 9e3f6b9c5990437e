// Lists that keep one term per shape (SearchOptions::distinctShapes, docs/extraction.md,
// "Shapes"): the candidates differ in more than the views they read their data through.
#include "support.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <set>

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
// `Split(v__1) $ (x)`, `Gather(...) $ (x)`, thread-less `Map(Split(..)) $ (x)`, ...) replaced
// by their argument, tuning variables and thread-map dimensions unnamed.
std::string skeleton(std::string s) {
    s = std::regex_replace(s, std::regex(R"(v__[0-9]+)"), "v");
    s = std::regex_replace(s, std::regex(R"(, [012]\))"), ")");
    static const std::regex kView(
        R"((Join|Transpose|asScalar|(Split|Gather|asVector|Map\((Split|Gather|Join|Transpose))\([^$]*?\)+) \$ \()");
    std::smatch m;
    for (std::string prev; prev != s;) {
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

std::set<std::string> skeletons(const ExtractResult& r) {
    std::set<std::string> seen;
    for (const Candidate& c : r.candidates) {
        seen.insert(skeleton(c.text));
    }
    return seen;
}

} // namespace

TEST_CASE("the skeleton of the test drops views and names", "[extract]") {
    CHECK(skeleton("Join $ (MapGlb(f, 1) $ (Split(v__3) $ (Gather(ReorderWithStride(N/^v__3)) "
                   "$ (xs))))") == "MapGlb(f) $ (xs)");
    CHECK(skeleton("MapSeq(id) $ (Map(Split(v__2)) $ (xs))") == "MapSeq(id) $ (xs)");
}

TEST_CASE("lists of shapes keep the cheapest term and one term per skeleton", "[extract]") {
    test::Graph gr;
    test::insertAndSaturate(gr, test::data("partial_asum.lift"), {}, 0);
    test::unionWith(gr, test::data("partial_asum_gpu.lift"));
    test::saturate(gr, {"lower.rules"}, 6);
    test::saturate(gr, {"core.rules"}, 3);
    ExtractResult terms = extractFrom(gr, 8, false);
    ExtractResult shapes = extractFrom(gr, 8, true);
    REQUIRE(terms.candidates.size() == 8);
    REQUIRE(!shapes.candidates.empty());
    // The input has view variants: the lists of terms repeat skeletons.
    CHECK(skeletons(terms).size() < terms.candidates.size());
    CHECK(shapes.candidates.front().text == terms.candidates.front().text);
    // One candidate per skeleton, and every skeleton the list of terms reached.
    CHECK(skeletons(shapes).size() == shapes.candidates.size());
    std::set<std::string> reached = skeletons(shapes);
    for (const std::string& s : skeletons(terms)) {
        CHECK(reached.count(s) == 1);
    }
    for (size_t i = 1; i < shapes.candidates.size(); ++i) {
        CHECK(shapes.candidates[i - 1].cost <= shapes.candidates[i].cost);
    }
}
