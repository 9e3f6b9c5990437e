// The apply phase's journal for deferred matches (seminaive.hpp).
#include "seminaive.hpp"

#include "egopt/egraph/runner.hpp"

#include <algorithm>

namespace egopt::egraph::detail {

namespace {

// The deepest class variable (among `counted` slots) below each left-hand node, -1 for none.
int32_t depths(const Pattern& p, PatId id, const std::vector<bool>& counted,
               std::vector<int32_t>& out) {
    const PatNode& n = p.nodes[id];
    int32_t d = -1;
    if (n.kind == PatNode::Kind::ClassVar) {
        d = counted[n.slot] ? 0 : -1;
    } else {
        for (PatId c : n.children) {
            int32_t below = depths(p, c, counted, out);
            d = below >= 0 ? std::max(d, below + 1) : d;
        }
    }
    out[id] = d;
    return d;
}

} // namespace

DeferredRule::DeferredRule(const Rule& rule)
    : varDepth(rule.lhs.nodes.size(), -1), anchorDepth(rule.lhs.nodes.size(), -1),
      anchor(rule.vars.names.size(), false), conditionSlot(conditionSlotMask(rule)) {
    for (uint32_t slot : anchorSlots(rule)) {
        anchor.at(slot) = true;
    }
    depths(rule.lhs, rule.lhs.root, std::vector<bool>(anchor.size(), true), varDepth);
    depths(rule.lhs, rule.lhs.root, anchor, anchorDepth);
}

ApplyJournal::ApplyJournal(EGraph& g, const SizeFacts& facts, std::vector<Probe> probes,
                           int32_t depth)
    : g_(g), facts_(facts), probes_(std::move(probes)), depth_(depth), start_(g.numNodeIds()) {
    g_.beforeMerge = [this](EClassId root, EClassId absorbed) { onMerge(root, absorbed); };
}

ApplyJournal::~ApplyJournal() {
    g_.beforeMerge = nullptr;
}

std::optional<bool> ApplyJournal::condition(size_t probe, EClassId c) const {
    if (const ClassSnapshot::Entry* e = snapshot_.find(c)) {
        return e->conditions.at(probe) != 0;
    }
    return std::nullopt;
}

const ClassSnapshot::Entry& ApplyJournal::entry(EClassId c) {
    journal(c);
    return *snapshot_.find(c);
}

void ApplyJournal::journal(EClassId c) {
    if (c >= start_ || snapshot_.has(c)) {
        return; // made by this phase, or journaled before its first change
    }
    ClassSnapshot::Entry& e = snapshot_.add(c);
    EClass ec = g_.eclass(c);
    e.members.assign(ec.nodes.begin(), ec.nodes.end());
    e.opMask = ec.opMask;
    for (Probe& p : probes_) {
        p.args[p.classArg].eclass = c;
        e.conditions.push_back((*p.condition)(g_, facts_, p.args) ? 1 : 0);
    }
}

void ApplyJournal::onMerge(EClassId root, EClassId absorbed) {
    journal(root);
    journal(absorbed);
    if (absorbed >= start_) {
        return; // no deferred match goes through a class the phase made
    }
    pendingAbsorbed_.push_back(absorbed);
    for (ENodeId n : g_.eclass(absorbed).nodes) {
        if (n < start_) {
            for (EClassId child : g_.node(n).children) {
                pendingAnchors_.push_back(child);
            }
        }
    }
}

void ApplyJournal::raise(std::vector<uint8_t>& below, EClassId c, int32_t level) {
    if (below[c] <= level) {
        return;
    }
    below[c] = static_cast<uint8_t>(level);
    if (level >= depth_) {
        return;
    }
    // The classes above, through the e-nodes the search saw (the parent list of a class merged
    // away since is its root's, which holds them).
    for (ENodeId p : g_.eclass(c).parents) {
        if (p < start_) {
            raise(below, g_.findConst(p), level + 1);
        }
    }
}

void ApplyJournal::settlePending() {
    absorbedBelow_.resize(g_.numNodeIds(), kFar);
    anchorBelow_.resize(g_.numNodeIds(), kFar);
    for (EClassId c : pendingAbsorbed_) {
        raise(absorbedBelow_, c, 0);
    }
    for (EClassId c : pendingAnchors_) {
        raise(anchorBelow_, c, 0);
    }
    pendingAbsorbed_.clear();
    pendingAnchors_.clear();
}

bool ApplyJournal::mayChange(const Pattern& lhs, const DeferredRule& rule, const Subst& s,
                             std::span<const std::pair<PatId, EClassId>> pending) {
    settle();
    auto varMayChange = [&](uint32_t slot, EClassId c) {
        return at(absorbedBelow_, c) == 0 || (rule.anchor[slot] && at(anchorBelow_, c) == 0);
    };
    for (uint32_t v = 0; v < s.classes.size(); ++v) {
        if (s.classes[v] != kNoClass && varMayChange(v, s.classes[v])) {
            return true;
        }
    }
    for (auto [pid, c] : pending) {
        const PatNode& pn = lhs.nodes[pid];
        if (pn.kind == PatNode::Kind::ClassVar) {
            if (varMayChange(pn.slot, c)) {
                return true;
            }
            continue;
        }
        int32_t vars = rule.varDepth[pid], anchors = rule.anchorDepth[pid];
        if ((vars >= 0 && at(absorbedBelow_, c) <= vars) ||
            (anchors >= 0 && at(anchorBelow_, c) <= anchors)) {
            return true;
        }
    }
    return false;
}

} // namespace egopt::egraph::detail

