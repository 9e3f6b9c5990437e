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

[[noreturn]] void ruleBug(const EGraph& g, const Rule& rule, const TypeError& e, EClassId lhs,
                          EClassId rhs) {
    std::string msg = "rule '" + rule.name + "' (" + where(rule) + ") is ill-typed: " + e.what();
    if (lhs != kNoClass) {
        msg += "\n  left:  " + g.show(lhs) + " : " + g.showType(lhs);
    }
    if (rhs != kNoClass) {
        msg += "\n  right: " + g.show(rhs) + " : " + g.showType(rhs);
    }
    throw Error(ErrorKind::BadInput, msg, rule.file, rule.loc);
}

} // namespace

void searchClass(const EGraph& g, const Rule& rule, const Library& lib, EClassId c,
                 std::vector<Match>& out) {
    matchClass(g, rule.lhs, rule.vars.names.size(), c, [&](const Subst& s) {
        for (const Call& cond : rule.conditions) {
            auto args = resolve(cond, s);
            if (!lib.conditions.at(cond.name).second(g, args)) {
                return;
            }
        }
        out.push_back({c, s});
    });
}

bool applyMatch(EGraph& g, const Rule& rule, const Library& lib, const Match& m) {
    Subst s = m.subst;
    for (auto& c : s.classes) {
        c = g.find(c);
    }
    std::string key = rule.name;
    for (EClassId c : s.classes) {
        key += ":" + std::to_string(c);
    }
    for (const auto& [var, call] : rule.generators) {
        s.sizes[var] = lib.generators.at(call.name).second(g, key, resolve(call, s));
    }
    EClassId lhs = g.find(m.eclass);
    EClassId rhs = kNoClass;
    try {
        if (rule.applier) {
            auto r = lib.appliers.at(rule.applier->name).second(g, resolve(*rule.applier, s));
            if (!r) {
                return false;
            }
            rhs = *r;
        } else {
            TermArena t;
            TermId root = instantiate(*rule.rhs, rule.vars, s, t);
            rhs = g.addTerm(t, root);
        }
        if (g.explanations) { // the exact left-hand term, so the derivation can show it
            TermArena t;
            lhs = g.addTerm(t, instantiate(rule.lhs, rule.vars, s, t));
        }
    } catch (const ScopeError&) {
        return false; // a variable would escape its binder: the rule does not apply here
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, lhs, e.a != kNoClass ? e.a : kNoClass);
    }
    try {
        return g.merge(lhs, rhs, {Justification::Kind::Rule, g.ruleIndex(rule.name)});
    } catch (const TypeError& e) {
        ruleBug(g, rule, e, lhs, rhs);
    }
}

} // namespace egopt::egraph
