// Helpers shared by the composition and derivation tests (test_compositions.cpp,
// test_fold_derivations.cpp, test_tile_derivations.cpp).
#pragma once

#include "egopt/rules/composite.hpp"
#include "egopt/rules/derive.hpp"
#include "egopt/rules/loader.hpp"
#include "egopt/rules/soundness.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace egopt::test::compositions {

inline std::vector<egraph::Rule> parse(const std::string& text) {
    return rules::parseRules(text, "t.rules", egraph::Library::standard());
}

using testenv::contains;

inline std::string source(const std::string& path) {
    return std::string(EGOPT_SOURCE_DIR) + "/" + path;
}

// The core, algebra and equality rules: the catalogue the fold and lane derivations use.
inline std::vector<egraph::Rule> equalityCatalogue(const egraph::Library& lib) {
    std::vector<egraph::Rule> catalogue;
    for (const char* file : {"rules/core.rules", "rules/algebra.rules", "rules/equalities.rules"}) {
        for (egraph::Rule& r : rules::loadRules(source(file), lib)) {
            catalogue.push_back(std::move(r));
        }
    }
    return catalogue;
}

// The rule names of a derivation's steps, in order.
inline std::vector<std::string> stepNames(const rules::Derivation& d) {
    std::vector<std::string> names;
    for (const rules::DerivationStep& s : d.steps) {
        names.push_back(s.rule);
    }
    return names;
}

// Checks the rule's equality on random instances (when `checkSoundness`), derives it with the
// equality catalogue (and the primitive rules of `moreFiles`, each name once), and returns its
// steps, which must reach the right-hand side in order.
inline std::vector<std::string> derivedInOrder(const std::string& text, bool checkSoundness,
                                               const std::vector<std::string>& moreFiles = {},
                                               uint64_t seed = 1) {
    egraph::Library lib = egraph::Library::standard();
    std::vector<egraph::Rule> catalogue = equalityCatalogue(lib);
    for (const std::string& file : moreFiles) {
        for (egraph::Rule& r : rules::loadRules(source(file), lib)) {
            if (std::none_of(catalogue.begin(), catalogue.end(),
                             [&](const egraph::Rule& o) { return o.name == r.name; })) {
                catalogue.push_back(std::move(r));
            }
        }
    }
    auto rs = parse(text);
    if (checkSoundness) {
        rules::SoundnessOptions check;
        check.instances = 8;
        std::vector<rules::RuleVerdict> v = rules::checkRules(rs, lib, check);
        INFO(rules::formatVerdict(v.at(0)));
        CHECK(v.at(0).verdict == rules::Verdict::Pass);
    }
    rules::DeriveOptions options;
    options.seed = seed;
    rules::Derivation d =
        rules::deriveRule(rs.at(0), rules::primitiveRules(catalogue), lib, options);
    INFO(rules::formatDerivation(d));
    REQUIRE(d.derived);
    INFO(d.progress.at(0));
    CHECK(contains(d.progress.at(0), "reached the right-hand side")); // in order, no search
    return stepNames(d);
}

} // namespace egopt::test::compositions
