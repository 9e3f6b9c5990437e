// The soundness checker's driver: random instances per rule until enough are checked or the
// attempt budget is spent, and the report.
#include "egopt/rules/soundness.hpp"

#include "soundness_check.hpp"

namespace egopt::rules {

namespace {

using detail::Outcome;

// The rule may reorder floating-point reductions (or computes its right-hand side in C++, where
// we cannot tell), so results are compared with a tolerance instead of exactly.
bool involvesReductions(const egraph::Rule& rule) {
    auto has = [](const egraph::Pattern& p) {
        for (const auto& n : p.nodes) {
            if (n.kind == egraph::PatNode::Kind::Node &&
                (n.op == lift::Op::Reduce || n.op == lift::Op::ReduceSeq ||
                 n.op == lift::Op::PartRed)) {
                return true;
            }
        }
        return false;
    };
    return rule.applier || has(rule.lhs) || (rule.rhs && has(*rule.rhs));
}

// A seed per rule (FNV-1a of its name), so adding a rule does not change the others' instances.
uint64_t ruleSeed(uint64_t seed, const std::string& name) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return h;
}

std::string where(const egraph::Rule& rule) {
    std::string at = rule.file;
    if (rule.loc.known()) {
        at += ":" + std::to_string(rule.loc.line) + ":" + std::to_string(rule.loc.col);
    }
    return at;
}

void count(RuleVerdict& v, Outcome o) {
    switch (o) {
    case Outcome::Checked:
        ++v.checked;
        break;
    case Outcome::IllTyped:
        ++v.illTyped;
        break;
    case Outcome::Conditions:
        ++v.conditions;
        break;
    case Outcome::NotApplied:
        ++v.notApplied;
        break;
    case Outcome::InvalidInput:
        ++v.invalidInput;
        break;
    case Outcome::Fail:
        break;
    }
}

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = std::min(text.find('\n', pos), text.size());
        out += prefix + text.substr(pos, end - pos) + "\n";
        pos = end + 1;
    }
    return out;
}

// An exception escaping the engine or the interpreter on a well-typed instance is a failure
// of this rule too (the saturation would hit it), reported with the instance.
detail::InstanceResult runGuarded(detail::InstanceChecker& checker, detail::Instance& inst) {
    std::string lhs = inst.program.show(inst.program.root);
    try {
        return checker.run(inst);
    } catch (const std::exception& e) {
        Counterexample c;
        c.sizes = inst.sizes.empty() ? "(none)" : inst.sizes;
        c.lhs = lhs;
        c.rhs = "(none)";
        c.problem = std::string("the engine failed on this instance: ") + e.what();
        return {Outcome::Fail, std::move(c)};
    }
}

} // namespace

std::string_view verdictName(Verdict v) {
    switch (v) {
    case Verdict::Pass:
        return "PASS";
    case Verdict::Fail:
        return "FAIL";
    case Verdict::Unchecked:
        return "UNCHECKED";
    }
    return "?";
}

RuleVerdict checkRule(const egraph::Rule& rule, const egraph::Library& lib,
                      const SoundnessOptions& options) {
    RuleVerdict v;
    v.rule = rule.name;
    v.where = where(rule);
    v.exact = !involvesReductions(rule);
    detail::Rng rng(ruleSeed(options.seed, rule.name));
    detail::InstanceChecker checker(rule, lib, v.exact ? 0.0 : options.tolerance, rng);
    checker.wantSamples = options.samples > 0;
    v.required = detail::largeDivisors(rule).empty()
                     ? options.instances
                     : std::min(options.instances, options.largeInstances);
    // A rule none of whose first attempts is well-typed needs deeper arrays than the pool's
    // usual ones (map-join-join flattens twice inside a map: rank 4); it draws from a pool
    // with rank-4 parameters from then on. Other rules keep their random instances.
    constexpr size_t kRank4After = 10'000;
    bool rank4 = false;
    while (v.checked < v.required && v.attempts < options.attempts) {
        ++v.attempts;
        rank4 = rank4 || (v.attempts > kRank4After && v.illTyped == v.attempts - 1);
        std::optional<detail::Instance> inst = detail::randomInstance(rule, rng, rank4);
        if (!inst) {
            ++v.illTyped;
            continue;
        }
        detail::InstanceResult r = runGuarded(checker, *inst);
        if (r.outcome == Outcome::Fail) {
            v.verdict = Verdict::Fail;
            v.counterexample = std::move(r.counterexample);
            return v;
        }
        count(v, r.outcome);
        if (r.outcome == Outcome::Checked && v.samples.size() < options.samples) {
            v.samples.push_back(std::move(r.sample));
        }
    }
    v.verdict = v.checked >= v.required ? Verdict::Pass : Verdict::Unchecked;
    return v;
}

std::vector<RuleVerdict> checkRules(const std::vector<egraph::Rule>& rules,
                                    const egraph::Library& lib, const SoundnessOptions& options) {
    std::vector<RuleVerdict> out;
    for (const egraph::Rule& r : rules) {
        if (!options.rule || *options.rule == r.name) {
            out.push_back(checkRule(r, lib, options));
        }
    }
    if (options.rule && out.empty()) {
        badInput("no rule named '" + *options.rule + "'");
    }
    return out;
}

std::string formatVerdict(const RuleVerdict& v) {
    std::string head(verdictName(v.verdict));
    head.resize(10, ' ');
    head += v.rule + " (" + v.where + "): ";
    std::string stats = std::to_string(v.attempts) + " attempts: " + std::to_string(v.illTyped) +
                        " ill-typed, " + std::to_string(v.conditions) + " not matched, " +
                        std::to_string(v.notApplied) + " not applied, " +
                        std::to_string(v.invalidInput) + " invalid inputs";
    std::string cmp = v.exact ? "exact" : "relative tolerance";
    std::string samples;
    for (const auto& s : v.samples) {
        samples += "    " + s + "\n";
    }
    switch (v.verdict) {
    case Verdict::Pass:
        return head + std::to_string(v.checked) + " instances agree (" + cmp + "; " + stats +
               ")\n" + samples;
    case Verdict::Unchecked:
        return head + "only " + std::to_string(v.checked) + " instance(s) could be checked (" +
               stats + ")\n" + samples;
    case Verdict::Fail:
        break;
    }
    const Counterexample& c = *v.counterexample;
    std::string out = head + "counterexample after " + std::to_string(v.checked) +
                      " agreeing instance(s) (" + cmp + ")\n";
    out += "  sizes:        " + c.sizes + "\n";
    out += "  left side:    " + c.lhs + "\n";
    out += "  right side:   " + c.rhs + "\n";
    if (!c.inputs.empty()) {
        out += "  inputs:\n" + indent(c.inputs, "    ");
    }
    if (!c.lhsOutput.empty()) {
        out += "  left result:  " + c.lhsOutput + "\n";
    }
    if (!c.rhsOutput.empty()) {
        out += "  right result: " + c.rhsOutput + "\n";
    }
    return out + "  problem:      " + c.problem + "\n";
}

} // namespace egopt::rules
