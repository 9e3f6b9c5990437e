// Derivations of folds (tests/rules/test_compositions.cpp has the composite rules themselves):
// a work-group's fold over slices as each work-item's fold, fold interchanges that keep what
// earlier steps rewrote, map-pair-zip's saturation, and mm as one float4 fold per column of B.
#include "composition_helpers.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/composite.hpp"
#include "egopt/rules/soundness.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::test::compositions;

TEST_CASE("a work-group's fold over slices derives as each work-item's fold", "[rules]") {
    // The equality itself is checked on random instances too (its body reads both halves of
    // each element's pair, which fold-interchange rebinds).
    std::vector<std::string> used = derivedInOrder(
        "rule wg: Reduce(fun((acc, t) => Map(fun(p => Join $ (Reduce(fun((b, y) => ?g)) $ "
        "(Get(0) $ p, Get(1) $ p)))) $ (Zip $ (acc, t)))) $ (?z, ?ts) => Transpose $ "
        "(Map(fun(q => Reduce(fun((b, y) => ?g)) $ (Get(0) $ q, Join $ (Map(fun(u => Get(0) $ "
        "u)) $ (Get(1) $ q))))) $ (Zip $ (?z, Transpose $ (Map(fun(t => Map(fun(x => Tuple $ "
        "(x, t))) $ t)) $ ?ts))))\n"
        "    if notFree(?g, 2), notFree(?g, 3), notFree(?g, 4)\n"
        "    by fold-interchange; get-tuple-first; get-tuple-second; fold-join\n",
        true);
    CHECK(used == std::vector<std::string>{"fold-interchange", "get-tuple-first",
                                           "get-tuple-second", "fold-join"});
}

