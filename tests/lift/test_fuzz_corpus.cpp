// Replays the libFuzzer corpus (tests/fuzz/corpus/parser): every input either parses and
// type-checks or is rejected with a located egopt::Error. Under the sanitizer build this also
// checks that none of them reads out of bounds or overflows.
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/typecheck.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

TEST_CASE("the fuzzing corpus is handled without crashes", "[lift]") {
    std::filesystem::path dir =
        std::filesystem::path(EGOPT_SOURCE_DIR) / "tests/fuzz/corpus/parser";
    int inputs = 0, accepted = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        ++inputs;
        try {
            egopt::lift::Program p = egopt::lift::parseProgram(text.str(), "corpus.lift");
            egopt::lift::typecheck(p);
            ++accepted;
        } catch (const egopt::Error& e) {
            INFO(entry.path().string() << ": " << e.what());
            CHECK(e.kind() == egopt::ErrorKind::BadInput);
        }
    }
    CHECK(inputs >= 15);
    CHECK(accepted >= 15); // at least the example seeds
}
