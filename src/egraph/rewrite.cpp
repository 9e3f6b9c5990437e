// Applying rules (searching them: search.cpp).
#include "egopt/egraph/rewrite.hpp"

#include "egopt/support/diagnostic.hpp"
#include "rewrite_parts.hpp"

#include <algorithm>

namespace egopt::egraph {

using detail::paramTypes;
using detail::resolve;
using detail::ruleBug;

namespace {

// Into `out`, whose elements (and their strings) are reused from call to call: conditions are
// resolved once per candidate match.
void resolveInto(const Call& call, const Subst& s, std::vector<ArgValue>& out) {
    out.resize(call.args.size());
    for (size_t i = 0; i < call.args.size(); ++i) {
        const CallArg& a = call.args[i];
        ArgValue& v = out[i];
        switch (a.kind) {
        case CallArg::Kind::Class:
            v.eclass = s.classes.at(a.slot);
            break;
        case CallArg::Kind::Size:
            v.size = a.size.substitute(s.sizes);
            break;
        case CallArg::Kind::Number:
            v.number = a.number;
            break;
        case CallArg::Kind::Text:
            v.text = a.text;
            break;
        }
    }
}

std::string where(const Rule& rule) {
    std::string at = rule.file;
    if (rule.loc.known()) {
        at += ":" + std::to_string(rule.loc.line) + ":" + std::to_string(rule.loc.col);
    }
    return at;
}

} // namespace

std::vector<ArgValue> detail::resolve(const Call& call, const Subst& s) {
    std::vector<ArgValue> out;
    resolveInto(call, s, out);
    return out;
}

// `s`, when given, is the match of a right-hand side that could not be built: its variables'
// terms and types stand in for the missing right-hand term.
[[noreturn]] void detail::ruleBug(const EGraph& g, const Rule& rule, const TypeError& e,
                                  EClassId lhs, EClassId rhs, const Subst* s) {
    std::string msg = "rule '" + rule.name + "' (" + where(rule) + ") is ill-typed: " + e.what();
    if (lhs != kNoClass) {
        msg += "\n  left:  " + g.show(lhs) + " : " + g.showType(lhs);
    }
    if (rhs != kNoClass) {
        msg += "\n  right: " + g.show(rhs) + " : " + g.showType(rhs);
    } else if (s) {
        msg += "\n  right: the right-hand side, with";
        for (size_t i = 0; i < s->classes.size(); ++i) {
            EClassId c = s->classes[i];
            msg += (i ? ", " : " ") + rule.vars.names.at(i) + " = " +
                   (c == kNoClass ? "(not computed)" : g.show(c) + " : " + g.showType(c));
        }
    }
    throw Error(ErrorKind::BadInput, msg, rule.file, rule.loc);
}

namespace {

// Whether addDirect builds `rhs` exactly as instantiate + addTerm would: no binders (every
// class variable is shifted by a constant, and no lambda needs its parameter types) and no
// pattern applied as a function (whose nested functions addTerm types from the arguments), so
// the nodes are added in the same order with the same attributes.
bool direct(const Pattern& rhs, bool rootHasArgTypes) {
    for (const PatNode& n : rhs.nodes) {
        if (n.kind == PatNode::Kind::BoundVar ||
            (n.kind == PatNode::Kind::Node && (n.op == Op::Lambda || n.op == Op::Param))) {
            return false;
        }
        if (n.kind == PatNode::Kind::Node && n.op == Op::Apply &&
            (n.children.empty() || rhs.nodes[n.children[0]].kind != PatNode::Kind::ClassVar)) {
            return false;
        }
    }
    const PatNode& root = rhs.nodes[rhs.root];
    return !rootHasArgTypes || root.kind == PatNode::Kind::ClassVar || root.op == Op::Apply;
}

// Adds the right-hand side node by node, children first (an application's arguments before its
// function, as addTerm), without building a term: most matches of a saturating rule find every
// node present already, and a term arena's allocations were most of their cost.
EClassId addDirect(EGraph& g, const Pattern& p, const VarTable& vars, const Subst& s, PatId id) {
    const PatNode& pn = p.nodes[id];
    if (pn.kind == PatNode::Kind::ClassVar) {
        int32_t by = pn.depth - vars.depth.at(pn.slot);
        EClassId c = s.classes.at(pn.slot);
        return by == 0 ? g.find(c) : g.shift(c, by); // shift(c, 0) is find(c)
    }
    ENode e;
    e.op = pn.op;
    e.ival = pn.ival;
    size_t n = pn.children.size();
    EClassId kids[3];
    std::vector<EClassId> more;
    EClassId* out = kids;
    if (n > 3) {
        more.resize(n);
        out = more.data();
    }
    if (pn.op == Op::Apply) {
        for (size_t i = 1; i < n; ++i) {
            out[i] = addDirect(g, p, vars, s, pn.children[i]);
        }
        out[0] = addDirect(g, p, vars, s, pn.children[0]);
    } else {
        for (size_t i = 0; i < n; ++i) {
            out[i] = addDirect(g, p, vars, s, pn.children[i]);
        }
    }
    for (size_t i = 0; i < n; ++i) {
        e.children.push_back(out[i]);
    }
    if (!pn.sizes.empty()) {
        Attr attr;
        for (const auto& size : pn.sizes) {
            attr.sizes.push_back(size.substitute(s.sizes));
        }
        e.attr = g.internAttr(std::move(attr));
    }
    return g.add(std::move(e));
}

struct Rebuilt {
    bool same = false;         // the class is the one the lookup found at the phase's start
    EClassId known = kNoClass; // its id, when it is a class variable's
};

Rebuilt rebuiltAsBefore(const EGraph& g, const Pattern& p, const Subst& s, PatId id, bool isRoot) {
    const PatNode& pn = p.nodes[id];
    if (pn.kind == PatNode::Kind::ClassVar) {
        EClassId c = s.classes[pn.slot];
        return {g.isRoot(c), c};
    }
    bool anchored = false; // a child whose parent classes all stayed roots
    for (PatId child : pn.children) {
        Rebuilt r = rebuiltAsBefore(g, p, s, child, false);
        if (!r.same) {
            return {};
        }
        anchored = anchored || (r.known != kNoClass && !g.parentAbsorbed(r.known));
    }
    // The root's class need not be a root: its lookup finds the e-node found at the start,
    // which was in the matched class then and is still.
    return {isRoot || anchored, kNoClass};
}

// The generators' sizes added to `s`, then the right-hand side's class (not merged); nullopt
// when the rule does not apply to this match.
std::optional<EClassId> buildRhs(EGraph& g, const Rule& rule, const Library& lib,
                                 TuningSpace& tuning, const Match& m, Subst& s) {
    for (auto& c : s.classes) {
        c = c == kNoClass ? c : g.find(c); // computed classes are not bound yet
        if (c != kNoClass && g.data(c).hasFreeVarAtLeast(0)) {
            g.settleVarTypes(c); // what the context check reads: kept for later matches
        }
    }
    if (detail::crossesContexts(g, rule, s)) {
        return std::nullopt;
    }
    detail::drawSizes(g, rule, lib, tuning, s);
    try {
        for (const auto& [slot, call] : rule.computed) {
            std::optional<EClassId> c = lib.appliers.at(call.name).second(g, resolve(call, s));
            if (!c) {
                return std::nullopt;
            }
            s.classes.at(slot) = *c;
        }
        if (rule.applier) {
            return lib.appliers.at(rule.applier->name).second(g, resolve(*rule.applier, s));
        }
        std::vector<TypeId> rootArgTypes = paramTypes(g, m.eclass);
        if (direct(*rule.rhs, !rootArgTypes.empty())) {
            return addDirect(g, *rule.rhs, rule.vars, s, rule.rhs->root);
        }
        TermArena t;
        TermId root = instantiate(*rule.rhs, rule.vars, s, t);
        return g.addTerm(t, root, rootArgTypes);
    } catch (const ScopeError&) {
        return std::nullopt; // a variable would escape its binder: the rule does not apply here
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, g.find(m.eclass), e.a != kNoClass ? e.a : kNoClass, &s);
    }
}

} // namespace

