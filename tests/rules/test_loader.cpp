// Rule-file parsing: the shipped rules load; errors carry file:line:col.
#include "egopt/rules/loader.hpp"
#include "parse_errors.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

using egopt::test::errorOf;

using namespace egopt;

TEST_CASE("the shipped core rules load", "[rules]") {
    auto lib = egraph::Library::standard();
    auto rules = rules::loadRules(std::string(EGOPT_SOURCE_DIR) + "/rules/core.rules", lib);
    std::vector<std::string> names;
    for (const auto& r : rules) {
        names.push_back(r.name);
    }
    for (const char* n : {"map-fusion", "map-fission", "split-join", "split-join-cancel",
                          "join-split-cancel", "beta", "eta"}) {
        CHECK(std::find(names.begin(), names.end(), n) != names.end());
    }
}

TEST_CASE("bidirectional rules give two rules", "[rules]") {
    auto rules = rules::parseRules("rule t: Transpose $ (Transpose $ ?x) <=> Id $ ?x", "t.rules",
                                   egraph::Library::standard());
    REQUIRE(rules.size() == 2);
    CHECK(rules[1].name == "t-rev");
}

TEST_CASE("rule-file errors have locations", "[rules]") {
    CHECK(errorOf("rule a: Map(?f) $ ?x => ?y") ==
          "1:26: variable ?y is not bound by the left-hand side");
    CHECK(errorOf("rule a: Mop(?f) $ ?x => ?x") == "1:9: unknown pattern or variable 'Mop'");
    CHECK(errorOf("\nrule a: Map(?f) $ ?x ?x") == "2:22: expected '=>' or '<=>' after the "
                                                  "left-hand side, found '?'");
    CHECK(errorOf("rule a: ?x => ?x") ==
          "1:6: rule a: the left-hand side must not be a lone variable");
    CHECK(errorOf("rule a: Map(?f) $ ?x => Map(?f)") ==
          "1:6: rule a is ill-typed: one side is a function and the other a value");
    CHECK(errorOf("rule a: Join $ ?x => ?x if nope(?x)") == "1:28: unknown condition 'nope'");
    CHECK(errorOf("rule a: Join $ ?x => Split(#k) $ ?x") ==
          "1:29: size variable #k is not bound by the left-hand side or a generator");
    CHECK(errorOf("rule a: Join $ ?x => ?x\nrule a: Join $ ?x => ?x") ==
          "2:6: duplicate rule name 'a'");
    CHECK(errorOf("include \"missing.rules\"").find("cannot read included rule file") !=
          std::string::npos);
    CHECK(errorOf("rule a: Join $ ?x => ?x /* open") == "1:25: unterminated comment");
}

TEST_CASE("a group names rules, here or in other files", "[rules]") {
    auto lib = egraph::Library::standard();
    rules::RuleFile f = rules::parseRuleFile(
        "rule t: Transpose $ (Transpose $ ?x) => Id $ ?x\n"
        "group steps = t, map-fusion,\n    beta\n"
        "rule j: Join $ (Split(#n) $ ?x) => ?x\n"
        "group more = j; t\n",
        "g.rules", lib);
    CHECK(f.rules.size() == 2);
    REQUIRE(f.groups.size() == 2);
    CHECK(f.groups[0].name == "steps");
    CHECK(f.groups[0].members == std::vector<std::string>{"t", "map-fusion", "beta"});
    CHECK(f.groups[0].loc.line == 2);
    CHECK(f.groups[1].members == std::vector<std::string>{"j", "t"});
    CHECK(errorOf("group g = a, 3") == "1:14: expected a rule name in group 'g', found '3'");
    CHECK(errorOf("group g = a b") ==
          "1:13: expected ',' or the next 'rule', 'group' or 'include', found 'b'");
}

// The shipped groups name shipped primitive rules: a stage that selects a group finds every
// member when it loads the files that define them.
TEST_CASE("every group member of the shipped rule files is a shipped rule", "[rules]") {
    auto lib = egraph::Library::standard();
    std::set<std::string> names;
    std::vector<rules::RuleGroup> groups;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(EGOPT_SOURCE_DIR) + "/rules")) {
        if (e.path().extension() == ".rules") {
            rules::RuleFile f = rules::loadRuleFile(e.path().string(), lib);
            for (const auto& r : f.rules) {
                names.insert(r.name);
            }
            groups.insert(groups.end(), f.groups.begin(), f.groups.end());
        }
    }
    REQUIRE_FALSE(groups.empty());
    for (const auto& g : groups) {
        for (const auto& m : g.members) {
            INFO(g.name << " (" << g.file << "): " << m);
            CHECK(names.count(m) == 1);
        }
    }
}
