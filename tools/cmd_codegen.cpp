// `egopt codegen FILE --size ... [-o out.cl]`: the OpenCL kernel of a lowered program, with its
// launch configuration as JSON beside it (out.json) or after the source on standard output.
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
    arith::Bindings sizes = requiredSizes(args, program, file);
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
    std::cout << "wrote " << *out << " and " << jsonPath << "\n";
    return kExitOk;
}

} // namespace egopt::cli
