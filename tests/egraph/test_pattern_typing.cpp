// The e-graph types patterns with the front end's rule (lift/pattern_typing.hpp): the same
// application is accepted or rejected, with the same message, in both.
#include "test_helpers.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::egraph;

namespace {

// Split(k) $ xs for a parameter xs: [Float]n, added to the e-graph.
EClassId splitOfArray(EGraph& g, int64_t k, int64_t n) {
    ENode xs;
    xs.op = lift::Op::Param;
    xs.attr = g.internAttr({{}, {g.types.array(g.types.floatType(), n)}});
    ENode split;
    split.op = lift::Op::Split;
    split.attr = g.internAttr({{arith::Size(k)}, {}});
    ENode app;
    app.op = lift::Op::Apply;
    app.children = {g.add(split), g.add(xs)};
    return g.add(app);
}

std::string frontEndError(int64_t k, int64_t n) {
    std::string source = "fun(ArrayType(Float, " + std::to_string(n) + "), xs => Split(" +
                         std::to_string(k) + ") $ xs)";
    try {
        lift::Program p = lift::parseProgram(source, "test.lift");
        lift::typecheck(p);
    } catch (const Error& e) {
        return e.message();
    }
    return "";
}

} // namespace

TEST_CASE("the e-graph types a pattern as the front end does", "[egraph]") {
    EGraph g;
    EClassId ok = splitOfArray(g, 2, 8);
    CHECK(g.types.show(g.data(ok).type) == "ArrayType(ArrayType(Float, 2), 4)");
    CHECK(frontEndError(2, 8).empty());
}

TEST_CASE("the e-graph rejects an ill-typed pattern with the front end's message", "[egraph]") {
    EGraph g;
    std::string message;
    try {
        splitOfArray(g, 3, 8);
    } catch (const TypeError& e) {
        message = e.what();
    }
    CHECK(message == "Split(3) on an array of length 8: 3 does not divide 8");
    CHECK(message == frontEndError(3, 8));
}
