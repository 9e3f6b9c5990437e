// Searching and applying rules.
#include "egopt/egraph/rewrite.hpp"

#include "egopt/support/diagnostic.hpp"

namespace egopt::egraph {

namespace {

std::vector<ArgValue> resolve(const Call& call, const Subst& s) {
    std::vector<ArgValue> out;
    for (const CallArg& a : call.args) {
        ArgValue v;
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
        out.push_back(std::move(v));
    }
    return out;
}

std::string where(const Rule& rule) {
    std::string at = rule.file;
    if (rule.loc.known()) {
        at += ":" + std::to_string(rule.loc.line) + ":" + std::to_string(rule.loc.col);
    }
    return at;
}

// `s`, when given, is the match of a right-hand side that could not be built: its variables'
// terms and types stand in for the missing right-hand term.
[[noreturn]] void ruleBug(const EGraph& g, const Rule& rule, const TypeError& e, EClassId lhs,
                          EClassId rhs, const Subst* s = nullptr) {
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

} // namespace

void searchClass(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                 EClassId c, std::vector<Match>& out) {
    searchClasses(g, rule, lib, facts, std::span<const EClassId>(&c, 1), out);
}

void searchClasses(const EGraph& g, const Rule& rule, const Library& lib, const SizeFacts& facts,
                   std::span<const EClassId> classes, std::vector<Match>& out) {
    // Looked up once, not per match: the library is a map keyed by name.
    std::vector<const Condition*> conds;
    for (const Call& cond : rule.conditions) {
        conds.push_back(&lib.conditions.at(cond.name).second);
    }
    std::vector<ArgValue> args;
    matchClasses(g, rule.lhs, rule.vars.names.size(), classes, [&](EClassId c, const Subst& s) {
        for (size_t i = 0; i < conds.size(); ++i) {
            args = resolve(rule.conditions[i], s);
            if (!(*conds[i])(g, facts, args)) {
                return;
            }
        }
        out.push_back({c, s});
    });
}

namespace {

// The parameter types of a function class with a known signature: they type a lambda at the
// root of an instantiated side (`fun(x => ?f $ x)`), which no application surrounds.
std::vector<TypeId> paramTypes(const EGraph& g, EClassId c) {
    const FunSig& f = g.data(c).fun;
    return f.kind == FunSig::Kind::Mono ? f.params : std::vector<TypeId>{};
}

// The generators' sizes added to `s`, then the right-hand side's class (not merged); nullopt
// when the rule does not apply to this match.
std::optional<EClassId> buildRhs(EGraph& g, const Rule& rule, const Library& lib,
                                 TuningSpace& tuning, const Match& m, Subst& s) {
    for (auto& c : s.classes) {
        c = c == kNoClass ? c : g.find(c); // computed classes are not bound yet
    }
    std::string key; // only generators memoize by it
    if (!rule.generators.empty()) {
        key = rule.name;
        for (EClassId c : s.classes) {
            key += ":" + std::to_string(c);
        }
    }
    for (const auto& [var, call] : rule.generators) {
        s.sizes[var] = lib.generators.at(call.name).second(g, tuning, key, resolve(call, s));
    }
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
        TermArena t;
        TermId root = instantiate(*rule.rhs, rule.vars, s, t);
        return g.addTerm(t, root, paramTypes(g, m.eclass));
    } catch (const ScopeError&) {
        return std::nullopt; // a variable would escape its binder: the rule does not apply here
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, g.find(m.eclass), e.a != kNoClass ? e.a : kNoClass, &s);
    }
}

} // namespace

std::optional<EClassId> applyRhs(EGraph& g, const Rule& rule, const Library& lib,
                                 TuningSpace& tuning, const Match& m) {
    Subst s = m.subst;
    return buildRhs(g, rule, lib, tuning, m, s);
}

bool applyMatch(EGraph& g, const Rule& rule, const Library& lib, RewriteContext& ctx,
                const Match& m, std::vector<ENodeId>* rhsNodes) {
    Subst s = m.subst;
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
    EClassId lhs = g.find(m.eclass);
    if (g.explanations) { // the exact left-hand term, so the derivation can show it
        try {
            TermArena t;
            lhs = g.addTerm(t, instantiate(rule.lhs, rule.vars, s, t), paramTypes(g, lhs));
        } catch (const TypeError&) {
            // The matched term is well-typed, but a lambda inside a length-polymorphic
            // function (Map(fun(x => ...)) unapplied) cannot be retyped from the pattern: the
            // derivation then starts from the class's own term rather than the exact one.
        }
    }
    try {
        return g.merge(lhs, *rhs, {Justification::Kind::Rule, ctx.rules.id(rule.name)});
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, lhs, *rhs);
    }
}

} // namespace egopt::egraph
