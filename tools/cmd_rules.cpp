// egopt rules check FILE...: soundness of rules by random testing (docs/rules.md). Exit 0 when
// every rule passed, 1 when one failed (a counterexample is printed) or could not be checked
// (unless --allow-unchecked), 2 on bad input (a rule file that does not load, bad options).
// egopt rules derive FILE...: every composite rule derived from the primitive catalogue; exit 1
// unless all derive.
#include "cli.hpp"
#include "egopt/rules/composite.hpp"
#include "egopt/rules/derive.hpp"
#include "egopt/rules/loader.hpp"
#include "egopt/rules/soundness.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

namespace egopt::cli {

namespace {

constexpr int kExitUnsound = 1;

uint64_t integer(const Args& args, const char* name, uint64_t fallback, uint64_t min) {
    auto text = args.value(name);
    if (!text) {
        return fallback;
    }
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || ptr != text->data() + text->size() || v < min) {
        badInput(std::string("--") + name + " expects an integer >= " + std::to_string(min) +
                 ", found '" + *text + "'");
    }
    return v;
}

rules::SoundnessOptions soundnessOptions(const Args& args) {
    rules::SoundnessOptions o;
    o.instances = integer(args, "instances", o.instances, 1);
    o.attempts = integer(args, "attempts", o.attempts, 1);
    o.seed = integer(args, "seed", o.seed, 0);
    o.rule = args.value("rule");
    o.samples = integer(args, "show-instances", 0, 0);
    return o;
}

// --catalogue's files, or every .rules file beside the first rule file (sorted).
std::vector<std::string> catalogueFiles(const Args& args) {
    std::vector<std::string> files;
    if (auto list = args.value("catalogue")) {
        std::stringstream ss(*list);
        for (std::string f; std::getline(ss, f, ',');) {
            if (!f.empty()) {
                files.push_back(f);
            }
        }
        return files;
    }
    namespace fs = std::filesystem;
    fs::path dir = fs::path(args.positional.at(1)).parent_path();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
        if (entry.path().extension() == ".rules") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The primitive rules of the files, each name once (files such as tiling.rules repeat rules).
std::vector<egraph::Rule> catalogue(const std::vector<std::string>& files,
                                    const egraph::Library& lib) {
    std::vector<egraph::Rule> out;
    std::set<std::string> names;
    for (const auto& f : files) {
        for (egraph::Rule& r : rules::primitiveRules(rules::loadRules(f, lib))) {
            if (names.insert(r.name).second) {
                out.push_back(std::move(r));
            }
        }
    }
    return out;
}

int runDerive(const Args& args) {
    egraph::Library lib = egraph::Library::standard();
    rules::DeriveOptions options;
    options.seed = integer(args, "seed", options.seed, 0);
    options.secondsPerStage =
        static_cast<double>(integer(args, "time-limit", uint64_t(options.secondsPerStage), 1));
    options.nodesPerStage =
        static_cast<size_t>(integer(args, "node-limit", options.nodesPerStage, 1));
    options.showClause = args.has("show-clause");
    std::set<std::string> only; // --rule a,b,...: only these
    if (auto list = args.value("rule")) {
        std::stringstream ss(*list);
        for (std::string n; std::getline(ss, n, ',');) {
            only.insert(n);
        }
    }
    std::vector<std::pair<std::string, std::vector<egraph::Rule>>> files;
    std::set<std::string> missing = only;
    for (size_t i = 1; i < args.positional.size(); ++i) {
        files.emplace_back(args.positional[i], rules::loadRules(args.positional[i], lib));
        for (const auto& r : files.back().second) {
            missing.erase(r.name);
        }
    }
    if (!missing.empty()) {
        badInput("no rule named '" + *missing.begin() + "' in the given files");
    }
    std::vector<egraph::Rule> primitives = catalogue(catalogueFiles(args), lib);
    std::printf("catalogue: %zu primitive rules\n", primitives.size());
    size_t derived = 0, composites = 0;
    std::set<std::string> seen; // a file included by several given files: its rules once
    for (const auto& [file, rules] : files) {
        for (const auto& r : rules) {
            if (!rules::isComposite(r) || (!only.empty() && !only.count(r.name)) ||
                !seen.insert(r.name).second) {
                continue;
            }
            ++composites;
            rules::Derivation d = rules::deriveRule(r, primitives, lib, options);
            derived += d.derived;
            std::printf("%s", rules::formatDerivation(d).c_str());
            std::fflush(stdout);
        }
    }
    for (const auto& [file, rules] : files) {
        for (const auto& r : rules) {
            if (only.count(r.name) && !rules::isComposite(r) && seen.insert(r.name).second) {
                std::printf("%s is not a composite rule: nothing to derive\n", r.name.c_str());
            }
        }
    }
    std::printf("%zu of %zu composite rules derived\n", derived, composites);
    return derived == composites ? kExitOk : kExitUnsound;
}

} // namespace

int runRules(const Args& args) {
    if (args.positional.at(0) == "derive") {
        if (args.positional.size() < 2) {
            badInput("rules derive needs at least one rule file");
        }
        return runDerive(args);
    }
    if (args.positional.at(0) != "check") {
        badInput("unknown rules action '" + args.positional[0] +
                 "' (expected: rules check FILE... or rules derive FILE...)");
    }
    if (args.positional.size() < 2) {
        badInput("rules check needs at least one rule file");
    }
    rules::SoundnessOptions options = soundnessOptions(args);
    egraph::Library lib = egraph::Library::standard();
    // Load every file first: a bad file is bad input before any time is spent checking.
    std::vector<std::pair<std::string, std::vector<egraph::Rule>>> files;
    bool found = !options.rule;
    for (size_t i = 1; i < args.positional.size(); ++i) {
        files.emplace_back(args.positional[i], rules::loadRules(args.positional[i], lib));
        for (const auto& r : files.back().second) {
            found = found || r.name == *options.rule;
        }
    }
    if (!found) {
        badInput("no rule named '" + *options.rule + "' in the given files");
    }
    size_t counts[3] = {0, 0, 0};
    for (const auto& [file, rules] : files) {
        std::printf("%s: %zu rule(s)\n", file.c_str(), rules.size());
        for (const auto& r : rules) {
            if (options.rule && r.name != *options.rule) {
                continue;
            }
            rules::RuleVerdict v = rules::checkRule(r, lib, options);
            ++counts[static_cast<size_t>(v.verdict)];
            std::printf("%s", rules::formatVerdict(v).c_str());
            std::fflush(stdout);
        }
    }
    std::printf("%zu passed, %zu failed, %zu unchecked (%zu instances per rule, at most %zu for "
                "rules that need lengths beyond 16, seed %llu)\n",
                counts[0], counts[1], counts[2], options.instances, options.largeInstances,
                static_cast<unsigned long long>(options.seed));
    bool unchecked = counts[2] > 0 && !args.has("allow-unchecked");
    return counts[1] > 0 || unchecked ? kExitUnsound : kExitOk;
}

} // namespace egopt::cli
