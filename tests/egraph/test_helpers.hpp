// Shared helpers for the e-graph tests: small hand-built terms over Float variables.
#pragma once

#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/egraph.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/rules/loader.hpp"

#include <algorithm>
#include <sstream>
#include <string>

namespace egopt::test {

// The rules of the comma-separated rule files `files`, paths relative to the source tree.
inline std::vector<egraph::Rule> loadSourceRules(const egraph::Library& lib,
                                                 const std::string& files) {
    std::vector<egraph::Rule> all;
    size_t at = 0;
    while (at <= files.size()) {
        size_t comma = std::min(files.find(',', at), files.size());
        auto rules = rules::loadRules(
            std::string(EGOPT_SOURCE_DIR) + "/" + files.substr(at, comma - at), lib);
        all.insert(all.end(), rules.begin(), rules.end());
        at = comma + 1;
    }
    return all;
}

// sum_i x_i * y over n Float parameters, left-nested: scripts/bench-egraph's arith-n workload.
inline std::string arithSumText(size_t n) {
    std::string params, types, term = "mult(x0, y)";
    for (size_t i = 0; i < n; ++i) {
        params += "x" + std::to_string(i) + ", ";
        types += "Float, ";
    }
    for (size_t i = 1; i < n; ++i) {
        term = "add(" + term + ", mult(x" + std::to_string(i) + ", y))";
    }
    return "fun(" + types + "Float, (" + params + "y) => " + term + ")";
}

// A unary or binary Float user function "name" declared in the e-graph.
inline uint32_t floatFun(egraph::EGraph& g, const std::string& name, size_t arity,
                         const std::string& body) {
    lift::UserFunDecl d;
    d.name = name;
    for (size_t i = 0; i < arity; ++i) {
        d.paramNames.push_back("a" + std::to_string(i));
        d.paramTypes.push_back(g.types.floatType());
    }
    d.returnType = g.types.floatType();
    d.body = body;
    return g.internUserFun(d);
}

inline egraph::EClassId var(egraph::EGraph& g, int32_t index) {
    egraph::ENode n;
    n.op = lift::Op::Param;
    n.ival = index;
    n.attr = g.internAttr({{}, {g.types.floatType()}});
    return g.add(n);
}

inline egraph::EClassId call(egraph::EGraph& g, uint32_t fun,
                             std::initializer_list<egraph::EClassId> args) {
    egraph::ENode f;
    f.op = lift::Op::UserFun;
    f.ival = static_cast<int32_t>(fun);
    egraph::ENode app;
    app.op = lift::Op::Apply;
    app.children.push_back(g.add(f));
    app.children.insert(app.children.end(), args.begin(), args.end());
    return g.add(app);
}

// Every class with its member e-nodes (ids, operators, attributes, canonical children): equal
// strings mean equal e-graphs, ids included.
inline std::string structure(const egraph::EGraph& g) {
    std::ostringstream out;
    for (egraph::EClassId c : g.classIds()) {
        out << c << "{";
        for (egraph::ENodeId n : g.eclass(c).nodes) {
            const egraph::ENode& e = g.node(n);
            out << n << "=" << int(e.op) << "/" << e.ival << "/" << e.attr << "(";
            for (egraph::EClassId ch : e.children) {
                out << g.findConst(ch) << ",";
            }
            out << ")";
        }
        out << "}";
    }
    return out.str();
}

inline std::string example(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/examples/" + name;
}

// Runs a program on reproducible random inputs under the given sizes.
inline interp::Value runProgram(lift::Program& p, const arith::Bindings& sizes, uint64_t seed) {
    lift::TypeInfo info = lift::typecheck(p);
    auto inputs = interp::randomInputs(p, sizes, seed);
    interp::Interpreter in(p, info, sizes);
    return in.run(inputs);
}

} // namespace egopt::test
