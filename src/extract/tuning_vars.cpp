// Tuning variables of candidates (the v__K of split-join's `tuning` generator): which ones a
// program uses with their constraints, default values for them, and removing the no-op layout
// chains that only add tuning variables.
#include "egopt/egraph/egraph.hpp"
#include "egopt/extract/extract.hpp"
#include "egopt/support/diagnostic.hpp"

#include <numeric>
#include <set>

namespace egopt::extract {

namespace {

void typeVariables(const lift::TypeArena& types, lift::TypeId t, std::set<std::string>& out) {
    if (t == lift::kNoType) {
        return;
    }
    const lift::TypeNode& n = types.at(t);
    if (n.kind == lift::TypeKind::Array) {
        for (const std::string& v : n.length.variables()) {
            out.insert(v);
        }
    }
    for (lift::TypeId e : n.elems) {
        typeVariables(types, e, out);
    }
}

std::set<std::string> usedVariables(const lift::Program& p) {
    std::set<std::string> vars;
    for (lift::NodeId id = 0; id < p.numNodes(); ++id) {
        for (const arith::Size& s : p.sizes(id)) {
            for (const std::string& v : s.variables()) {
                vars.insert(v);
            }
        }
    }
    for (const lift::ParamInfo& param : p.params) {
        typeVariables(p.types, param.declaredType, vars);
    }
    return vars;
}

bool isTuningName(const std::string& v) {
    return v.rfind("v__", 0) == 0;
}

} // namespace

std::vector<TuningVar> tuningVariables(const egraph::TuningSpace& tuning,
                                       const lift::Program& program) {
    std::set<std::string> used = usedVariables(program);
    // Constraints may mention earlier tuning variables (a split of a split): close over them.
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& c : tuning.constraints()) {
            if (!used.contains(c.var)) {
                continue;
            }
            for (const std::string& v : c.divides.variables()) {
                grew = (isTuningName(v) && used.insert(v).second) || grew;
            }
        }
    }
    std::vector<TuningVar> out;
    std::set<std::string> listed;
    for (const auto& c : tuning.constraints()) { // creation order: dependencies first
        if (!used.contains(c.var)) {
            continue;
        }
        if (listed.insert(c.var).second) {
            out.push_back({c.var, {}});
        }
        for (TuningVar& t : out) {
            if (t.name == c.var) {
                t.divides.push_back(c.divides);
            }
        }
    }
    for (const std::string& v : used) {
        if (isTuningName(v) && listed.insert(v).second) {
            out.push_back({v, {}});
        }
    }
    return out;
}

std::optional<Candidate> withoutNoOpLayouts(const Candidate& c) {
    lift::Program p = withoutNoOpLayouts(c.program);
    if (p.show(p.root) == c.program.show(c.program.root)) {
        return std::nullopt;
    }
    // The text as extraction prints candidates (showTerm), through a scratch e-graph.
    std::string text;
    try {
        egraph::EGraph scratch;
        egraph::TermArena terms;
        egraph::Signature sig;
        lift::Program copy = p;
        egraph::TermId root = egraph::programToTerm(scratch, copy, terms, sig);
        text = egraph::showTerm(scratch, terms, root, sig.names);
    } catch (const std::exception&) {
        return std::nullopt; // it does not type-check without the chain: keep the candidate
    }
    std::set<std::string> used = usedVariables(p);
    for (bool grew = true; grew;) { // variables a kept one's constraints mention stay too
        grew = false;
        for (const TuningVar& t : c.tuning) {
            if (used.contains(t.name)) {
                for (const arith::Size& d : t.divides) {
                    for (const std::string& v : d.variables()) {
                        grew = used.insert(v).second || grew;
                    }
                }
            }
        }
    }
    Candidate out = c;
    out.program = std::move(p);
    std::erase_if(out.tuning, [&](const TuningVar& t) { return !used.contains(t.name); });
    std::erase_if(out.program.sizeVars,
                  [&](const std::string& v) { return isTuningName(v) && !used.contains(v); });
    std::erase_if(out.tuningValues, [&](const auto& kv) { return !used.contains(kv.first); });
    out.text = std::move(text);
    return out;
}

arith::Bindings chooseTuningValues(const std::vector<TuningVar>& vars, const arith::Bindings& sizes,
                                   const arith::Bindings& fixed, int64_t target) {
    arith::Bindings env = sizes;
    arith::Bindings out;
    for (const TuningVar& t : vars) {
        int64_t value = 0;
        if (auto it = fixed.find(t.name); it != fixed.end()) {
            value = it->second;
        } else {
            int64_t common = 0;
            for (const arith::Size& d : t.divides) {
                auto n = d.evaluate(env);
                if (!n || *n <= 0) {
                    badInput("cannot choose a value for the tuning variable " + t.name +
                             ": the length " + d.toString() + " has no value");
                }
                common = std::gcd(common, *n);
            }
            value = 1;
            for (int64_t v = std::min(common == 0 ? target : common, target); v >= 1; --v) {
                if (common == 0 || common % v == 0) {
                    value = v;
                    break;
                }
            }
        }
        env[t.name] = value;
        out[t.name] = value;
    }
    return out;
}

} // namespace egopt::extract