std::vector<TypeId> detail::paramTypes(const EGraph& g, EClassId c) {
    const FunSig& f = g.data(c).fun;
    return f.kind == FunSig::Kind::Mono ? std::vector<TypeId>(f.params.begin(), f.params.end())
                                        : std::vector<TypeId>{};
}

void detail::paramTypesInto(const EGraph& g, EClassId c, std::vector<TypeId>& out) {
    const FunSig& f = g.data(c).fun;
    out.clear();
    if (f.kind == FunSig::Kind::Mono) {
        out.assign(f.params.begin(), f.params.end());
    }
}

bool skipsUnchangedMatches(const Rule& rule, const Library& lib) {
    if (!rule.rhs || rule.applier || !rule.generators.empty() || !rule.computed.empty() ||
        rule.lhs.nodes[rule.lhs.root].kind != PatNode::Kind::Node) {
        return false;
    }
    for (const Call& cond : rule.conditions) {
        auto it = lib.conditions.find(cond.name);
        if (it == lib.conditions.end() || !it->second.first.membersOnly) {
            return false;
        }
    }
    const Pattern& rhs = *rule.rhs;
    const PatNode& root = rhs.nodes[rhs.root];
    if (root.kind == PatNode::Kind::Node && root.op != Op::Apply) {
        return false; // a function-valued root may be typed from the matched class
    }
    for (const PatNode& n : rhs.nodes) {
        if (!n.sizes.empty() ||
            (n.kind == PatNode::Kind::ClassVar && n.depth != rule.vars.depth.at(n.slot))) {
            return false;
        }
    }
    return direct(rhs, false);
}

