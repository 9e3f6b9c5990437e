// Derivations of the local tiles' views in small (macro-mm-local-tiles' tile-views, tile-rows,
// tiles-cancel and row-views; docs/rules-derivations.md, "The local tiles' derivation"): the
// product's float4 rows as one-element arrays, a tile's transposes of one-element folds, and the
// work-groups' tiles of C cancelling.
#include "composition_helpers.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::test::compositions;

// The local tiles' rows of C (macro-mm-local-tiles' row-views, after focus-left), in small: the
// product in its float4 form (one float4 fold per float4 column of B, the lanes view around
// each) is, row by row, the row's float4 folds concatenated and read as one-element arrays of
// scalars (lanes-single, then the rows' splits and scalar views out of the concatenation:
// join-map-split, join-map-asscalar, and out of the map over the rows).
TEST_CASE("the product's float4 rows read as one-element arrays", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule row-views: Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ "
        "p, Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a => Map(Split(1)) $ "
        "(Map(AsScalar) $ (Map(Join) $ (Map(fun(r => Map(fun(v => Reduce(VectorizeUserFun(4, "
        "?f)) $ (?zv, Map(fun(p => VectorizeUserFun(4, ?h) $ (Get(0) $ p, Get(1) $ p))) $ (Zip "
        "$ (r, v))))) $ (Transpose $ (Map(AsVector(4)) $ ?b)))) $ ?a)))\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; column-vectors-w4; map-fusion; beta; lanes-reduce-w4; lanes-single; "
        "flat-rearrange-split; flat-rearrange-asscalar; join-map-split; join-map-asscalar; "
        "flat-rearrange-split; flat-rearrange-asscalar; flat-rearrange-join\n",
        false, {"rules/flattening.rules"});
    for (const char* rule : {"lanes-single", "join-map-split", "join-map-asscalar"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) == 1);
    }
}

