// Derivations of composite rules from the primitive catalogue (derive.hpp).
#include "egopt/rules/derive.hpp"

#include "derive_show.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/explain.hpp"
#include "egopt/egraph/runner.hpp"
#include "soundness_detail.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <set>

namespace egopt::rules {

namespace {

using egraph::EClassId;
using egraph::EGraph;
using egraph::ENodeId;
using egraph::Rule;

// The `by` clause's markers after which steps rewrite only the right-hand side's term, or only
// the left-hand side's (applyInOrder); not rules.
constexpr const char* kFocusStep = "focus";
constexpr const char* kFocusLeftStep = "focus-left";

bool isMarker(const std::string& step) {
    return step == kFocusStep || step == kFocusLeftStep;
}

// An instance of the rule in a fresh e-graph: the node of its left-hand side and of the right-
// hand side the rule builds for it (not merged), both as inserted, so explanations start there.
struct Setup {
    EGraph g;
    egraph::RewriteContext ctx; // the tuning variables and rule names of the runs on g
    ENodeId lhs = 0;
    ENodeId rhs = 0;
    std::string shown;
    std::vector<std::string> names; // the instance's parameters, for showing terms
};

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

uint64_t derivationSeed(uint64_t seed, const std::string& name) {
    uint64_t h = 1469598103934665603ull ^ (seed * 0x9e3779b97f4a7c15ull);
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return h;
}

// The e-node of the function a wrapped instance (`LHS $ (p0, ...)`) applies.
ENodeId appliedFunction(const EGraph& g, ENodeId apply) {
    const egraph::ENode& n = g.originalNode(apply);
    if (n.op != lift::Op::Apply) {
        throw Error(ErrorKind::Internal, "derive: the wrapped instance is not an application");
    }
    return n.children.at(0);
}

// Copies `id` with every array-typed top-level parameter (a variable free at depth 0) replaced
// by a leaf of its type, named as the parameter (a literal of the e-graph: nothing is known of
// it but its type). A term that reads only such parameters is closed, so moving it under a
// binder (EGraph::shift) leaves its class as it is: a shift copies only the smallest term of a
// class with free variables, and would drop what earlier steps rewrote inside it.
egraph::TermId closeArrayParams(EGraph& g, const egraph::TermArena& in, egraph::TermId id,
                                int32_t depth, const egraph::Signature& sig,
                                egraph::TermArena& out) {
    egraph::TermNode n = in.at(id);
    if (n.op == lift::Op::Param && n.eclass == egraph::kNoClass && n.ival >= depth) {
        size_t param = sig.types.size() - 1 - static_cast<size_t>(n.ival - depth);
        lift::TypeId type = sig.types.at(param);
        if (g.types.at(type).kind == lift::TypeKind::Array) {
            egraph::TermNode leaf;
            leaf.op = lift::Op::Literal;
            leaf.ival = static_cast<int32_t>(g.internLiteral(type, sig.names.at(param)));
            return out.add(std::move(leaf));
        }
    }
    int32_t inner = n.op == lift::Op::Lambda ? depth + n.ival : depth;
    for (egraph::TermId& c : n.children) {
        c = closeArrayParams(g, in, c, inner, sig, out);
    }
    return out.add(std::move(n));
}

// Tries one random instance; false when it is ill-typed or the rule does not apply to it.
bool trySetup(const Rule& rule, const egraph::Library& lib, detail::Instance& inst, Setup& s) {
    s.g.explanations = true;
    egraph::Inserted ins;
    try {
        egraph::TermArena terms, closed;
        egraph::TermId body = egraph::programToTerm(s.g, inst.program, terms, ins.signature);
        egraph::TermId root = closeArrayParams(s.g, terms, body, 0, ins.signature, closed);
        ins.root = s.g.addTerm(closed, root, {}, ins.signature.types);
    } catch (const Error&) {
        return false;
    }
    s.lhs = inst.wrapped ? appliedFunction(s.g, ins.root) : ins.root;
    std::vector<egraph::Match> matches;
    egraph::searchClass(s.g, rule, lib, s.ctx.facts, s.g.find(s.lhs), matches);
    for (const egraph::Match& m : matches) {
        std::vector<ENodeId> nodes;
        s.g.recordNodes(&nodes);
        std::optional<EClassId> rhs;
        try {
            rhs = egraph::applyRhs(s.g, rule, lib, s.ctx.tuning, m);
        } catch (const Error&) {
            rhs.reset();
        }
        s.g.recordNodes(nullptr);
        if (rhs && !nodes.empty()) {
            // Terms are added children first: the last node is the right-hand side's root
            // (or, when the whole term existed already, its class's node).
            s.rhs = s.g.findConst(nodes.back()) == s.g.findConst(*rhs) ? nodes.back() : *rhs;
            s.shown = inst.program.show(inst.program.root);
            s.names = ins.signature.names;
            return true;
        }
    }
    return false;
}

// Pattern nodes that are operators (applications and lambdas included), and how many of them are
// OpenCL-specific (MapWrg, ReduceSeq, toLocal, ...).
struct PatternSize {
    size_t nodes = 0;
    size_t lowLevel = 0;
};

PatternSize patternSize(const egraph::Pattern& p) {
    PatternSize s;
    for (const egraph::PatNode& n : p.nodes) {
        if (n.kind == egraph::PatNode::Kind::Node) {
            ++s.nodes;
            s.lowLevel += lift::isLowLevel(n.op);
        }
    }
    return s;
}

// A lifting rule takes a term towards its high-level meaning: it creates no tuning variable and
// its right-hand side is smaller than its left, or as large with fewer OpenCL-specific patterns
// (the reverses of the lowerings, copies and address spaces removed, cancellations, beta
// reduction). Saturating with these alone terminates in practice, and normalises a schedule
// (a macro's right-hand side) to the high-level form a forward derivation reaches.
bool isLifting(const Rule& r) {
    if (!r.generators.empty() || !r.computed.empty()) {
        return false;
    }
    if (!r.rhs) {
        // beta and beta2: the applier substitutes into a lambda applied to its arguments.
        const egraph::PatNode& root = r.lhs.nodes.at(r.lhs.root);
        return r.applier && r.applier->name == "beta" && root.op == lift::Op::Apply &&
               !root.children.empty() &&
               r.lhs.nodes.at(root.children.front()).op == lift::Op::Lambda;
    }
    PatternSize left = patternSize(r.lhs), right = patternSize(*r.rhs);
    return right.nodes < left.nodes ||
           (right.nodes == left.nodes && right.lowLevel < left.lowLevel);
}

// The shortest outer length an instance may have: 4, since lengths of 1 or 2 make degenerate
// instances (a one-element reduction is its element) where rules apply that have nothing to do
// with the composition; for a rule that vectorises by W (`divides(W, ?x)`), 4W up to
// detail::kLargestSmallLength, so that the vectorised array is not such a degenerate one too.
int64_t shortestLength(const Rule& rule) {
    int64_t shortest = 4;
    for (const egraph::Call& c : rule.conditions) {
        if (c.name == "divides" && !c.args.empty()) {
            const egraph::CallArg& a = c.args[0];
            int64_t d =
                a.kind == egraph::CallArg::Kind::Number ? a.number : a.size.constant().value_or(0);
            shortest = std::max(shortest, std::min(4 * d, detail::kLargestSmallLength));
        }
    }
    return shortest;
}

bool hasRule(const std::vector<Rule>& rules, const std::string& name) {
    return std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.name == name; });
}