// The local tiles' pairs, in small: fold-interchange pairs each element of the step's array
// with the fold's element t, `Transpose $ (Map(fun(t => Map(fun(x => Tuple $ (x, t))) $ ?e)) $
// ?ts)`; transpose-map-pairs reads these as the columns of the ?e, each zipped with the ?ts.
TEST_CASE("each work-item's pairs are its column of the slices zipped with them", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule wgp: Reduce(fun((acc, t) => Map(fun(p => Join $ (Reduce(fun((b, y) => ?g)) $ "
        "(Get(0) $ p, Get(1) $ p)))) $ (Zip $ (acc, t)))) $ (?z, ?ts) => Transpose $ "
        "(Map(fun(q => Reduce(fun((b, y) => ?g)) $ (Get(0) $ q, Join $ (Map(fun(u => Get(0) $ "
        "u)) $ (Get(1) $ q))))) $ (Zip $ (?z, Map(fun(c => Zip $ (c, ?ts))) $ (Transpose $ "
        "(Map(fun(t => t)) $ ?ts)))))\n"
        "    if notFree(?g, 2), notFree(?g, 3), notFree(?g, 4)\n"
        "    by fold-interchange; get-tuple-first; get-tuple-second; fold-join; "
        "transpose-map-pairs\n",
        true);
    CHECK(used == std::vector<std::string>{"fold-interchange", "get-tuple-first",
                                           "get-tuple-second", "fold-join", "transpose-map-pairs"});
}

// The local tiles' zeros, in small: the fold over the slices starts from a map (each work-item's
// zero block ?c), so after fold-interchange each work-item's fold starts from its element of the
// zip of that map; map-fold-zip-map-first moves the map into the folds' initial values and beta
// applies it. (The explanation orders independent steps its own way.)
TEST_CASE("each work-item's fold starts from its element of the zeros' map", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule wgz: Reduce(fun((acc, t) => Map(fun(p => Join $ (Reduce(fun((b, y) => ?g)) $ "
        "(Get(0) $ p, Get(1) $ p)))) $ (Zip $ (acc, t)))) $ (Map(fun(w => ?c)) $ ?x, ?ts) => "
        "Transpose $ (Map(fun(q => Reduce(fun((b, y) => ?g)) $ (?c, Join $ (Map(fun(u => "
        "Get(0) $ u)) $ (Get(1) $ q))))) $ (Zip $ (?x, Transpose $ (Map(fun(t => Map(fun(x => "
        "Tuple $ (x, t))) $ t)) $ ?ts))))\n"
        "    if notFree(?g, 2), notFree(?g, 3), notFree(?g, 4), notFree(?c, 0)\n"
        "    by fold-interchange; get-tuple-first; get-tuple-second; map-fold-zip-map-first; beta; "
        "fold-join\n",
        true);
    std::sort(used.begin(), used.end());
    CHECK(used == std::vector<std::string>{"beta", "fold-interchange", "fold-join",
                                           "get-tuple-first", "get-tuple-second",
                                           "map-fold-zip-map-first"});
}

// A step that rewrites inside a fold's body before fold-interchange moves the body under other
// binders: the derivation's stated steps copy every member of the body's classes
// (EGraph::keepMembersInCopies), so the fused map, larger than the unfused one, is in the copy
// and the steps reach the right-hand side in order. A copy of the smallest term alone (the
// pipeline's) holds only the unfused map, and the right-hand side is met only by a later
// search stage.
TEST_CASE("a fold interchange after a rewrite in its body keeps the rewrite", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule kept: Reduce(fun((acc, t) => Map(fun(p => Map(?f) $ (Map(?g) $ (Get(0) $ p)))) $ "
        "(Zip $ (acc, t)))) $ (?z, ?ts) => Transpose $ (Map(fun(q => Reduce(fun((a, u) => "
        "Map(fun(y => ?f $ (?g $ y))) $ a)) $ (Get(0) $ q, Get(1) $ q))) $ (Zip $ "
        "(?z, Transpose $ (Map(fun(t => Map(fun(x => Tuple $ (x, t))) $ t)) $ ?ts))))\n"
        "    if notFree(?f, 0), notFree(?f, 1), notFree(?f, 2), notFree(?g, 0), notFree(?g, 1), "
        "notFree(?g, 2)\n"
        "    by map-fusion; fold-interchange; get-tuple-first\n",
        true);
    std::sort(used.begin(), used.end());
    CHECK(used == std::vector<std::string>{"fold-interchange", "get-tuple-first", "map-fusion"});
}

// The local tiles' products (macro-mm-local-tiles, element-folds): a map applying ?h to two
// functions of its element is ?h over the zip of two maps. notPairOf refuses the right-hand
// side's own map (?h of the zip element's two parts), so the rule alone saturates; without the
// condition it matches that map again in every iteration.
TEST_CASE("map-pair-zip saturates: its own zip's pair is refused", "[rules]") {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> shipped = rules::loadRules(source("rules/equalities.rules"), lib);
    auto pairZip = std::find_if(shipped.begin(), shipped.end(),
                                [](const egraph::Rule& r) { return r.name == "map-pair-zip"; });
    REQUIRE(pairZip != shipped.end());
    lift::Program p = lift::parseProgram("fun(ArrayType(Float, 8), ArrayType(Float, 8), (a, b) => "
                                         "Map(fun(u => mult(abs(u._0), u._1))) $ Zip(a, b))",
                                         "t.lift");
    auto run = [&](const egraph::Rule& rule) {
        egraph::EGraph g;
        egraph::insertProgram(g, p);
        egraph::RewriteContext ctx;
        std::vector<egraph::Rule> one{rule};
        egraph::Runner runner(g, one, lib, ctx);
        runner.limits.iterations = 6;
        return runner.run();
    };
    egraph::RunReport withCondition = run(*pairZip);
    CHECK(withCondition.stop == egraph::StopReason::Saturated);
    CHECK(withCondition.rules.at(0).applications == 1);
    auto plain =
        parse("rule plain: Map(fun(u => ?h $ (?x, ?y))) $ ?c => Map(fun(p => ?h $ (Get(0) $ "
              "p, Get(1) $ p))) $ (Zip $ (Map(fun(u => ?x)) $ ?c, Map(fun(u => ?y)) $ ?c)) "
              "if notFree(?h, 0)\n");
    CHECK(run(plain.at(0)).stop == egraph::StopReason::IterationLimit);
}

// The product's side of the local tiles' derivation: mm's 4-column blocks of B read as float4
// columns and each block's 4 lane folds as one float4 fold (as the register blocks begin), the
// form of the tiles' folds once their products are a zip of A's scalars and B's float4s.
TEST_CASE("mm derives as one float4 fold per float4 column of B", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule float4-columns: Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ "
        "(Get(0) $ p, Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a => Map(fun(r "
        "=> Join $ (Map(fun(v => Transpose $ (Split(4) $ (AsScalar $ (Reduce(VectorizeUserFun(4, "
        "?f)) $ (?zv, Map(fun(p => VectorizeUserFun(4, ?h) $ (Get(0) $ p, Get(1) $ p))) $ (Zip $ "
        "(r, v)))))))) $ (Transpose $ (Map(AsVector(4)) $ ?b))))) $ ?a\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; column-vectors-w4; map-fusion; beta; lanes-reduce-w4\n",
        false);
    CHECK(used == std::vector<std::string>{"split-join-w4", "column-vectors-w4", "map-fusion",
                                           "beta", "lanes-reduce-w4"});
}

// The local tiles' outermost views (macro-mm-local-tiles, tiles-of-c), in small: C as tiles of
// #m rows of A by #n float4 columns of B, each tile in the float4 form the product reaches
// (each row's float4 folds, the lanes view around each), is the product: the work-groups'
// splits cancel (map-map-interchange and t-t undo the tiles' transpose, flat-rearrange-join
// and join-join-rev flatten a row's tiles, eta-map and split-join-rev remove both splits).
TEST_CASE("tiles of the product's float4 form cancel to the product", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "let lanes = (Transpose $ (Split(4) $ (AsScalar $ (Reduce(VectorizeUserFun(4, ?f)) $ "
        "(?zv, Map(fun(p => VectorizeUserFun(4, ?h) $ (Get(0) $ p, Get(1) $ p))) $ (Zip $ (r, "
        "v)))))))\n"
        "let b4 = (Transpose $ (Map(AsVector(4)) $ ?b))\n"
        "rule tiles: Map(fun(r => Map(fun(c => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ p, "
        "Get(1) $ p))) $ (Zip $ (r, c))))) $ (Transpose $ ?b))) $ ?a => Join $ (Map(fun(rows => "
        "Map(Join) $ (Transpose $ (Map(fun(cols => Map(fun(r => Join $ (Map(fun(v => lanes)) $ "
        "cols))) $ rows)) $ (Split(#n) $ b4))))) $ (Split(#m) $ ?a))\n"
        "    if notFree(?b, 0), notFree(?f, 0), notFree(?f, 1), notFree(?h, 0), notFree(?h, 1), "
        "notFree(?h, 2), notFree(?z, 0), notFree(?z, 1), vectorizableReducerInner(?f, ?a), "
        "vectorizableInner(?h, ?a, ?b), innerDivides(4, ?b), divides(4, ?a)\n"
        "    where #lm = lengthOf(?a), #m = tuningOf(#lm), #ln = innerLengthOf(?b), "
        "#n = tuningOf(#ln /^ 4), ?zv = @broadcast(?z, 4)\n"
        "    by split-join-w4; column-vectors-w4; map-fusion; beta; lanes-reduce-w4; "
        "map-map-interchange; t-t; map-fusion; beta; flat-rearrange-join; join-join-rev; eta-map; "
        "split-join-rev\n",
        false, {"rules/algorithmic.rules", "rules/flattening.rules"});
    // The explanation reads the right-hand side's steps from the product's side: both splits'
    // cancellations (eta-map, split-join-rev) for the rows' tiles and for each row's tiles.
    CHECK(used == std::vector<std::string>{
                      "split-join-w4", "column-vectors-w4", "map-fusion", "beta", "lanes-reduce-w4",
                      "split-join-rev", "eta-map", "join-join-rev", "flat-rearrange-join", "beta",
                      "split-join-rev", "eta-map", "map-fusion", "t-t", "map-map-interchange"});
}

// The local tiles' A pieces, in small: per slice of #k columns of A's rows, each column as
// float4s (a work-item's piece: its rows' scalars at one k, as the float4s it reads), the
// pieces concatenated over the slices and read as scalars again are A's columns: transposed,
// A's rows (join-map-rev, vector-cancel and copy-elim read the float4s as scalars;
// transpose-join and t-t undo the slices' transposes, split-join-cancel their split).
TEST_CASE("A's float4 pieces concatenated over the slices are A's rows", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule a-pieces: Map(?g) $ ?a => Map(?g) $ (Transpose $ (Map(AsScalar) $ (Join $ "
        "(Map(fun(sl => Map(AsVector(4)) $ (Transpose $ sl))) $ (Transpose $ (Map(Split(#k)) $ "
        "?a))))))\n"
        "    if divides(4, ?a), scalarMatrix(?a), notFree(?g, 0) where #lk = innerLengthOf(?a), #k "
        "= tuningOf(#lk)\n"
        "    by join-map-rev; map-fusion; beta; map-fusion; vector-cancel; copy-elim; eta-map; "
        "transpose-join; map-fusion; t-t; copy-elim; t-t; map-fusion; split-join-cancel; "
        "copy-elim\n",
        true);
    // The explanation finds its own order (and copy-elim for the float4s' read back).
    for (const char* rule : {"join-map-rev", "transpose-join", "t-t", "split-join-cancel"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
}

// The local tiles' projections (macro-mm-local-tiles, after element-folds), in small: each
// float4 fold's products read A's scalar and B's float4 through the pairs the interchanges
// built (u pairs B's float4 with the pair of A's scalar and the piece); map-fission writes
// the first projection as two maps, whose projections of the zips cancel (map-get-second,
// map-get-zip-first). Then the pieces, per slice the zip of a work-item's A and B pieces,
// read as their A halves are the A pieces concatenated (join-map-rev, map-fusion, beta,
// map-get-first, map-get-zip-first).
TEST_CASE("the local tiles' products read A's scalars and B's float4s directly", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule products: Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ p, Get(1) $ p))) $ (Zip $ "
        "(Map(Get(0)) $ ?r, ?e))) => Reduce(?f) $ (?z, Map(fun(p => ?h $ (Get(0) $ p, Get(1) $ "
        "p))) $ (Zip $ (Map(fun(u => Get(0) $ (Get(1) $ u))) $ (Zip $ (?e, ?r)), Map(fun(u => "
        "Get(0) $ u)) $ (Zip $ (?e, ?r)))))\n"
        "    if notFree(?h, 0), notFree(?h, 1), notFree(?h, 2)\n"
        "    by map-get-zip-first; map-fission; map-get-second\n",
        true);
    std::sort(used.begin(), used.end());
    CHECK(used == std::vector<std::string>{"map-fission", "map-get-second", "map-get-zip-first"});
    used = derivedInOrder(
        "rule a-halves: Map(Get(0)) $ (Join $ (Map(fun(x => Zip $ (Get(0) $ x, Get(1) $ x))) $ "
        "(Zip $ (?p, ?q)))) => Join $ ?p\n"
        "    by join-map-rev; map-fusion; beta; map-get-first; map-get-zip-first\n",
        true);
    std::sort(used.begin(), used.end());
    CHECK(used == std::vector<std::string>{"beta", "join-map-rev", "map-fusion", "map-get-first",
                                           "map-get-zip-first"});
}

// The local tiles' zips of the folds' elements with what is left of the zeros, in small: a map
// over a zip whose body maps over the zip of its pair's halves, each reading only the second
// halves. map-zip-second-only copies a body's smallest term: the outer body's reads Get(0) $ q
// until the inner zip is gone, so the first application rewrites the inner map and the second
// the outer one (the local tiles' clause applies it four times, innermost level first).
TEST_CASE("maps over zips that read only the pairs' second halves map the second arrays",
          "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule second-halves: Map(fun(q => Map(fun(r => ?h $ (Get(1) $ r))) $ (Zip $ (Get(0) $ q, "
        "Get(1) $ q)))) $ (Zip $ (?a, ?b)) => Map(fun(y => Map(fun(r => ?h $ r)) $ y)) $ ?b\n"
        "    if notFree(?h, 0), notFree(?h, 1)\n"
        "    by map-zip-second-only; map-zip-second-only\n",
        true);
    CHECK(used == std::vector<std::string>{"map-zip-second-only"}); // the outer map's merge
}

// The local tiles' copies into local memory, in small (macro-mm-local-tiles: a-copy-layout,
// b-copy-layout, after copies-as-views made the copies views): A's slice (rows by 4·#s columns)
// copied as float4s, stored transposed and read back as float4 columns is the slice transposed,
// read as float4s (the transposes cancel, tw-elim and t-t; the splits and joins too); B's slice
// copied #x float4s at a time and read back as rows of #x is B's slice split so (the copy's two
// transposes, fused, are an identity map, which copy-elim removes). In the clause the B steps
// follow A's (a-copy-layout's map-fusion fuses the transposes).
TEST_CASE("the local tiles' copies read back through their layouts are views of the slices",
          "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule a-copy: Map(AsVector(4)) $ (Transpose $ ?s) => Map(AsVector(4)) $ (TransposeW $ "
        "(Split(#lk) $ (AsScalar $ (Join $ (Map(Join) $ (Map(fun(g => TransposeW $ (Transpose $ "
        "(Split(#x) $ (Join $ g))))) $ (Split(#m) $ (Map(AsVector(4)) $ ?s))))))))\n"
        "    if divides(4, ?s), scalarMatrix(?s), innerDivides(4, ?s)\n"
        "    where #lm = lengthOf(?s), #m = tuningOf(#lm), #lk = innerLengthOf(?s), "
        "#x = tuningOf(#lk /^ 4)\n"
        "    by tw-elim; t-t; map-fusion; beta; split-join-cancel; eta-map; join-join-rev; "
        "split-join-cancel; asscalar-join; join-split-cancel\n",
        true);
    for (const char* rule : {"tw-elim", "t-t", "asscalar-join", "join-split-cancel"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
    used = derivedInOrder(
        "rule b-copy: Map(Split(#x)) $ ?s => Map(Split(#x)) $ (Split(#ln) $ (Join $ (Map(Join) $ "
        "(Map(TransposeW) $ (Map(Transpose) $ (Split(#m) $ (Split(#x) $ (Join $ ?s))))))))\n"
        "    if scalarMatrix(?s)\n"
        "    where #ln = innerLengthOf(?s), #lm = lengthOf(?s), #m = tuningOf((#lm * #ln) /^ #x)\n"
        "    by map-fusion; tw-elim; t-t; copy-elim; join-join-rev; split-join-cancel; "
        "split-join-cancel; join-split-cancel\n",
        true);
    for (const char* rule : {"copy-elim", "split-join-cancel", "join-split-cancel"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
}

// The local tiles' operands, in small (docs/rules.md, Open points: what the clause's y and x
// levels read). A's pieces per slice (the copy's layout read back: #r float4s of a column per
// work-item row), transposed to work-item rows and read as scalar rows per work-item row, are
// A's rows split by 4·#r. Each level's transposes and joins move out of the maps
// (flat-rearrange-transpose, map-fission, transpose-join, ...), the slices' split cancels, a
// split of float4s is the float4s of a split (split-asvector) and the split columns the
// split's columns (map-split-transpose); then the float4s cancel against their scalars.
TEST_CASE("A's pieces of the work-item rows over the slices are A's rows split", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule a-rows: Map(fun(y => Transpose $ (Map(AsScalar) $ (Join $ y)))) $ (Transpose $ "
        "(Map(fun(s => Transpose $ (Map(Split(#r)) $ (Map(AsVector(4)) $ (Transpose $ s))))) $ "
        "(Transpose $ (Map(Split(#k)) $ ?a)))) => Split(4 * #r) $ ?a\n"
        "    if scalarMatrix(?a)\n"
        "    by flat-rearrange-transpose; map-fission; transpose-join-rev; flat-distribute-nest; "
        "map-fission; join-map; join-map; transpose-map-join-rev; map-fusion; split-join-cancel; "
        "copy-elim; split-asvector; map-fission; map-split-transpose; transpose-map-map; t-t; "
        "map-fusion; beta; vector-cancel; copy-elim; map-fusion; beta; t-t; copy-elim; "
        "map-fusion; beta; vector-cancel; copy-elim; t-t; copy-elim\n",
        true, {"rules/flattening.rules"});
    for (const char* rule : {"split-asvector", "map-split-transpose", "transpose-join-rev"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) == 1);
    }
}

// B's pieces per slice (the copy's layout read back: per work-item column x, the float4
// columns x, x + #wx, ...), concatenated over the slices and transposed, are B's columns split
// by #wx, transposed. The split of the columns is the columns of the split
// (map-split-transpose), and the three transposes of the 3-D pieces put back in B's order need
// transpose-braid (the two orders of exchanging three dimensions pairwise that reverse them).
TEST_CASE("B's pieces of the work-item columns over the slices are B's columns split", "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule b-cols: Map(fun(x => Transpose $ (Join $ x))) $ (Transpose $ (Map(fun(s => "
        "Transpose $ (Map(Transpose) $ (Map(Split(#x)) $ s)))) $ (Split(#k) $ (Transpose $ ?b)))) "
        "=> Transpose $ (Split(#x) $ ?b)\n"
        "    if scalarMatrix(?b)\n"
        "    by flat-rearrange-transpose; eta-map; transpose-join-rev; flat-distribute-nest; "
        "eta-map; "
        "join-map; join-map; split-join-cancel; map-split-transpose; transpose-braid; map-fusion; "
        "t-t; copy-elim\n",
        true, {"rules/flattening.rules"});
    for (const char* rule : {"map-split-transpose", "transpose-braid", "split-join-cancel"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) == 1);
    }
}

// The operands as the local tiles' clause leaves them after `focus; operands-out; a-pieces-out`
// (macro-mm-local-tiles' a-operand and b-operand), in small: A's pieces of the work-item rows,
// read as scalar rows per work-item row, are A's rows split by 4·#r (the maps of the
// cancellations and of split-asvector: map-split-join-cancel, map-split-asvector,
// map-vector-cancel, map-t-t); B's pieces of the work-item columns are B's columns split by #x.
TEST_CASE("the local tiles' operands out of the folds are A's rows and B's columns split",
          "[rules]") {
    std::vector<std::string> used = derivedInOrder(
        "rule a-operand: Map(Transpose) $ (Map(Map(AsScalar)) $ (Transpose $ (Map(Split(#r)) $ "
        "(Map(AsVector(4)) $ (Transpose $ (Map(Join) $ (Map(Split(#k)) $ ?a))))))) => "
        "Split(4 * #r) $ ?a\n"
        "    if scalarMatrix(?a)\n"
        "    by map-split-join-cancel; map-split-asvector; map-split-transpose; transpose-map-map; "
        "t-t; map-vector-cancel; map-t-t\n",
        true);
    for (const char* rule :
         {"map-split-join-cancel", "map-split-asvector", "map-vector-cancel", "map-t-t"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) == 1);
    }
    used = derivedInOrder(
        "rule b-operand: Map(Transpose) $ (Transpose $ (Map(Transpose) $ (Map(Split(#x)) $ (Join $ "
        "(Split(#k) $ (Transpose $ ?b)))))) => Transpose $ (Split(#x) $ ?b)\n"
        "    if scalarMatrix(?b)\n"
        "    by split-join-cancel; map-split-transpose; transpose-braid; map-t-t\n",
        true);
    for (const char* rule :
         {"split-join-cancel", "map-split-transpose", "transpose-braid", "map-t-t"}) {
        INFO(rule);
        CHECK(std::count(used.begin(), used.end(), rule) >= 1);
    }
}
