// Rule errors: the load-time checks of docs/rules.md ("Checks") not covered by test_loader.cpp,
// each with file:line:col; and type errors that only the first application can decide,
// reported with the rule's name, both terms and their types.
#include "../egraph/cli_helper.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"
#include "parse_errors.hpp"
#include "test_common.hpp"

#include <catch2/catch.hpp>

using egopt::test::errorOf;

using egopt::testenv::contains;

using namespace egopt;
using namespace egopt::egraph;

namespace {

// Saturates `program` with `ruleText` (which must load) and returns the error, if any.
std::string firstApplicationError(const std::string& ruleText, const std::string& program) {
    Library lib = Library::standard();
    std::vector<Rule> rules = rules::parseRules(ruleText, "t.rules", lib); // loads fine
    lift::Program p = lift::parseProgram(program, "t.lift");
    EGraph g;
    insertProgram(g, p);
    RewriteContext ctx;
    Runner runner(g, rules, lib, ctx);
    try {
        runner.run();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        CHECK(e.file() == "t.rules");
        CHECK(e.loc().line == 1);
        return e.message();
    }
    return "no error";
}

const char* kNested = "val N = SizeVar(\"N\")\nval M = SizeVar(\"M\")\n"
                      "fun(ArrayType(ArrayType(Float, M), N), xs => Join() $ (Map(Map(abs)) $ "
                      "xs))";

} // namespace

TEST_CASE("argument counts are checked at load time", "[rules]") {
    CHECK(errorOf("rule a: Split(#n, #m) $ ?x => ?x") == "1:17: Split takes 1 argument(s)");
    CHECK(errorOf("rule a: Map $ ?x => ?x") == "1:9: Map needs 1 argument(s)");
    CHECK(errorOf("rule a: Join $ ?x => ?x if isArray(?x, ?x)") ==
          "1:40: condition isArray takes 1 argument(s)");
    CHECK(errorOf("rule a: Join $ ?x => ?x if innerLength(?x)") ==
          "1:28: condition innerLength takes 2 argument(s), found 1");
    CHECK(errorOf("rule a: Get(x) $ ?x => ?x") == "1:13: Get expects an integer here");
}

TEST_CASE("unknown appliers and generators are load errors", "[rules]") {
    CHECK(errorOf("rule a: Join $ ?x => @nope(?x)") == "1:23: unknown applier 'nope'");
    CHECK(errorOf("rule a: Join $ ?x => Split(#n) $ ?x where #n = nope(?x)") ==
          "1:48: unknown generator 'nope'");
    CHECK(errorOf("rule a: Join $ ?x => ?x if isArray(?y)") ==
          "1:36: variable ?y is not bound by the left-hand side");
}

TEST_CASE("both sides of <=> must share their variables and use no C++ parts", "[rules]") {
    CHECK(errorOf("rule a: Map(?f) $ ?x <=> Join $ ?x") ==
          "1:6: rule a (right to left): variable ?f must occur on both sides of '<=>'");
    CHECK(errorOf("rule a: Map(?f) $ ?x <=> ?x") ==
          "1:6: rule a (right to left): the left-hand side must not be a lone variable");
    CHECK(errorOf("rule a: Join $ ?x <=> @beta(?x)") ==
          "1:6: rule a: '<=>' rules cannot use appliers or generators");
    CHECK(errorOf("rule a: Split(#n) $ ?x <=> Split(#n) $ ?x where #n = tuning(?x)") ==
          "1:6: rule a: '<=>' rules cannot use appliers or generators");
}

TEST_CASE("a variable matched under different binder depths is a load error", "[rules]") {
    CHECK(errorOf("rule a: Map(fun(y => ?f $ y)) $ (?f $ ?x) => ?x") ==
          "1:34: rule a: variable ?f occurs under different numbers of binders");
}

TEST_CASE("include cycles and errors in included files name the included file", "[rules]") {
    std::string a = test::scratchFile("cycle_a.rules", "include \"cycle_b.rules\"\n");
    test::scratchFile("cycle_b.rules", "\n  include \"cycle_a.rules\"\n");
    try {
        rules::loadRules(a, Library::standard());
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.file().ends_with("cycle_b.rules"));
        CHECK(e.loc().line == 2);
        CHECK(e.loc().col == 11);
        CHECK(contains(e.message(), "include cycle"));
    }
    std::string c = test::scratchFile("outer.rules", "include \"inner.rules\"\n");
    test::scratchFile("inner.rules", "rule ok: Join $ ?x => ?x\nrule b: Join $ ?x => ?x if no(?x)");
    try {
        rules::loadRules(c, Library::standard());
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.file().ends_with("inner.rules"));
        CHECK(e.loc().line == 2);
        CHECK(e.loc().col == 28);
        CHECK(e.message() == "unknown condition 'no'");
    }
}

