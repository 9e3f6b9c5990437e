// Helpers shared by the composition and derivation tests (test_compositions.cpp,
// test_fold_derivations.cpp).
#pragma once

#include "egopt/rules/derive.hpp"
#include "egopt/rules/loader.hpp"
#include "test_common.hpp"

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

} // namespace egopt::test::compositions