// The rule's size variables that divide several lengths (`commonTuningOf`), when no catalogue
// rule creates such a variable: the primitive generators make one variable per divided length,
// so no step from the left-hand side produces these; a derivation has to remove their splits
// from the right-hand side (steps and lifting apply to both sides).
std::string uncreatedVariables(const Rule& rule, const std::vector<Rule>& catalogue) {
    auto common = [](const std::pair<std::string, egraph::Call>& g) {
        return g.second.name == "commonTuningOf";
    };
    for (const Rule& r : catalogue) {
        if (std::any_of(r.generators.begin(), r.generators.end(), common)) {
            return "";
        }
    }
    std::string vars;
    for (const auto& g : rule.generators) {
        if (common(g)) {
            vars += (vars.empty() ? "" : ", ") + g.first;
        }
    }
    return vars;
}

struct Stage {
    const char* name;
    std::vector<Rule> rules;
};

// The stages' rule sets: the lifting rules (the right-hand side's schedule normalised towards
// the composition's result), the stated composition (each step and its reverse), then with every
// catalogue rule that creates no tuning variable, then the whole catalogue.
std::vector<Stage> stages(const Rule& rule, const std::vector<Rule>& catalogue) {
    std::set<std::string> named;
    for (const std::string& step : rule.composition) {
        named.insert(step);
        named.insert(step + "-rev");
        if (step.ends_with("-rev")) {
            named.insert(step.substr(0, step.size() - 4));
        }
    }
    std::vector<Rule> lifting, composition, closed;
    for (const Rule& r : catalogue) {
        if (isLifting(r)) {
            lifting.push_back(r);
        }
        if (named.count(r.name)) {
            composition.push_back(r);
            closed.push_back(r);
        } else if (r.generators.empty()) {
            closed.push_back(r);
        }
    }
    std::vector<Stage> out;
    out.push_back({"lifting", std::move(lifting)});
    if (!composition.empty()) {
        out.push_back({"composition", std::move(composition)});
    }
    out.push_back({"without generators", std::move(closed)});
    out.push_back({"catalogue", catalogue});
    return out;
}

