// One instance: insert the left-hand side into a fresh e-graph, let the rule's own matcher,
// conditions, generators and right-hand side (pattern or applier) act on it, extract both sides
// before any union, give the tuning variables values that satisfy their constraints, and
// interpret both on the same random inputs.
#include "soundness_check.hpp"

#include "egopt/egraph/convert.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/typecheck.hpp"

#include <set>

namespace egopt::rules::detail {

using egraph::EClassId;
using egraph::EGraph;

namespace {

void typeVars(const lift::TypeArena& types, TypeId t, std::set<std::string>& out) {
    const lift::TypeNode& n = types.at(t);
    if (n.kind == lift::TypeKind::Array) {
        for (const auto& v : n.length.variables()) {
            out.insert(v);
        }
    }
    for (TypeId e : n.elems) {
        typeVars(types, e, out);
    }
}

// Every size variable of a program (in its size arguments and declared parameter types).
std::set<std::string> sizeVariables(const lift::Program& p) {
    std::set<std::string> out;
    for (lift::NodeId id = 0; id < p.numNodes(); ++id) {
        for (const arith::Size& s : p.sizes(id)) {
            for (const auto& v : s.variables()) {
                out.insert(v);
            }
        }
    }
    for (const lift::ParamInfo& param : p.params) {
        if (param.declaredType != lift::kNoType) {
            typeVars(p.types, param.declaredType, out);
        }
    }
    return out;
}

// Variables used as a vector width (asVector, VectorizeUserFun): the e-graph records only that
// they divide a length, but a width must also be 2, 3, 4, 8 or 16.
std::set<std::string> widthVariables(const lift::Program& p) {
    std::set<std::string> out;
    for (lift::NodeId id = 0; id < p.numNodes(); ++id) {
        lift::Op op = p.op(id);
        if ((op == lift::Op::AsVector || op == lift::Op::VectorizeUserFun) &&
            !p.sizes(id).empty()) {
            if (auto v = p.sizes(id)[0].variable()) {
                out.insert(*v);
            }
        }
    }
    return out;
}

bool validValue(int64_t v, bool width) {
    return !width || v == 2 || v == 3 || v == 4 || v == 8 || v == 16;
}

// Tuning variables get random divisors of the lengths they must divide (constraints may refer
// to each other, hence the passes); variables without a constraint get 1, 2 or 4. nullopt when
// some variable has no valid value (the instance is skipped).
std::optional<arith::Bindings> tuningValues(const egraph::TuningSpace& tuning,
                                            const lift::Program& rhs, Rng& rng,
                                            std::string& shown) {
    arith::Bindings b;
    std::set<std::string> widths = widthVariables(rhs);
    const auto& cs = tuning.constraints();
    for (size_t pass = 0; pass < cs.size(); ++pass) {
        for (const auto& c : cs) {
            auto len = c.divides.evaluate(b);
            if (b.count(c.var) || !len || *len <= 0) {
                continue;
            }
            std::vector<int64_t> divisors;
            for (int64_t d = 1; d <= *len; ++d) {
                if (*len % d == 0 && validValue(d, widths.count(c.var) > 0)) {
                    divisors.push_back(d);
                }
            }
            if (divisors.empty()) {
                return std::nullopt;
            }
            b[c.var] = pickOf(rng, divisors);
        }
    }
    for (const auto& v : sizeVariables(rhs)) {
        if (!b.count(v)) {
            b[v] = widths.count(v) ? 4 : std::vector<int64_t>{1, 2, 4}[pick(rng, 3)];
        }
    }
    for (const auto& [var, value] : b) {
        shown += (shown.empty() ? "" : ", ") + var + "=" + std::to_string(value);
    }
    return b;
}

std::optional<interp::Value> interpret(lift::Program& p, const arith::Bindings& sizes,
                                       std::span<const interp::Value> inputs, std::string& error) {
    lift::TypeInfo info;
    try {
        info = lift::typecheck(p);
    } catch (const Error& e) {
        error = "type error: " + e.message();
        return std::nullopt;
    }
    try {
        interp::Interpreter in(p, info, sizes);
        return in.run(inputs);
    } catch (const Error& e) {
        error = "evaluation error: " + e.message();
    } catch (const std::exception& e) {
        error = std::string("evaluation error: ") + e.what();
    }
    return std::nullopt;
}

std::string showProgram(const lift::Program& p) {
    return p.show(p.root);
}

std::string showInputs(const lift::Program& p, std::span<const interp::Value> inputs) {
    std::string out;
    auto params = p.lambdaParams(p.root);
    for (size_t i = 0; i < params.size() && i < inputs.size(); ++i) {
        const auto& info = p.params.at(static_cast<size_t>(p.node(params[i]).ival));
        out +=
            info.name + " : " + p.types.show(info.declaredType) + " = " + inputs[i].toJson() + "\n";
    }
    return out;
}

// The class of the function that the wrapped instance applies to the parameters, and the
// classes of those arguments.
std::pair<EClassId, std::vector<EClassId>> applied(const EGraph& g, EClassId root) {
    for (egraph::ENodeId n : g.eclass(root).nodes) {
        const egraph::ENode& node = g.node(n);
        if (node.op == lift::Op::Apply) {
            return {node.children[0], {node.children.begin() + 1, node.children.end()}};
        }
    }
    throw Error(ErrorKind::Internal, "soundness: the wrapped instance is not an application");
}

} // namespace

InstanceResult InstanceChecker::run(Instance& inst) {
    EGraph g;
    egraph::TuningSpace tuning; // the right-hand sides' variables (one space for every match)
    egraph::Inserted ins;
    try {
        ins = egraph::insertProgram(g, inst.program);
    } catch (const Error&) {
        return {Outcome::IllTyped};
    }
    auto [target, args] =
        inst.wrapped ? applied(g, ins.root) : std::pair(ins.root, std::vector<EClassId>{});
    std::vector<egraph::Match> matches;
    egraph::searchClass(g, rule_, lib_, egraph::SizeFacts{}, target, matches);
    if (matches.empty()) {
        return {Outcome::Conditions};
    }
    lift::Program lhs = egraph::extractProgram(g, ins.root, ins.signature);
    // Usually one match; a few more when a non-linear or ambiguous pattern matches in several
    // ways. The instance counts once, as checked if any match was.
    InstanceResult result(Outcome::NotApplied);
    for (size_t i = 0; i < matches.size() && i < 4; ++i) {
        InstanceResult r = checkMatch(g, tuning, ins, args, matches[i], lhs, inst.sizes);
        if (r.outcome == Outcome::Fail) {
            return r;
        }
        if (result.outcome != Outcome::Checked && r.outcome != Outcome::NotApplied) {
            result = std::move(r);
        }
    }
    return result;
}

InstanceResult InstanceChecker::fail(Failure f) const {
    Counterexample c;
    c.sizes = f.sizes.empty() ? "(none)" : f.sizes;
    c.lhs = showProgram(*f.lhs);
    c.rhs = f.rhs ? showProgram(*f.rhs) : "(none)";
    c.inputs = f.lhs && !f.inputs.empty() ? showInputs(*f.lhs, f.inputs) : "";
    c.lhsOutput = f.lhsOut ? f.lhsOut->toJson() : "";
    c.rhsOutput = f.rhsOut ? f.rhsOut->toJson() : "";
    c.problem = f.problem;
    return {Outcome::Fail, std::move(c)};
}

InstanceResult InstanceChecker::checkMatch(EGraph& g, egraph::TuningSpace& tuning,
                                           const egraph::Inserted& ins,
                                           const std::vector<EClassId>& args,
                                           const egraph::Match& m, lift::Program& lhs,
                                           const std::string& sizes) {
    Failure f;
    f.lhs = &lhs;
    f.sizes = sizes;
    std::optional<EClassId> rhs;
    try {
        rhs = egraph::applyRhs(g, rule_, lib_, tuning, m);
        if (rhs && !args.empty()) { // apply the right-hand side's function to the same arguments
            egraph::TermArena t;
            std::vector<egraph::TermId> refs;
            for (EClassId a : args) {
                refs.push_back(t.ref(a));
            }
            rhs = g.addTerm(t, t.apply(t.ref(*rhs), refs));
        }
    } catch (const Error& e) { // the engine's report of an ill-typed rule
        f.problem = e.message();
        return fail(f);
    } catch (const egraph::TypeError& e) {
        f.problem = std::string("the right-hand side is ill-typed: ") + e.what();
        return fail(f);
    }
    if (!rhs) {
        return {Outcome::NotApplied};
    }
    if (!g.data(*rhs).isData() || g.data(*rhs).type != g.data(ins.root).type) {
        f.problem =
            "the sides have different types: " + g.showType(ins.root) + " and " + g.showType(*rhs);
        return fail(f);
    }
    lift::Program rhsProgram = egraph::extractProgram(g, *rhs, ins.signature);
    f.rhs = &rhsProgram;
    std::string shownTuning;
    std::optional<arith::Bindings> bindings = tuningValues(tuning, rhsProgram, rng_, shownTuning);
    if (!bindings) {
        return {Outcome::NotApplied};
    }
    if (!shownTuning.empty()) {
        f.sizes += (f.sizes.empty() ? "" : ", ") + shownTuning;
    }
    return compare(lhs, rhsProgram, *bindings, f);
}

InstanceResult InstanceChecker::compare(lift::Program& lhs, lift::Program& rhs,
                                        const arith::Bindings& bindings, Failure& f) {
    std::vector<interp::Value> inputs;
    try {
        inputs = interp::randomInputs(lhs, bindings, rng_());
    } catch (const Error&) {
        return {Outcome::InvalidInput};
    }
    std::string error;
    auto a = interpret(lhs, bindings, inputs, error);
    if (!a) {
        return {Outcome::InvalidInput}; // e.g. a split that does not divide: not an instance
    }
    f.inputs = inputs;
    f.lhsOut = a;
    auto b = interpret(rhs, bindings, inputs, error);
    if (!b) {
        f.problem = "the right-hand side fails where the left-hand side does not: " + error;
        return fail(f);
    }
    f.rhsOut = b;
    Difference d = compareValues(*a, *b, tolerance_);
    if (!d.equal) {
        f.problem = "largest difference " + std::to_string(d.largest) + " at " + d.where +
                    (tolerance_ > 0 ? " (tolerance " + std::to_string(tolerance_) + ")" : "");
        return fail(f);
    }
    InstanceResult ok(Outcome::Checked);
    if (wantSamples) {
        ok.sample = showProgram(lhs) + "  ==>  " + showProgram(rhs) +
                    (f.sizes.empty() ? "" : "  [" + f.sizes + "]");
    }
    return ok;
}

} // namespace egopt::rules::detail
