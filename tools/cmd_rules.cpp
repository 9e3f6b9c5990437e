// egopt rules check FILE...: soundness of rules by random testing (docs/rules.md). Exit 0 when
// every rule passed, 1 when one failed (a counterexample is printed) or could not be checked
// (unless --allow-unchecked), 2 on bad input (a rule file that does not load, bad options).
#include "cli.hpp"
#include "egopt/rules/loader.hpp"
#include "egopt/rules/soundness.hpp"

#include <charconv>
#include <cstdio>

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

} // namespace

int runRules(const Args& args) {
    if (args.positional.at(0) != "check") {
        badInput("unknown rules action '" + args.positional[0] +
                 "' (expected: rules check FILE...)");
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
