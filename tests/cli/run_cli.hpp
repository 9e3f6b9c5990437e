// Runs the egopt binary built alongside the tests and captures its output and exit code.
#pragma once

#include <string>

namespace egopt::test {

struct CliResult {
    int exitCode = -1;
    std::string out; // stdout
    std::string err; // stderr
};

// `args` is appended to the binary path verbatim (shell syntax).
CliResult runCli(const std::string& args);

// Writes `text` to a fresh file in the test's temporary directory and returns its path.
std::string writeTempFile(const std::string& name, const std::string& text);

} // namespace egopt::test
