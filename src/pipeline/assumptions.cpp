// Size assumptions (docs/pipeline.md, "Size assumptions"): divisibility facts about the size
// variables that hold for every size the pipeline instantiates, given to saturation so that
// rules such as vectorisation (`divides(8, ?x)` on an array of length N) can apply to symbolic
// lengths, and checked wherever sizes are bound.
#include "egopt/support/diagnostic.hpp"
#include "stages.hpp"

#include <algorithm>

namespace egopt::pipeline {

std::vector<SizeAssumption> deriveAssumptions(const lift::Program& program,
                                              const arith::Bindings& real,
                                              const std::vector<std::vector<int64_t>>& companion,
                                              int64_t cap) {
    std::vector<SizeAssumption> out;
    if (cap < 2) {
        return out;
    }
    for (size_t i = 0; i < program.sizeVars.size(); ++i) {
        const std::string& var = program.sizeVars[i];
        std::vector<int64_t> values;
        if (auto it = real.find(var); it != real.end()) {
            values.push_back(it->second);
        }
        for (const auto& combination : companion) {
            if (i < combination.size()) {
                values.push_back(combination[i]);
            }
        }
        if (values.empty()) {
            continue;
        }
        // The largest power of two up to the cap that divides every value.
        int64_t d = 1;
        while (d * 2 <= cap && std::all_of(values.begin(), values.end(),
                                           [&](int64_t v) { return v % (d * 2) == 0; })) {
            d *= 2;
        }
        if (d > 1) {
            out.push_back({var, d});
        }
    }
    return out;
}

void assumeAll(egraph::SizeFacts& facts, const std::vector<SizeAssumption>& assumed) {
    for (const auto& a : assumed) {
        facts.assumeDivides(arith::Size(a.divisor), arith::Size::var(a.var));
    }
}

void checkAssumptions(const std::vector<SizeAssumption>& assumed, const arith::Bindings& sizes) {
    for (const auto& a : assumed) {
        auto it = sizes.find(a.var);
        if (it != sizes.end() && it->second % a.divisor != 0) {
            badInput("size " + a.var + "=" + std::to_string(it->second) +
                     " violates the assumption " + std::to_string(a.divisor) + " | " + a.var +
                     " under which the candidates were derived (the sizes of --size and the "
                     "companion .json decide the assumptions; see docs/pipeline.md)");
        }
    }
}

int64_t assumedDivisor(const std::vector<SizeAssumption>& assumed, const std::string& var) {
    int64_t d = 1;
    for (const auto& a : assumed) {
        if (a.var == var) {
            d = std::max(d, a.divisor);
        }
    }
    return d;
}

std::string showAssumption(const SizeAssumption& a) {
    return std::to_string(a.divisor) + " | " + a.var;
}

} // namespace egopt::pipeline