namespace egopt::egraph {

std::unique_ptr<detail::ApplyJournal>
Runner::startJournal(const std::vector<RuleMatches>& matches) {
    bool any = false;
    for (const RuleMatches& rm : matches) {
        for (const Matches& part : rm.parts) {
            any = any || !part.deferred.empty();
        }
    }
    if (!any) {
        return nullptr;
    }
    // One probe per distinct condition call (name and arguments other than the class).
    std::vector<detail::ApplyJournal::Probe> probes;
    std::vector<std::string> keys;
    int32_t depth = 0;
    for (size_t r = 0; r < rules_.size(); ++r) {
        if (!deferring(r)) {
            continue;
        }
        detail::DeferredRule& d = *state_[r].deferred;
        depth = std::max(depth, d.varDepth[rules_[r].lhs.root]);
        d.probes.clear();
        for (const Call& cond : rules_[r].conditions) {
            detail::ApplyJournal::Probe probe;
            probe.condition = &lib_.conditions.at(cond.name).second;
            std::string key = cond.name;
            for (size_t i = 0; i < cond.args.size(); ++i) {
                const CallArg& a = cond.args[i];
                ArgValue v;
                v.number = a.number;
                v.text = a.text;
                probe.classArg = a.kind == CallArg::Kind::Class ? i : probe.classArg;
                probe.args.push_back(v);
                key += "\x1f" + std::to_string(int(a.kind)) + ":" + std::to_string(a.number) + ":" +
                       (a.kind == CallArg::Kind::Class ? std::string() : a.text);
            }
            auto it = std::find(keys.begin(), keys.end(), key);
            d.probes.push_back(static_cast<size_t>(it - keys.begin()));
            if (it == keys.end()) {
                keys.push_back(key);
                probes.push_back(std::move(probe));
            }
        }
    }
    return std::make_unique<detail::ApplyJournal>(g_, ctx_.facts, std::move(probes), depth);
}

void Runner::withResumption(size_t r, const RuleMatches& matches, ApplyState& st,
                            const std::function<void()>& applyRule) {
    bool any =
        st.journal != nullptr && std::any_of(matches.parts.begin(), matches.parts.end(),
                                             [](const Matches& m) { return !m.deferred.empty(); });
    if (!any) {
        applyRule();
        return;
    }
    const Rule& rule = rules_[r];
    const detail::DeferredRule& dr = *state_[r].deferred;
    detail::ApplyJournal& journal = *st.journal;
    st.resume = Resumption();
    st.resume.filter = filterOf(r);
    st.resume.classAt = [&](EClassId c) -> const ClassSnapshot::Entry& { return journal.entry(c); };
    // Matches that cannot change anything now are left out; the others are applied as they are
    // found, so that what they merge is known to the matches after them. Past the e-node
    // limit, the first match stops the phase, as it would have.
    st.resume.wanted = [&](const Subst& s, std::span<const std::pair<PatId, EClassId>> pending) {
        return !st.deferredStop &&
               (g_.numNodes() > limits.nodes || journal.mayChange(rule.lhs, dr, s, pending));
    };
    resumeSearchSession(
        g_, rule, lib_, ctx_.facts, st.resume,
        [&](size_t i, EClassId c) { return journal.condition(dr.probes[i], c); },
        [&](const Subst& s) {
            if (st.deferredStop) {
                return;
            }
            ++st.deferredFound;
            Match m{st.deferredRoot, s};
            st.deferredStop = !applyOne(r, m, nullptr, st);
        },
        [&](const std::function<void(EClassId)>& run) {
            st.resumeRun = &run;
            applyRule();
            st.resumeRun = nullptr;
        });
}

bool Runner::applyDeferred(size_t r, const Matches& part, const Matches::Deferred& d, EClassId root,
                           ApplyState& st) {
    // The whole class first: most ranges are ruled out without a walk.
    std::pair<PatId, EClassId> whole{rules_[r].lhs.root, root};
    if (g_.numNodes() <= limits.nodes &&
        !st.journal->mayChange(rules_[r].lhs, *state_[r].deferred, Subst{}, std::span(&whole, 1))) {
        return true;
    }
    st.resume.path = std::span(part.paths).subspan(d.pathAt, d.pathLen);
    st.resume.lo = d.lo;
    st.resume.hi = d.hi;
    st.deferredFound = 0;
    st.deferredStop = false;
    st.deferredRoot = root;
    (*st.resumeRun)(root);
    st.report.rules[r].matches += st.deferredFound;
    st.report.rules[r].deferredMatches += st.deferredFound;
    st.report.rules[r].deferredEnumerated += st.deferredFound > 0 ? 1 : 0;
    return !st.deferredStop;
}

} // namespace egopt::egraph
