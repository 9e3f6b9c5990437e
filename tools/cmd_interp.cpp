#include "cli.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"

#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>

namespace egopt::cli {

namespace {

uint64_t seedOption(const Args& args) {
    auto text = args.value("seed");
    if (!text) {
        return 1;
    }
    uint64_t seed = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), seed);
    if (ec != std::errc() || ptr != text->data() + text->size()) {
        badInput("--seed expects a non-negative integer, found '" + *text + "'");
    }
    return seed;
}

std::string readInputsFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        badInput("cannot read inputs file '" + path + "'");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

int runInterp(const Args& args) {
    const std::string& file = args.positional.at(0);
    lift::Program program = lift::parseFile(file);
    lift::TypeInfo info = lift::typecheck(program);

    arith::Bindings sizes = requiredSizes(args, program, file);

    uint64_t seed = seedOption(args);
    std::vector<interp::Value> inputs =
        args.has("inputs")
            ? interp::inputsFromJson(program, sizes, readInputsFile(*args.value("inputs")), seed)
            : interp::randomInputs(program, sizes, seed);
    interp::Interpreter interpreter(program, info, sizes);
    std::cout << interpreter.run(inputs).toJson() << "\n";
    return kExitOk;
}

} // namespace egopt::cli
