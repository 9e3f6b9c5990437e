// `egopt codegen FILE [--size ...] [-o out.cl]`: the OpenCL kernel(s) of a lowered program, with
// the host-side plan (kernels, launch configurations, buffers) as JSON beside it (out.json) or
// after the source on standard output. Sizes without a value (neither --size nor the companion
// JSON) stay symbolic: the kernels take them as `int` arguments.
#include "cli.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"

#include <fstream>
#include <iostream>

namespace egopt::cli {

namespace {

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
        badInput("cannot write '" + path + "'");
    }
}

} // namespace

int runCodegen(const Args& args) {
    const std::string& file = args.positional.at(0);
    lift::Program program = lift::parseFile(file);
    lift::TypeInfo info = lift::typecheck(program);
    arith::Bindings given;
    for (const auto& s : args.values("size")) {
        lift::parseSizeAssignments(s, given);
    }
    arith::Bindings sizes =
        lift::resolveSizes(program, given, lift::readCompanionSizes(file)).bindings;
    codegen::Options options;
    if (auto name = args.value("kernel-name")) {
        options.kernelName = *name;
    }
    codegen::GeneratedCode code = codegen::generate(program, info, sizes, options);
    auto out = args.value("output");
    if (!out) {
        std::cout << code.source << "\n/* launch configuration:\n" << code.launchJson() << "*/\n";
        return kExitOk;
    }
    std::string jsonPath =
        out->ends_with(".cl") ? out->substr(0, out->size() - 3) + ".json" : *out + ".json";
    writeFile(*out, code.source);
    writeFile(jsonPath, code.launchJson());
    std::cout << "wrote " << *out << " (" << code.kernels.size()
              << (code.kernels.size() == 1 ? " kernel" : " kernels") << ") and " << jsonPath
              << "\n";
    return kExitOk;
}

} // namespace egopt::cli
