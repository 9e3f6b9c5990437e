#include "codegen_support.hpp"

#include "egopt/runtime/device.hpp"

namespace egopt::codegen::test {

runtime::Session& session() {
    static runtime::Session s(runtime::selectDevice(""));
    return s;
}

namespace {

Generated finish(lift::Program program, const arith::Bindings& sizes) {
    Generated g{std::move(program), {}, sizes, {}};
    g.info = lift::typecheck(g.program);
    g.code = generate(g.program, g.info, g.sizes);
    return g;
}

} // namespace

Generated generateFile(const std::string& path, const arith::Bindings& sizes) {
    return finish(lift::parseFile(path), sizes);
}

Generated generateText(const std::string& source, const arith::Bindings& sizes) {
    return finish(lift::parseProgram(source, "test.lift"), sizes);
}

RunResult validate(Generated& g) {
    RunOptions o;
    o.runs = 1;
    o.warmup = 0;
    return runAndValidate(session(), g.program, g.info, g.sizes, g.code, o);
}

std::string example(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/examples/lowlevel/" + name + ".lift";
}

std::string testProgram(const std::string& name) {
    return std::string(EGOPT_SOURCE_DIR) + "/tests/codegen/programs/" + name + ".lift";
}

} // namespace egopt::codegen::test
