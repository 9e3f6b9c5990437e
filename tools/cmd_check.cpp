#include "cli.hpp"
#include "egopt/interp/userfun.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"

#include <iostream>

namespace egopt::cli {

namespace {

arith::Bindings explicitSizes(const Args& args) {
    arith::Bindings sizes;
    for (const auto& s : args.values("size")) {
        lift::parseSizeAssignments(s, sizes);
    }
    return sizes;
}

} // namespace

int runCheck(const Args& args) {
    const std::string& file = args.positional.at(0);
    lift::Program program = lift::parseFile(file);
    lift::TypeInfo info = lift::typecheck(program);
    interp::checkUserFuns(program);
    std::cout << file << ": " << lift::showSignature(program, info) << "\n";

    arith::Bindings given = explicitSizes(args);
    if (given.empty()) {
        return kExitOk;
    }
    auto resolved = lift::resolveSizes(program, given, lift::readCompanionSizes(file));
    std::map<std::string, arith::Size, std::less<>> repl;
    for (const auto& [name, value] : resolved.bindings) {
        repl.emplace(name, arith::Size(value));
    }
    // Re-check with the sizes substituted: this also catches splits that do not divide.
    lift::Program concrete = lift::parseFile(file);
    for (auto& p : concrete.params) {
        if (p.declaredType != lift::kNoType) {
            p.declaredType = concrete.types.substitute(p.declaredType, repl);
        }
    }
    lift::TypeInfo concreteInfo = lift::typecheck(concrete);
    std::cout << "with " << lift::showBindings(program, resolved.bindings) << ": "
              << lift::showSignature(concrete, concreteInfo) << "\n";
    return kExitOk;
}

} // namespace egopt::cli
