// Searching rules: e-matching with the rules' conditions, evaluated early where they can be,
// and the semi-naive search's deferred ranges (docs/egraph.md, "Unchanged matches").
#include "egopt/egraph/rewrite.hpp"

#include <algorithm>

namespace egopt::egraph {

namespace {

// Whether a size argument mentions a size variable of the pattern (bound per match).
bool mentionsSizeVar(const arith::Size& size) {
    const std::vector<std::string> vars = size.variables();
    return std::any_of(vars.begin(), vars.end(),
                       [](const std::string& v) { return !v.empty() && v[0] == '#'; });
}

// The arguments that do not depend on the match (numbers, texts, sizes without pattern
// variables), once per search: a size copied per call would share its reference count with
// every other search thread (`divides(4, ?xs)` on every class).
// `perMatch` marks the size arguments that bindArgs substitutes.
void prepareArgs(const Call& call, std::vector<ArgValue>& out, std::vector<uint8_t>& perMatch) {
    out.assign(call.args.size(), ArgValue{});
    perMatch.assign(call.args.size(), 0);
    for (size_t i = 0; i < call.args.size(); ++i) {
        out[i].number = call.args[i].number;
        out[i].text = call.args[i].text;
        if (call.args[i].kind == CallArg::Kind::Size) {
            if (mentionsSizeVar(call.args[i].size)) {
                perMatch[i] = 1;
            } else {
                out[i].size = call.args[i].size;
            }
        }
    }
}

// The arguments that do (classes, sizes with pattern variables), into arguments prepared by
// prepareArgs.
void bindArgs(const Call& call, const Subst& s, std::vector<ArgValue>& out,
              const std::vector<uint8_t>& perMatch) {
    for (size_t i = 0; i < call.args.size(); ++i) {
        const CallArg& a = call.args[i];
        if (a.kind == CallArg::Kind::Class) {
            out[i].eclass = s.classes.at(a.slot);
        } else if (perMatch[i]) {
            out[i].size = a.size.substitute(s.sizes);
        }
    }
}

// The class slots a condition reads, or nullopt when it also reads a size variable (bound by
// the matched nodes' attributes, not tracked while matching): it is then checked at the end.
std::optional<std::vector<uint32_t>> earlySlots(const Call& call) {
    std::vector<uint32_t> slots;
    for (const CallArg& a : call.args) {
        if (a.kind == CallArg::Kind::Class) {
            slots.push_back(a.slot);
        } else if (a.kind == CallArg::Kind::Size) {
            for (const auto& v : a.size.variables()) {
                if (!v.empty() && v[0] == '#') {
                    return std::nullopt;
                }
            }
        }
    }
    return slots;
}

} // namespace

void searchClass(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                 EClassId c, std::vector<Match>& out) {
    searchClasses(g, rule, lib, facts, std::span<const EClassId>(&c, 1), out);
}

void searchClasses(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                   std::span<const EClassId> classes, std::vector<Match>& out) {
    searchClasses(g, rule, lib, facts, classes, [&](EClassId c, const Subst& s) {
        out.push_back({c, s});
    });
}

namespace {

// The condition of a journaled class, or nullopt to call the condition (Resumption).
using Journaled = std::function<std::optional<bool>(size_t cond, EClassId c)>;
// Runs a match with the rule's conditions: `match(keep, onFull)` enumerates, calling `keep` as
// variables are bound and `onFull` for each match, which is checked here before `onMatch`.
using MatchRun =
    std::function<void(const BindFilter&, const std::function<void(EClassId, const Subst&)>&)>;

void withConditions(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                    const Journaled& journaled, const MatchRun& match,
                    const std::function<void(EClassId, const Subst&)>& onMatch) {
    // Looked up once, not per match: the library is a map keyed by name.
    std::vector<const Condition*> conds;
    for (const Call& cond : rule.conditions) {
        conds.push_back(&lib.conditions.at(cond.name).second);
    }
    auto call = [&](size_t i, std::span<const ArgValue> args) {
        if (journaled) {
            for (const ArgValue& a : args) {
                if (a.eclass != kNoClass) {
                    if (std::optional<bool> known = journaled(i, a.eclass)) {
                        return *known;
                    }
                    break;
                }
            }
        }
        return (*conds[i])(g, facts, args);
    };
    // A condition on class variables alone is also tried as soon as its last variable is bound,
    // and a failure prunes the search below (isFun(?f, "add") at the root of `?f $ (?x, ?y)`).
    // Conditions are predicates on a const e-graph: evaluating one early changes no match. At
    // the end all are checked in their order, as before, so one that throws early (a condition
    // that expects an earlier one to hold) only loses the pruning.
    size_t numSlots = rule.vars.names.size();
    std::vector<std::vector<size_t>> bySlot(numSlots);
    std::vector<std::vector<uint32_t>> slotsOf(rule.conditions.size());
    for (size_t i = 0; i < rule.conditions.size(); ++i) {
        if (auto slots = earlySlots(rule.conditions[i]); slots && !slots->empty()) {
            slotsOf[i] = *slots;
            for (uint32_t slot : *slots) {
                bySlot.at(slot).push_back(i);
            }
        }
    }
    // Each condition's arguments, numbers and texts filled in once; classes and sizes per call.
    std::vector<std::vector<ArgValue>> args(rule.conditions.size());
    std::vector<std::vector<uint8_t>> perMatch(rule.conditions.size());
    for (size_t i = 0; i < rule.conditions.size(); ++i) {
        prepareArgs(rule.conditions[i], args[i], perMatch[i]);
    }
    // The class arguments an early condition last held for: a predicate on a const e-graph
    // holds again for them, so the check at the end need not call it again (most matches of
    // `?f $ (?x, ?y) if isFun(?f, "add")` share one ?f).
    std::vector<std::vector<EClassId>> held(rule.conditions.size());
    std::vector<std::vector<EClassId>> failed(rule.conditions.size()); // and last failed for
    auto classArgs = [&](size_t i, const Subst& s, std::vector<EClassId>& out) {
        out.clear();
        for (uint32_t v : slotsOf[i]) {
            out.push_back(s.classes[v]);
        }
    };
    // Whether condition i's class arguments in `s` are `ids` (not copied out first: this runs
    // at every binding and every match).
    auto argsAre = [&](size_t i, const Subst& s, const std::vector<EClassId>& ids) {
        const std::vector<uint32_t>& slots = slotsOf[i];
        if (ids.size() != slots.size()) {
            return false;
        }
        for (size_t k = 0; k < slots.size(); ++k) {
            if (s.classes[slots[k]] != ids[k]) {
                return false;
            }
        }
        return true;
    };
    BindFilter keep;
    for (const auto& conds : bySlot) {
        keep.slots.push_back(!conds.empty());
    }
    keep.fn = [&](const Subst& s, uint32_t slot) {
        for (size_t i : bySlot[slot]) {
            bool ready = std::all_of(slotsOf[i].begin(), slotsOf[i].end(),
                                     [&](uint32_t v) { return s.classes[v] != kNoClass; });
            if (!ready) {
                continue;
            }
            // The same arguments as last time: the same answer, without the call.
            if (!held[i].empty() && argsAre(i, s, held[i])) {
                continue;
            }
            if (!failed[i].empty() && argsAre(i, s, failed[i])) {
                return false;
            }
            bindArgs(rule.conditions[i], s, args[i], perMatch[i]);
            try {
                if (!call(i, args[i])) {
                    classArgs(i, s, failed[i]);
                    return false;
                }
                classArgs(i, s, held[i]);
            } catch (const std::exception&) {
                // decided at the end, in order
            }
        }
        return true;
    };
    auto heldFor = [&](size_t i, const Subst& s) {
        return !held[i].empty() && argsAre(i, s, held[i]);
    };
    bool anyEarly = std::any_of(bySlot.begin(), bySlot.end(), [](auto& v) { return !v.empty(); });
    match(anyEarly ? keep : BindFilter{}, [&](EClassId c, const Subst& s) {
        for (size_t i = 0; i < conds.size(); ++i) {
            if (heldFor(i, s)) {
                continue;
            }
            bindArgs(rule.conditions[i], s, args[i], perMatch[i]);
            if (!call(i, args[i])) {
                return;
            }
        }
        onMatch(c, s);
    });
}

// The slots the rule's conditions read.
std::vector<uint32_t> conditionSlots(const Rule& rule) {
    std::vector<uint32_t> slots;
    for (const Call& cond : rule.conditions) {
        for (const CallArg& a : cond.args) {
            if (a.kind == CallArg::Kind::Class) {
                slots.push_back(a.slot);
            }
        }
    }
    return slots;
}

} // namespace

void searchClasses(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                   std::span<const EClassId> classes,
                   const std::function<void(EClassId, const Subst&)>& onMatch,
                   uint32_t unchangedSince, const Deferral* deferral, const FunctionFilter* filter,
                   MemberRange roots) {
    MatchAge age;
    age.since = unchangedSince;
    if (unchangedSince != 0) {
        age.classSlots = conditionSlots(rule);
    }
    size_t numSlots = rule.vars.names.size();
    withConditions(
        g, rule, lib, facts, {},
        [&](const BindFilter& keep, const std::function<void(EClassId, const Subst&)>& onFull) {
            matchClasses(g, rule.lhs, numSlots, classes, onFull, keep, age, deferral, filter,
                         roots);
        },
        onMatch);
}

void resumeSearch(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                  EClassId root, const Resumption& resume,
                  const std::function<std::optional<bool>(size_t, EClassId)>& journaled,
                  const std::function<void(const Subst&)>& onMatch) {
    size_t numSlots = rule.vars.names.size();
    withConditions(
        g, rule, lib, facts, journaled,
        [&](const BindFilter& keep, const std::function<void(EClassId, const Subst&)>& onFull) {
            resumeMatches(
                g, rule.lhs, numSlots, root, resume, [&](const Subst& s) { onFull(root, s); },
                keep);
        },
        [&](EClassId, const Subst& s) { onMatch(s); });
}

void resumeSearchSession(const EGraph& g, const Rule& rule, const Library& lib,
                         const SizeFacts& facts, const Resumption& resume,
                         const std::function<std::optional<bool>(size_t, EClassId)>& journaled,
                         const std::function<void(const Subst&)>& onMatch,
                         const std::function<void(const std::function<void(EClassId)>&)>& body) {
    size_t numSlots = rule.vars.names.size();
    withConditions(
        g, rule, lib, facts, journaled,
        [&](const BindFilter& keep, const std::function<void(EClassId, const Subst&)>& onFull) {
            std::function<void(const Subst&)> forward = [&](const Subst& s) {
                onFull(kNoClass, s);
            };
            resumeMatchesSession(g, rule.lhs, numSlots, resume, forward, keep, body);
        },
        [&](EClassId, const Subst& s) { onMatch(s); });
}

std::vector<bool> conditionSlotMask(const Rule& rule) {
    std::vector<bool> mask(rule.vars.names.size(), false);
    for (uint32_t slot : conditionSlots(rule)) {
        mask.at(slot) = true;
    }
    return mask;
}

} // namespace egopt::egraph