std::vector<uint32_t> anchorSlots(const Rule& rule) {
    std::vector<uint32_t> slots;
    const Pattern& rhs = *rule.rhs;
    for (PatId id = 0; id < rhs.nodes.size(); ++id) {
        const PatNode& n = rhs.nodes[id];
        if (id == rhs.root || n.kind != PatNode::Kind::Node) {
            continue;
        }
        uint32_t anchor = UINT32_MAX;
        for (PatId c : n.children) {
            if (rhs.nodes[c].kind == PatNode::Kind::ClassVar) {
                anchor = rhs.nodes[c].slot;
            }
        }
        slots.push_back(anchor);
    }
    return slots;
}

bool defersUnchangedMatches(const Rule& rule, const Library& lib) {
    if (!skipsUnchangedMatches(rule, lib) || !deferrable(rule.lhs)) {
        return false;
    }
    for (const Call& cond : rule.conditions) {
        if (std::count_if(cond.args.begin(), cond.args.end(),
                          [](const CallArg& a) { return a.kind == CallArg::Kind::Class; }) != 1 ||
            std::any_of(cond.args.begin(), cond.args.end(),
                        [](const CallArg& a) { return a.kind == CallArg::Kind::Size; })) {
            return false;
        }
    }
    std::vector<uint32_t> anchors = anchorSlots(rule);
    return std::find(anchors.begin(), anchors.end(), UINT32_MAX) == anchors.end();
}

void prefetchRhs(const EGraph& g, const Rule& rule, const EClassId* slotClasses, int stage) {
    const Pattern& rhs = *rule.rhs;
    for (const PatNode& pn : rhs.nodes) {
        if (pn.kind != PatNode::Kind::Node || pn.children.empty()) {
            continue;
        }
        ENode e;
        e.op = pn.op;
        e.ival = pn.ival;
        bool leaves = true;
        for (PatId c : pn.children) {
            const PatNode& child = rhs.nodes[c];
            leaves = leaves && child.kind == PatNode::Kind::ClassVar;
            if (!leaves) {
                break;
            }
            e.children.push_back(slotClasses[child.slot]);
        }
        if (leaves) {
            g.prefetchLookup(std::move(e), stage);
        }
    }
}

bool unchangedMatchIsNoOp(const EGraph& g, const Rule& rule, const Subst& s) {
    return rebuiltAsBefore(g, *rule.rhs, s, rule.rhs->root, true).same;
}

std::optional<EClassId> applyRhs(EGraph& g, const Rule& rule, const Library& lib,
                                 TuningSpace& tuning, const Match& m) {
    Subst s = m.subst;
    return buildRhs(g, rule, lib, tuning, m, s);
}

bool applyMatch(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx,
                const Match& m, std::vector<ENodeId>* rhsNodes) {
    Match copy = m;
    return applyMatchInPlace(g, rule, lib, ctx, copy, rhsNodes);
}

bool applyMatchInPlace(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx,
                       Match& m, std::vector<ENodeId>* rhsNodes) {
    Subst& s = m.subst;
    std::vector<ENodeId> nodes;
    g.recordNodes(rhsNodes ? &nodes : nullptr);
    std::optional<EClassId> rhs;
    try {
        rhs = buildRhs(g, rule, lib, ctx.tuning, m, s);
    } catch (...) {
        g.recordNodes(nullptr);
        throw;
    }
    g.recordNodes(nullptr);
    if (!rhs) {
        return false;
    }
    if (rhsNodes) {
        *rhsNodes = std::move(nodes);
    }
    return detail::mergeRhs(g, rule, ctx, m, *rhs);
}

} // namespace egopt::egraph