void explainInto(const Setup& s, Derivation& d) {
    egraph::Explanation ex = egraph::explain(s.g, s.ctx.rules, s.lhs, s.rhs, s.names);
    for (const auto& step : ex.steps) {
        d.steps.push_back({step.rule, step.forward});
    }
    d.derived = true;
}

// The stated composition in order: each step's rule alone, all its matches once (a step may
// apply where the previous ones left a new term). False when a rule fails (d says why).
// After a `focus` step, each later step rewrites only the classes of the right-hand side's
// structured term as the steps before the marker wrote it (derive_show.hpp) and the classes that
// steps after the marker created or added a member to (egraph::Focus): the rest of the e-graph,
// which the steps before filled with every form of every match, stays as it is. `focus-left`
// does the same with the left-hand side's term: steps that take the left-hand side towards the
// form the right-hand side's steps reach, without rewriting the right-hand side's every match.
bool applyInOrder(const Rule& rule, const std::vector<Rule>& catalogue, const egraph::Library& lib,
                  EGraph& g, egraph::RewriteContext& ctx, std::pair<EClassId, EClassId> sides,
                  const std::function<bool(const EGraph&)>& reached, bool showGrowth,
                  Derivation& d) {
    std::optional<egraph::Focus> focus;
    size_t done = 0;
    std::string idle;   // steps that found nothing to rewrite
    std::string growth; // each step's e-nodes added (with --show-clause)
    for (const std::string& step : rule.composition) {
        if (isMarker(step)) {
            g.rebuild();
            EClassId side = step == kFocusStep ? sides.second : sides.first;
            focus = egraph::Focus{detail::structuredClasses(g, {g.find(side)}), g.numNodeIds()};
            ++done;
            continue;
        }
        auto it = std::find_if(catalogue.begin(), catalogue.end(),
                               [&](const Rule& r) { return r.name == step; });
        std::vector<Rule> one{*it};
        egraph::Runner runner(g, one, lib, ctx);
        runner.limits.iterations = 1;
        runner.focus = focus ? &*focus : nullptr;
        // A step applies to every match: a step of the composition is not a search that a
        // rule with many matches could flood (the scheduler's bans are for saturation).
        runner.scheduler.matchLimit = 0;
        runner.goal = reached;
        try {
            size_t before = g.numNodes();
            egraph::RunReport report = runner.run();
            if (report.rules.at(0).applications == 0) {
                idle += (idle.empty() ? "" : ", ") + step;
            }
            growth += fmt("%s%s %+ld", growth.empty() ? "" : ", ", step.c_str(),
                          static_cast<long>(g.numNodes()) - static_cast<long>(before));
        } catch (const Error& e) {
            d.progress.push_back("step " + step + " failed: " + e.message());
            return false;
        }
        ++done;
        if (reached(g)) {
            break;
        }
    }
    d.progress.push_back(fmt("composition in order: %zu of %zu steps applied, %s, %zu e-nodes",
                             done, rule.composition.size(),
                             reached(g) ? "reached the right-hand side" : "not reached",
                             g.numNodes()) +
                         (idle.empty() ? "" : "; steps that rewrote nothing: " + idle));
    if (showGrowth) {
        d.progress.push_back("e-nodes each step added: " + growth);
    }
    return true;
}

} // namespace

