// Shared helpers for the extraction tests: e-graphs built from example programs, test rules,
// an independent check of the thread hierarchy, and validation of candidates on the default
// OpenCL device (PoCL) against the reference interpreter.
#pragma once

#include "egopt/codegen/validate.hpp"
#include "egopt/egraph/convert.hpp"
#include "egopt/egraph/runner.hpp"
#include "egopt/extract/extract.hpp"

#include <set>
#include <string>
#include <vector>

namespace egopt::extract::test {

std::string shared(const std::string& path); // examples/PATH
std::string data(const std::string& name);   // tests/extract/data/NAME

// Rules from tests/extract/data/NAME (or rules/NAME for "core.rules").
std::vector<egraph::Rule> rules(const std::vector<std::string>& names, const egraph::Library& lib);

// The named rules of the shipped catalogue (rules/FILE, includes followed); all must exist.
std::vector<egraph::Rule> catalogue(const std::string& file, const std::set<std::string>& names,
                                    const egraph::Library& lib);

struct Graph {
    egraph::EGraph g;
    egraph::RewriteContext rw; // every saturation of g shares it (as the pipeline's phases do)
    egraph::Inserted main;
};

// Inserts the program at `path` and saturates with the rules for `iterations`.
void insertAndSaturate(Graph& graph, const std::string& path,
                       const std::vector<std::string>& ruleFiles, size_t iterations);
// Saturates the graph with the rules for `iterations`.
void saturate(Graph& graph, const std::vector<std::string>& ruleFiles, size_t iterations);
// Saturates the graph with named rules of the shipped catalogue ({file, names} each, in order)
// for `iterations`.
void saturateCatalogue(Graph& graph,
                       const std::vector<std::pair<std::string, std::set<std::string>>>& rules,
                       size_t iterations);
// Inserts another program and merges its root class with the main one.
void unionWith(Graph& graph, const std::string& path);

// Why the candidate's thread hierarchy is wrong or it is not fully lowered; empty if fine.
std::string hierarchyError(const lift::Program& p);

// Generates the candidate at the sizes (plus its tuning values), runs it on the default device
// and compares with the interpreter.
codegen::RunResult validate(const Candidate& c, const arith::Bindings& sizes);

// The OpenCL session on the default device shared by the tests.
runtime::Session& session();

// A guided exploration's options: 2 candidates, 4 unguided and 16 guided draws along `guide`.
ExtractOptions guidedOptions(const arith::Bindings& sizes, std::vector<egraph::ENodeId> guide);
// The main program's candidates under the structural cost at `opt.sizes`.
ExtractResult extractMain(const Graph& graph, const ExtractOptions& opt);

// One line per candidate: "cost text".
std::string listing(const ExtractResult& r);

} // namespace egopt::extract::test
