// `egopt run FILE --size ... [--device D] [--seed S] [--runs R]`: generate the kernel(s), build
// and run them in sequence on random inputs, compare the result with the reference interpreter
// and report the total median time and, with several kernels, each kernel's.
#include "cli.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/codegen/validate.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"
#include "egopt/runtime/device.hpp"

#include <charconv>
#include <iostream>

namespace egopt::cli {

namespace {

uint64_t numberOption(const Args& args, const std::string& name, uint64_t fallback) {
    auto text = args.value(name);
    if (!text) {
        return fallback;
    }
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || ptr != text->data() + text->size()) {
        badInput("--" + name + " expects a non-negative integer, found '" + *text + "'");
    }
    return v;
}

} // namespace

int runRun(const Args& args) {
    const std::string& file = args.positional.at(0);
    lift::Program program = lift::parseFile(file);
    lift::TypeInfo info = lift::typecheck(program);
    arith::Bindings sizes = requiredSizes(args, program, file);
    codegen::GeneratedCode code = codegen::generate(program, info, sizes);

    runtime::Session session(runtime::selectDevice(args.value("device").value_or("")));
    codegen::RunOptions options;
    options.seed = numberOption(args, "seed", 1);
    options.runs = static_cast<int>(std::max<uint64_t>(1, numberOption(args, "runs", 5)));
    std::cout << "device: " << session.device().describe() << "\n"
              << "sizes: " << lift::showBindings(program, sizes) << "\n";
    if (code.kernels.size() > 1) {
        std::cout << "kernels: " << code.kernels.size() << " (intermediate buffers:";
        for (const auto& m : code.intermediates) {
            std::cout << " " << m.name << " " << m.bytes << " B";
        }
        std::cout << ")\n";
    }
    codegen::RunResult r = codegen::runAndValidate(session, program, info, sizes, code, options);
    std::cout << r.summary() << "\n";
    return r.ok ? kExitOk : kExitNoCandidate;
}

} // namespace egopt::cli
