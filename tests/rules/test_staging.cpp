// Local-memory staging for the search without macros (rules/staging.rules, docs/search-goal.md,
// "Local tiles of a shared operand"): a map over blocks of rows reads each block from a copy in
// local memory where its function reads the block in a map of its own.
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"

#include <catch2/catch.hpp>

using namespace egopt;

namespace {

// How many toLocal e-nodes stage-local writes into `program` in one iteration.
size_t stagedCopies(const std::string& program) {
    egraph::Library lib = egraph::Library::standard();
    auto rules = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/staging.rules", lib);
    std::erase_if(rules, [](const egraph::Rule& r) { return r.name != "stage-local"; });
    REQUIRE(rules.size() == 1);
    egraph::EGraph g;
    lift::Program p = lift::parseProgram(program, "t.lift");
    egraph::insertProgram(g, p);
    egraph::RewriteContext ctx;
    egraph::Runner runner(g, rules, lib, ctx);
    runner.limits.iterations = 1;
    runner.run();
    size_t copies = 0;
    for (size_t id = 0; id < g.numNodeIds(); ++id) {
        copies += g.node(static_cast<egraph::ENodeId>(id)).op == lift::Op::ToLocal;
    }
    return copies;
}

const char* kHeader = "val M = SizeVar(\"M\")\nval N = SizeVar(\"N\")\nval K = SizeVar(\"K\")\n"
                      "fun(ArrayType(ArrayType(Float, K), M), ArrayType(ArrayType(Float, N), K),"
                      " (a, b) => ";

} // namespace

TEST_CASE("stage-local stages a block of rows that a map of its own reads", "[rules]") {
    // mm's rows in blocks of 4: every column's dot products read the whole block.
    std::string shared = std::string(kHeader) +
                         "Join() o Map(fun(rows => Transpose() o Map(fun(col => Join() o "
                         "Map(fun(row => Reduce(add, 0.0f) o Map(fun(p => mult(p._0, p._1))) $ "
                         "Zip(row, col))) $ rows)) o Transpose() $ b)) o Split(4) $ a)";
    CHECK(stagedCopies(shared) == 1);
    // Each block's rows reduced on their own: no map reads the block, nothing to stage.
    std::string own = std::string(kHeader) +
                      "Join() o Map(fun(rows => Join() o Map(fun(row => Reduce(add, 0.0f) $ row)) "
                      "$ rows)) o Split(4) $ a)";
    CHECK(stagedCopies(own) == 0);
}