// The local tiles' views of their one-element folds, in small (seed 4: N = 8, two float4
// columns; macro-mm-local-tiles' tile-views): the tile as the local tiles' clause leaves it (its
// transposes move each fold's one-element result between the work-item rows', block rows' and
// work-item columns' dimensions) is the product's rows read as one-element arrays. The tile's
// rows split whole and transposed are one-element arrays (map-transpose-split: a split of the
// rows reordered with a stride of their length, which reorders nothing: map-reorder-stride-whole);
// a join or a map of joins over a transpose of a one-element dimension takes the transpose away
// (join-transpose-one, join-map-transpose-one, map-join-map-transpose-one); then the
// work-group's rows and columns and the block rows come back to arows and bcols
// (map-transpose-map-join, map-t-t, join-map, split-join-cancel, flat-distribute-nest,
// transpose-map-map, flat-rearrange-transpose, map-join-join), and the blocks of B's columns
// concatenated are the tile's columns (map-join-into, join-map, split-join-cancel: tile-rows).
// The left-hand side takes the same steps as "the product's float4 rows read as one-element
// arrays" (focus-left in the clause).
TEST_CASE("a tile's transposes of one-element folds cancel in small", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "let fold = (Reduce(VectorizeUserFun(4, ?f)) $ (?zv, Map(fun(p => VectorizeUserFun(4, ?h) "
        "$ (Get(0) $ p, Get(1) $ p))) $ (Zip $ (r, v))))\n"
        "let b4 = (Transpose $ (Map(AsVector(4)) $ ?b))\n"
        "rule tile-views: Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ "
        "p, Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a => Map(Transpose) $ "
        "(Map(Split(#ln)) $ (Map(AsScalar) $ (Map(Join) $ (Map(Transpose) $ (Join $ "
        "(Map(Transpose) "
        "$ (Join $ (Transpose $ (Map(Transpose) $ (Map(Map(Transpose)) $ (Map(Transpose) $ "
        "(Map(Map(fun(r => Map(Transpose) $ (Map(Map(fun(v => fold))) $ (Transpose $ (Split(#x) $ "
        "b4)))))) $ (Split(#m) $ ?a)))))))))))))\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where #lm = lengthOf(?a), #m = tuningOf(#lm), #ln = innerLengthOf(?b), "
        "#x = tuningOf(#ln /^ 4), ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; column-vectors-w4; map-fusion; beta; lanes-reduce-w4; lanes-single; "
        "flat-rearrange-split; flat-rearrange-asscalar; join-map-split; join-map-asscalar; "
        "flat-rearrange-split; flat-rearrange-asscalar; flat-rearrange-join; "
        "map-transpose-split; map-reorder-stride-whole; join-transpose-one; "
        "join-map-transpose-one; "
        "map-join-map-transpose-one; map-transpose-map-join; map-t-t; map-join-map-transpose-one; "
        "join-map; join-map; split-join-cancel; flat-distribute-nest; map-join-map-transpose-one; "
        "transpose-map-map-rev; flat-rearrange-transpose; map-transpose-map-join; map-t-t; "
        "map-join-map-transpose-one; map-join-join-rev; map-join-into; join-map; "
        "split-join-cancel\n",
        false, {"rules/flattening.rules"}, 4);
    for (const char* rule :
         {"map-transpose-split", "map-reorder-stride-whole", "join-transpose-one",
          "join-map-transpose-one", "map-transpose-map-join"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
    CHECK(std::count(used.begin(), used.end(), "map-join-map-transpose-one") == 4);
}

// The local tiles' work-group splits of C, in small (macro-mm-local-tiles' tiles-cancel): tiles
// of #m rows of A by #n float4 columns of B, each tile's rows read as one-element arrays (the
// form tile-views and tile-rows leave), are the product's rows read so. Each tile's views come
// out of the map over the tiles' columns and their transpose (flat-distribute-nest,
// transpose-map-map), and out of the rows' concatenation (map-join-map-split,
// map-join-map-asscalar, map-join-join-rev); the tiles' columns interchange with their rows
// (map-map-interchange, t-t) and a row's tiles concatenate (map-join-into, join-map,
// split-join-cancel); then the views come out of the map over the tiles' rows, whose split
// cancels (split-join-rev).
TEST_CASE("tiles of the product's rows as one-element arrays cancel to the product", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "let fold = (Reduce(VectorizeUserFun(4, ?f)) $ (?zv, Map(fun(p => VectorizeUserFun(4, ?h) "
        "$ (Get(0) $ p, Get(1) $ p))) $ (Zip $ (r, v))))\n"
        "rule tiles-rows: Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ "
        "p, Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a => Join $ (Map(fun(rows "
        "=> Map(Join) $ (Transpose $ (Map(fun(cols => Map(Split(1)) $ (Map(AsScalar) $ (Map(Join) "
        "$ (Map(fun(r => Map(fun(v => fold)) $ cols)) $ rows))))) $ (Split(#n) $ (Transpose $ "
        "(Map(AsVector(4)) $ ?b))))))) $ (Split(#m) $ ?a))\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where #lm = lengthOf(?a), #m = tuningOf(#lm), #ln = innerLengthOf(?b), "
        "#n = tuningOf(#ln /^ 4), ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; column-vectors-w4; map-fusion; beta; lanes-reduce-w4; lanes-single; "
        "flat-rearrange-split; flat-rearrange-asscalar; join-map-split; join-map-asscalar; "
        "flat-rearrange-split; flat-rearrange-asscalar; flat-rearrange-join; flat-distribute-nest; "
        "flat-distribute-nest; flat-distribute-nest; transpose-map-map; transpose-map-map; "
        "transpose-map-map; map-join-map-split; map-join-map-asscalar; map-join-join-rev; "
        "map-map-interchange; t-t; eta-map; map-join-into; join-map; split-join-cancel; "
        "flat-distribute-nest; flat-distribute-nest; flat-distribute-nest; join-map; join-map; "
        "join-map; eta-map; split-join-rev\n",
        false, {"rules/flattening.rules", "rules/algorithmic.rules"}, 4);
    for (const char* rule : {"map-join-map-split", "map-join-map-asscalar", "map-join-into",
                             "map-map-interchange", "split-join-rev"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) == 1);
    }
}
