// The focus of a later search stage (docs/search.md): the e-classes of the beam's terms.
#include "egopt/egraph/convert.hpp"
#include "stages.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <tbb/parallel_for.h>

namespace egopt::pipeline {

namespace {

constexpr size_t kBeamPredictions = 64; // the model's descent per beam candidate
constexpr size_t kGoalSlots = 2;        // beam slots for shared reductions (--no-macros)
// The newest shared reductions whose classes, and the classes below them (at most kGoalClasses),
// join a stage's focus (--no-macros).
constexpr size_t kGoalReductions = 8;
constexpr size_t kGoalClasses = 2000;

// The candidates in the order of the model's prediction at its best tuning values near the
// defaults (a schedule at default sizes can be far from its tuned time); unpredictable last.
std::vector<size_t> byTunedPrediction(Work& w, const std::vector<extract::Candidate>& cands) {
    std::vector<std::optional<double>> predicted(cands.size());
    tbb::parallel_for(size_t{0}, cands.size(), [&](size_t i) {
        const extract::Candidate& c = cands[i];
        predicted[i] =
            modelDescent(
                Space(c.tuning, w.sizes), [&](const arith::Bindings& v) { return w.predict(c, v); },
                kBeamPredictions, kDefaultTuningValue)
                .second;
    });
    std::vector<size_t> order(cands.size());
    for (size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return predicted[a].value_or(1e300) < predicted[b].value_or(1e300);
    });
    return order;
}

} // namespace

// A term's algorithmic shape: its text without the lowering choices of its maps and reductions
// (which thread map, which dimension). Terms of one shape give the next stage the same focus
// (the lowering rules are equalities, so each lowered term's classes hold its other lowerings).
std::string shapeOf(const std::string& text) {
    static const std::regex kThreadMap(R"(Map(Glb|Wrg|Lcl|Seq)\()");
    static const std::regex kDimension(R"(, [012]\))");
    static const std::regex kSequential(R"(ReduceSeq\()");
    std::string out = std::regex_replace(text, kThreadMap, "Map(");
    out = std::regex_replace(out, kDimension, ")");
    return std::regex_replace(out, kSequential, "Reduce(");
}

std::vector<extract::Candidate> selectBeam(Work& w, std::vector<extract::Candidate> pool) {
    std::vector<size_t> order = byTunedPrediction(w, pool);
    std::vector<bool> chosen(pool.size(), false);
    std::set<std::string> shapes;
    size_t taken = 0;
    auto take = [&](size_t i, size_t upTo) {
        if (taken < upTo && !chosen[i] && shapes.insert(shapeOf(pool[i].text)).second) {
            chosen[i] = true;
            ++taken;
        }
    };
    // Without macros the first slots go to the best predicted shared reductions
    // (docs/search-goal.md, "A shape goal"): the steps towards a register block are predicted no
    // faster than the simpler kernels, and a stage's focus must hold them for the next steps to
    // follow.
    size_t width = w.options.search.beam;
    size_t goalSlots = w.shapeGoal ? std::min(kGoalSlots, width) : 0;
    for (size_t i : order) {
        if (taken < goalSlots && w.goalTexts.count(pool[i].text)) {
            take(i, goalSlots);
        }
    }
    for (size_t i : order) {
        take(i, width);
    }
    std::vector<extract::Candidate> beam;
    for (size_t i : order) {
        if (chosen[i]) {
            beam.push_back(std::move(pool[i]));
        }
    }
    return beam;
}

std::vector<extract::Candidate> withCarried(std::vector<extract::Candidate> found,
                                            const std::vector<extract::Candidate>& carried) {
    std::set<std::string> texts;
    for (const extract::Candidate& c : found) {
        texts.insert(c.text);
    }
    for (const extract::Candidate& c : carried) {
        if (texts.insert(c.text).second) {
            found.push_back(c);
        }
    }
    return found;
}

egraph::Focus focusOf(egraph::EGraph& g, const std::vector<extract::Candidate>& beam,
                      const Progress& progress) {
    egraph::Focus focus;
    std::vector<egraph::ENodeId> nodes;
    for (const extract::Candidate& c : beam) {
        // The candidate's term was extracted from `g`: adding it again finds its e-nodes, and
        // the recording lists them (their classes are the term's).
        // A term that does not convert back (it should) only leaves the focus smaller.
        lift::Program program = c.program;
        egraph::TermArena terms;
        egraph::Signature sig;
        try {
            egraph::TermId body = egraph::programToTerm(g, program, terms, sig);
            g.recordNodes(&nodes);
            g.addTerm(terms, body, {}, sig.types);
            g.recordNodes(nullptr);
            progress("search stage: beam term " + c.text.substr(0, 200));
        } catch (const std::exception& e) {
            g.recordNodes(nullptr);
            progress("search stage: beam term left out (" + std::string(e.what()) + ")");
        }
    }
    g.rebuild();
    focus.classes.reserve(nodes.size());
    for (egraph::ENodeId n : nodes) {
        focus.classes.push_back(g.find(n));
    }
    std::sort(focus.classes.begin(), focus.classes.end());
    focus.classes.erase(std::unique(focus.classes.begin(), focus.classes.end()),
                        focus.classes.end());
    focus.since = g.numNodeIds();
    return focus;
}

void addGoalRegion(const egraph::EGraph& g, egraph::Focus& focus, const Progress& progress) {
    std::vector<egraph::EClassId> region =
        goalRegion(g, goalRoots(g, kGoalReductions), kGoalClasses);
    size_t fused = 0, bounded = 0;
    for (const auto& goal : sharedReductions(g, kGoalReductions)) {
        fused += fusedReduction(g, goal.back());
        bounded += boundedReduction(g, goal.back());
    }
    size_t before = focus.classes.size();
    focus.classes.insert(focus.classes.end(), region.begin(), region.end());
    std::sort(focus.classes.begin(), focus.classes.end());
    focus.classes.erase(std::unique(focus.classes.begin(), focus.classes.end()),
                        focus.classes.end());
    progress(fmt("search stage: %zu e-classes below sharing maps and shared reductions (of the "
                 "first %zu, %zu with their operands computed in the loop, %zu with a bounded "
                 "block of accumulators), %zu new to the focus",
                 region.size(), kGoalReductions, fused, bounded, focus.classes.size() - before));
}

} // namespace egopt::pipeline