TEST_CASE("lexical errors and malformed clauses have locations", "[rules]") {
    CHECK(errorOf("include \"x") == "1:9: unterminated string");
    CHECK(errorOf("rule a: Join $ ?x => ?x %") == "1:25: unexpected character '%'");
    CHECK(errorOf("rule: Join $ ?x => ?x") == "1:5: expected a rule name after 'rule'");
    CHECK(errorOf("rule a Join $ ?x => ?x") == "1:8: expected ':', found 'Join'");
    CHECK(errorOf("rule a: fun(1 => ?x) => ?x") == "1:13: expected a parameter name");
    CHECK(errorOf("rule a: Join $ ?x => ?x where #n = tuning(?x) where") ==
          "1:47: expected 'rule', 'group' or 'include', found 'where'");
    // A ')' too many ends the right-hand side early: named where it is, not as the unbound
    // variables of the rest of the line.
    CHECK(errorOf("rule a: Map(?f) $ ?x => MapSeq(?f) $ ?x) where ?y = @broadcast(?x, 4)") ==
          "1:40: expected 'rule', 'group' or 'include', found ')'");
}

TEST_CASE("numbers out of range are load errors, not crashes", "[rules]") {
    CHECK(errorOf("rule a: Join $ ?x => ?x if lengthAtLeast(?x, 99999999999999999999)") ==
          "1:46: number 99999999999999999999 is out of range");
    CHECK(errorOf("rule a: Split(99999999999999999999) $ ?x => ?x") ==
          "1:15: number 99999999999999999999 is out of range");
    CHECK(errorOf("rule a: Get(99999999999) $ ?x => ?x") ==
          "1:13: number 99999999999 is out of range");
}

TEST_CASE("text arguments must be quoted", "[rules]") {
    Library lib = Library::standard();
    addUserFunConditions(lib);
    try {
        rules::parseRules("rule a: ?f $ ?x => ?x if isFun(?f, add)", "t.rules", lib);
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.loc().col == 36);
        CHECK(e.message() == "expected a quoted text");
    }
}

TEST_CASE("a rule equating different types is reported at its first application", "[rules]") {
    std::string msg = firstApplicationError("rule join-id: Join $ ?x => ?x", kNested);
    CHECK(msg == "rule 'join-id' (t.rules:1:6) is ill-typed: cannot equate types "
                 "ArrayType(Float, M*N) and ArrayType(ArrayType(Float, M), N)\n"
                 "  left:  Join $ (Map(Map(abs)) $ free0) : ArrayType(Float, M*N)\n"
                 "  right: Map(Map(abs)) $ free0 : ArrayType(ArrayType(Float, M), N)");
    // Types that depend on the match: swapping a zip's arguments is fine for equal element
    // types and wrong otherwise.
    const char* sameTypes = "val N = SizeVar(\"N\")\n"
                            "fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) => Zip(a, b))";
    const char* otherTypes = "val N = SizeVar(\"N\")\n"
                             "fun(ArrayType(Float, N), ArrayType(Int, N), (a, b) => Zip(a, b))";
    const char* swap = "rule zip-swap: Zip $ (?x, ?y) => Zip $ (?y, ?x)";
    CHECK(firstApplicationError(swap, sameTypes) == "no error");
    msg = firstApplicationError(swap, otherTypes);
    CHECK(contains(msg, "rule 'zip-swap' (t.rules:1:6) is ill-typed"));
    CHECK(contains(msg, "left:  Zip $ (free1, free0) : ArrayType(TupleType(Float, Int), N)"));
    CHECK(contains(msg, "right: Zip $ (free0, free1) : ArrayType(TupleType(Int, Float), N)"));
}

TEST_CASE("an ill-typed right-hand side is reported with the match", "[rules]") {
    std::string msg = firstApplicationError(
        "rule apply-elem: Map(?f) $ ?x => ?f $ ?x",
        "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) $ xs)");
    CHECK(msg == "rule 'apply-elem' (t.rules:1:6) is ill-typed: user function abs applied to "
                 "arguments of other types\n"
                 "  left:  Map(abs) $ free0 : ArrayType(Float, N)\n"
                 "  right: the right-hand side, with ?f = abs : (Float) -> Float, ?x = free0 : "
                 "ArrayType(Float, N)");
}

TEST_CASE("an ill-typed rule that never applies is not reported", "[rules]") {
    CHECK(firstApplicationError("rule join-id: Join $ ?x => ?x",
                                "val N = SizeVar(\"N\")\nfun(ArrayType(Float, N), xs => Map(abs) "
                                "$ xs)") == "no error");
}

TEST_CASE("egopt saturate reports an ill-typed rule as bad input", "[rules]") {
    std::string rules = test::scratchFile("join.rules", "// not type-preserving\n"
                                                        "rule join-id: Join $ ?x => ?x\n");
    std::string program = test::scratchFile("nested.lift", kNested);
    auto r = test::egopt("saturate " + program + " --rules " + rules);
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "join.rules:2:6: error: rule 'join-id'"));
    CHECK(contains(r.err, "  left:  Join $ (Map(Map(abs)) $ free0) : ArrayType(Float, M*N)"));
    CHECK(contains(r.err, "  right: Map(Map(abs)) $ free0 : ArrayType(ArrayType(Float, M), N)"));
}
