// Applying compiled direct right-hand sides (direct_rhs.hpp), and the apply phase's lookahead
// of the matches to come (Runner::prefetchAhead).
#include "egopt/egraph/direct_rhs.hpp"

#include "egopt/egraph/runner.hpp"
#include "rewrite_parts.hpp"

#include <bit>

namespace egopt::egraph {

std::optional<DirectRhs> DirectRhs::compile(const Rule& rule) {
    if (!rule.rhs || rule.applier || !rule.generators.empty() || !rule.computed.empty()) {
        return std::nullopt;
    }
    DirectRhs d;
    const Pattern& rhs = *rule.rhs;
    const PatNode& root = rhs.nodes[rhs.root];
    // A root that is not an application may be typed from the matched class (addTerm's
    // argument types), which the direct path does not do.
    if (root.kind == PatNode::Kind::Node && root.op != Op::Apply) {
        return std::nullopt;
    }
    for (const PatNode& n : rhs.nodes) {
        bool binder = n.kind == PatNode::Kind::BoundVar ||
                      (n.kind == PatNode::Kind::Node && (n.op == Op::Lambda || n.op == Op::Param));
        bool shifted = n.kind == PatNode::Kind::ClassVar && n.depth != rule.vars.depth.at(n.slot);
        // addTerm types a function pattern from its arguments: only a class variable may be
        // applied.
        bool typedFn =
            n.kind == PatNode::Kind::Node && n.op == Op::Apply &&
            (n.children.empty() || rhs.nodes[n.children[0]].kind != PatNode::Kind::ClassVar);
        if (binder || shifted || typedFn || !n.sizes.empty() || n.children.size() > 3) {
            return std::nullopt;
        }
    }
    if (root.kind == PatNode::Kind::ClassVar) {
        d.rootSlot_ = static_cast<int32_t>(root.slot);
        return d;
    }
    d.compileNode(rhs, rhs.root);
    if (!d.ok_ || d.steps_.size() > kMaxSteps) {
        return std::nullopt;
    }
    return d;
}

int32_t DirectRhs::compileNode(const Pattern& p, PatId id) {
    const PatNode& pn = p.nodes[id];
    if (pn.kind == PatNode::Kind::ClassVar) {
        return static_cast<int32_t>(pn.slot);
    }
    if (pn.kind != PatNode::Kind::Node) {
        ok_ = false;
        return 0;
    }
    Step s;
    s.op = pn.op;
    s.ival = pn.ival;
    s.arity = static_cast<uint8_t>(pn.children.size());
    // As addDirect: an application's arguments before its function.
    auto child = [&](size_t i) {
        s.kids[i] = compileNode(p, pn.children[i]);
        s.leaves = s.leaves && p.nodes[pn.children[i]].kind == PatNode::Kind::ClassVar;
    };
    if (pn.op == Op::Apply) {
        for (size_t i = 1; i < s.arity; ++i) {
            child(i);
        }
        if (s.arity > 0) {
            child(0);
        }
    } else {
        for (size_t i = 0; i < s.arity; ++i) {
            child(i);
        }
    }
    steps_.push_back(s);
    return -static_cast<int32_t>(steps_.size());
}

bool DirectRhs::apply(EGraph& g, const Rule& rule, RewriteContext& ctx, Match& m,
                      const Lookahead* ahead) const {
    Subst& s = m.subst;
    for (EClassId& c : s.classes) {
        c = c == kNoClass ? c : g.find(c);
    }
    EClassId rhs = kNoClass;
    if (rootSlot_ >= 0) {
        rhs = s.classes[static_cast<size_t>(rootSlot_)];
    } else {
        std::array<EClassId, kMaxSteps> made{};
        try {
            for (size_t i = 0; i < steps_.size(); ++i) {
                const Step& st = steps_[i];
                std::array<EClassId, 3> kids{};
                for (size_t k = 0; k < st.arity; ++k) {
                    int32_t kid = st.kids[k];
                    kids[k] = kid >= 0 ? s.classes[static_cast<size_t>(kid)]
                                       : made[static_cast<size_t>(-kid - 1)];
                }
                // Roots: the slots were found above and adding merges nothing. The hash made
                // ahead is used when the key's children are still these. The node is built only
                // if it is absent.
                std::span<const EClassId> children(kids.data(), st.arity);
                bool known = ahead && (ahead->valid >> i & 1) != 0;
                for (size_t k = 0; known && k < st.arity; ++k) { // no memcmp call for a few ids
                    known = ahead->kids[i][k] == kids[k];
                }
                uint32_t hash =
                    known ? ahead->hashes[i] : NodeTable::hashOfParts(st.op, st.ival, children);
                made[i] = g.addCanonical(st.op, st.ival, children, hash);
            }
        } catch (const TypeError& e) {
            detail::ruleBug(g, rule, e, g.find(m.eclass), e.a, &s);
        }
        rhs = made[steps_.size() - 1];
    }
    // Most right-hand sides are found in the matched class: the merge would find both roots
    // equal and change nothing (rhs is a root already).
    if (g.find(m.eclass) == rhs) {
        return false;
    }
    return detail::mergeRhs(g, rule, ctx, m, rhs);
}

void DirectRhs::lookahead(const EGraph& g, const EClassId* slotClasses, Lookahead& out) const {
    out.valid = 0;
    for (size_t i = 0; i < steps_.size(); ++i) {
        const Step& st = steps_[i];
        if (!st.leaves || st.arity == 0) {
            continue;
        }
        std::array<EClassId, 3>& kids = out.kids[i];
        for (size_t k = 0; k < st.arity; ++k) {
            kids[k] = g.findConst(slotClasses[st.kids[k]]);
        }
        out.hashes[i] = NodeTable::hashOfParts(st.op, st.ival,
                                               std::span<const EClassId>(kids.data(), st.arity));
        out.valid |= 1U << i;
        g.prefetchHashed(out.hashes[i], 0);
    }
}

void DirectRhs::prefetchNodes(const EGraph& g, const Lookahead& ahead) {
    for (uint32_t v = ahead.valid; v != 0; v &= v - 1) {
        g.prefetchHashed(ahead.hashes[static_cast<size_t>(std::countr_zero(v))], 1);
    }
}

void Runner::prefetchAhead(const Matches& matches, size_t r, size_t i, ApplyState& st) const {
    // Far enough ahead that a slot arrives before its node is asked for, and the node before
    // the match is applied; matches that will likely be skipped are not fetched.
    constexpr size_t kSlotAhead = 16;
    constexpr size_t kNodeAhead = 8;
    static_assert(kSlotAhead < std::tuple_size_v<decltype(st.ahead)>);
    auto slots = [&](size_t j) { return matches.classes.data() + j * (matches.width + 1) + 1; };
    auto wanted = [&](size_t j) { return j < matches.count && !matches.unchanged[j]; };
    const std::optional<DirectRhs>& direct = state_[r].direct;
    if (!direct || !directRhs) {
        for (auto [ahead, stage] : {std::pair(kSlotAhead, 0), std::pair(kNodeAhead, 1)}) {
            if (wanted(i + ahead)) {
                prefetchRhs(g_, rules_[r], slots(i + ahead), stage);
            }
        }
        return;
    }
    // The keys are made and hashed once: here for the prefetches, and reused when applying.
    if (size_t j = i + kSlotAhead; wanted(j)) {
        DirectRhs::Lookahead& a = st.ahead[j % st.ahead.size()];
        a.tag = j;
        direct->lookahead(g_, slots(j), a);
        g_.prefetchFind(slots(j)[-1]); // the matched class, whose root the merge check reads
    }
    if (size_t j = i + kNodeAhead; wanted(j) && st.ahead[j % st.ahead.size()].tag == j) {
        DirectRhs::prefetchNodes(g_, st.ahead[j % st.ahead.size()]);
    }
    const DirectRhs::Lookahead& mine = st.ahead[i % st.ahead.size()];
    st.current = mine.tag == i ? &mine : nullptr; // a stale one is caught by its keys
}

} // namespace egopt::egraph
