// The command line shared by the benchmark executables (anchors, codegen): option parsing, the
// row runner with its --filter and progress output, the report header, and main's error
// handling.
#pragma once

#include "egopt/runtime/device.hpp"
#include "harness.hpp"

#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace egopt::bench {

struct Options {
    std::string device;
    bool quick = false;
    bool csv = false;
    std::optional<size_t> size; // --size: the vector length
    std::string filter;
    TimingConfig timing;
};

// Parses the options common to all benchmarks; `usage` is printed for --help and with errors
// (BadInput). --help exits with status 0.
Options parseOptions(int argc, char** argv, const char* usage);

// True for the device types that get the large (GPU) problem sizes.
bool isGpu(const runtime::Device& device);

// Collects rows, skipping those the filter excludes and reporting progress on stderr because
// PoCL and CLBlast compile for seconds before the first timed run.
class Runner {
public:
    explicit Runner(const Options& options) : options_(options) {}

    bool wants(const std::string& name) const {
        return name.find(options_.filter) != std::string::npos;
    }

    template <typename Bench>
    void add(const std::string& name, Bench bench) {
        if (!wants(name)) {
            return;
        }
        std::cerr << "running " << name << "...\n";
        rows_.push_back(bench());
    }

    const std::vector<Row>& rows() const { return rows_; }

private:
    const Options& options_;
    std::vector<Row> rows_;
};

// The device, the platform and how the times were taken, above the table.
void printHeader(std::ostream& out, const runtime::Device& device, const Options& options);

// Runs `body` and maps exceptions to the exit codes of egopt (BadInput 2, others 3), printing
// them after `programName`.
int runMain(const char* programName, const std::function<int()>& body);

} // namespace egopt::bench
