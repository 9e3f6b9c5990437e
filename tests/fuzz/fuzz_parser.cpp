// libFuzzer target: the .lift front end and type checker must turn any input into a program or
// an egopt::Error — never crash, hang or leak. Run with scripts/fuzz; the corpus lives in
// tests/fuzz/corpus/parser and is replayed by the test suite (tests/lift/test_fuzz_corpus.cpp).
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string source(reinterpret_cast<const char*>(data), size);
    try {
        egopt::lift::Program program = egopt::lift::parseProgram(source, "fuzz.lift");
        egopt::lift::TypeInfo info = egopt::lift::typecheck(program);
        (void)egopt::lift::showSignature(program, info);
        (void)program.show(program.root);
    } catch (const egopt::Error&) {
        // Rejected with a diagnostic: the expected outcome for most inputs.
    }
    return 0;
}
