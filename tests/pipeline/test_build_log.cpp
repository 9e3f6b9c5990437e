// The excerpt of an OpenCL compiler log that the candidate table and the report show.
#include "egopt/pipeline/pipeline.hpp"

#include <catch2/catch.hpp>
#include <string>

using egopt::pipeline::buildLogExcerpt;

TEST_CASE("a short build log is shown whole", "[pipeline]") {
    CHECK(buildLogExcerpt("error: x\nerror: y\n") == "error: x\nerror: y\n");
    CHECK(buildLogExcerpt("no newline") == "no newline");
}

TEST_CASE("a long build log is cut after its first lines", "[pipeline]") {
    std::string log;
    for (int i = 0; i < 100; ++i) {
        log += "line " + std::to_string(i) + "\n";
    }
    std::string e = buildLogExcerpt(log, 3);
    CHECK(e == "line 0\nline 1\nline 2\n... (97 more lines, " + std::to_string(log.size() - 21) +
                   " bytes)\n");
}

TEST_CASE("one very long line is cut at the byte limit", "[pipeline]") {
    std::string log(10000, 'x');
    std::string e = buildLogExcerpt(log, 30, 100);
    CHECK(e == std::string(100, 'x') + "\n... (1 more line, 9900 bytes)\n");
}
