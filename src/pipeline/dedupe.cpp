// One candidate per kernel before tuning (docs/pipeline.md, "One candidate per kernel"):
// extraction's candidates that differ only in a no-op layout chain (`Join $ (Join $
// (Split(v__4) $ (Split(v__3) $ x)))`) generate different index expressions for one kernel, so
// its check of distinct kernels keeps both, and tuning would spend measured runs on the chain's
// split factors and on the copy.
#include "stages.hpp"

#include <map>

namespace egopt::pipeline {

namespace {

// The generated source and launch of a candidate at the default tuning values; empty when it
// does not generate there (tuning may still find values that do, so it is kept).
std::string kernelAtDefaults(const Work& w, const extract::Candidate& c) {
    try {
        arith::Bindings values = Space(c.tuning, w.sizes).initial(kDefaultTuningValue);
        auto built = buildAt(c.program, values, w.sizes, w.codegen, w.assumed);
        return built->code.source + '\n' + built->code.launchJson();
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace

std::vector<extract::Candidate> onePerKernel(Work& w, std::vector<extract::Candidate> candidates,
                                             Result& result) {
    auto inExtract = w.clock.enter(Stage::Extract); // one code generation per candidate
    std::vector<extract::Candidate> kept;
    std::map<std::string, size_t> kernels; // kernel -> the index of its candidate in `candidates`
    for (size_t i = 0; i < candidates.size(); ++i) {
        extract::Candidate& c = candidates[i];
        if (auto plain = extract::withoutNoOpLayouts(c)) {
            c = std::move(*plain);
        }
        std::string kernel = kernelAtDefaults(w, c);
        if (!kernel.empty()) {
            auto [it, fresh] = kernels.emplace(std::move(kernel), i);
            if (!fresh) {
                result.notes.push_back(fmt("extract: candidate %zu has the kernel of candidate %zu "
                                           "once no-op layout chains are removed: not tuned (the "
                                           "candidates are numbered without it from here on)",
                                           i, it->second));
                w.progress(result.notes.back());
                continue;
            }
        }
        kept.push_back(std::move(c));
    }
    return kept;
}

} // namespace egopt::pipeline