Derivation deriveRule(const Rule& rule, const std::vector<Rule>& catalogue,
                      const egraph::Library& lib, const DeriveOptions& options) {
    Derivation d;
    d.rule = rule.name;
    d.where = rule.file + ":" + std::to_string(rule.loc.line) + ":" + std::to_string(rule.loc.col);
    for (const std::string& step : rule.composition) {
        if (!isMarker(step) && !hasRule(catalogue, step)) {
            d.progress.push_back("its composition names '" + step +
                                 "', which is not a primitive rule of the catalogue");
            return d;
        }
    }
    detail::Rng rng(derivationSeed(options.seed, rule.name));
    std::optional<Setup> setup;
    const int64_t shortest = shortestLength(rule);
    for (size_t a = 0; a < options.attempts && !setup; ++a) {
        std::optional<detail::Instance> inst = detail::randomInstance(rule, rng);
        if (!inst || inst->n < shortest || inst->m < 2) {
            continue;
        }
        setup.emplace();
        if (!trySetup(rule, lib, *inst, *setup)) {
            setup.reset();
        }
    }
    if (!setup) {
        d.progress.push_back("no instance of the left-hand side to which the rule applies in " +
                             std::to_string(options.attempts) + " attempts");
        return d;
    }
    EGraph& g = setup->g;
    d.instance = setup->shown;
    if (std::string vars = uncreatedVariables(rule, catalogue); !vars.empty()) {
        d.progress.push_back(vars + " (commonTuningOf) divide several lengths: no primitive rule "
                                    "creates such a variable, so the steps must remove their "
                                    "splits from the right-hand side");
    }
    ENodeId lhs = setup->lhs, rhs = setup->rhs;
    auto reached = [lhs, rhs](const EGraph& eg) { return eg.findConst(lhs) == eg.findConst(rhs); };
    // The stated steps copy every member of the classes they move under other binders, so a
    // step still finds what earlier steps rewrote there; the saturation stages copy smallest
    // terms (every member there would copy each stage's growth again).
    g.keepMembersInCopies = true;
    bool applied = rule.composition.empty() ||
                   applyInOrder(rule, catalogue, lib, g, setup->ctx, {g.find(lhs), g.find(rhs)},
                                reached, options.showClause, d);
    g.keepMembersInCopies = false;
    if (applied && options.showClause && !rule.composition.empty()) {
        d.progress.push_back("right-hand side after the stated steps (structured): " +
                             detail::showStructured(g, g.find(rhs), setup->names));
    }
    if (!applied) {
        return d;
    }
    if (reached(g)) {
        explainInto(*setup, d);
        return d;
    }
    for (const Stage& stage : stages(rule, catalogue)) {
        egraph::Runner runner(g, stage.rules, lib, setup->ctx);
        runner.limits.seconds = options.secondsPerStage;
        runner.limits.nodes = options.nodesPerStage;
        runner.limits.iterations = options.iterationsPerStage;
        runner.goal = reached;
        egraph::RunReport report;
        try {
            report = runner.run();
        } catch (const Error& e) {
            d.progress.push_back(std::string("stage ") + stage.name +
                                 ": a rule failed: " + e.message());
            return d;
        }
        d.progress.push_back(fmt("stage %s (%zu rules): %s after %zu iterations, %zu e-nodes",
                                 stage.name, stage.rules.size(),
                                 std::string(egraph::stopReasonName(report.stop)).c_str(),
                                 report.iterations.size(), g.numNodes()));
        if (reached(g)) {
            explainInto(*setup, d);
            return d;
        }
    }
    // Where both sides got: the smallest term of each side's class, so that the gap the
    // catalogue leaves is visible (what an order of steps, or a missing equality, has to close).
    d.progress.push_back("left-hand side's smallest equal term: " + g.show(g.find(lhs)));
    d.progress.push_back("right-hand side's smallest equal term: " + g.show(g.find(rhs)));
    return d;
}

std::string formatDerivation(const Derivation& d) {
    std::string out = (d.derived ? "DERIVED " : "NOT DERIVED ") + d.rule + " (" + d.where + ")";
    if (d.derived) {
        out += fmt(": %zu steps\n", d.steps.size());
        for (size_t i = 0; i < d.steps.size(); ++i) {
            out += fmt("  %zu. %s%s\n", i + 1, d.steps[i].rule.c_str(),
                       d.steps[i].forward ? "" : " (right to left)");
        }
        return out;
    }
    out += "\n";
    if (!d.instance.empty()) {
        out += "  instance: " + d.instance + "\n";
    }
    for (const std::string& p : d.progress) {
        out += "  " + p + "\n";
    }
    return out;
}

} // namespace egopt::rules
