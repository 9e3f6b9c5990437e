// Timing generated code at the real sizes and choosing small validation sizes (bench.hpp).
#include "bench.hpp"

#include "egopt/extract/extract.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/pipeline/tuner.hpp"
#include "stages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace egopt::pipeline {

namespace {

// True when every scalar of the type is a float (so the buffer reads as a float array).
bool allFloats(const lift::TypeArena& types, lift::TypeId t) {
    const lift::TypeNode& n = types.at(t);
    switch (n.kind) {
    case lift::TypeKind::Scalar:
        return n.scalar == lift::ScalarKind::Float;
    case lift::TypeKind::Vector:
        return n.scalar == lift::ScalarKind::Float && n.width != 3;
    case lift::TypeKind::Tuple:
        return std::all_of(n.elems.begin(), n.elems.end(),
                           [&](lift::TypeId f) { return allFloats(types, f); });
    case lift::TypeKind::Array:
        return allFloats(types, n.elems.at(0));
    }
    return false;
}

} // namespace

std::unique_ptr<Built> buildAt(const lift::Program& candidate, const arith::Bindings& tuning,
                               const arith::Bindings& sizes, const codegen::Options& options,
                               const std::vector<SizeAssumption>& assumed) {
    checkAssumptions(assumed, sizes);
    auto b = std::make_unique<Built>();
    b->program = extract::substituteSizes(candidate, tuning);
    b->info = lift::typecheck(b->program);
    b->code = codegen::generate(b->program, b->info, sizes, options);
    b->sizes = sizes;
    return b;
}

Bench::Bench(const runtime::Device& device, lift::Program& original, const arith::Bindings& sizes,
             uint64_t seed)
    : device_(device), values_(std::make_shared<const std::vector<interp::Value>>(
                           interp::randomInputs(original, sizes, seed))) {}

Bench::Bench(const runtime::Device& device, const Bench& other)
    : device_(device), values_(other.values_) {}

Bench::~Bench() = default;

runtime::Session& Bench::session() {
    if (live_ && live_->session->abandoned()) {
        // codegen already waited a bounded time for the hung kernel; keep the session only to
        // report disturbed timings while the kernel still runs.
        if (!live_->session->drain(std::chrono::milliseconds(0))) {
            hung_.push_back(std::move(live_));
        }
        live_.reset();
    }
    if (!live_) {
        live_ = std::make_unique<Live>();
        live_->session = std::make_unique<runtime::Session>(device_);
        live_->inputs = std::make_unique<codegen::DeviceInputs>(*live_->session, values_);
    }
    return *live_->session;
}

bool Bench::disturbed() {
    std::erase_if(hung_, [](const std::unique_ptr<Live>& h) {
        return h->session->drain(std::chrono::milliseconds(0));
    });
    return !hung_.empty();
}

Timing Bench::time(Built& b, int runs, bool keepOutput, double slowSeconds, double budgetSeconds,
                   double timeoutSeconds) {
    session();
    bool disturbedBefore = disturbed();
    codegen::RunOptions o;
    o.warmup = keepOutput ? 0 : 1; // an output-only run reports no time worth warming up for
    o.runs = std::max(1, runs);
    o.slowRunNs = static_cast<uint64_t>(std::max(1.0, slowSeconds * 1e9));
    o.budgetNs = static_cast<uint64_t>(std::max(0.0, budgetSeconds * 1e9));
    o.keepOutput = keepOutput && allFloats(b.program.types, b.code.outputType);
    o.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(std::max(1e-3, timeoutSeconds) * 1e3));
    o.drain = o.timeout;
    codegen::TimedResult r = codegen::runTimed(*live_->inputs, b.program, b.sizes, b.code, o);
    Timing t;
    t.seconds = double(r.medianNs) * 1e-9;
    t.bytes = r.bytes;
    t.output.assign(r.output.begin(), r.output.end());
    t.disturbed = disturbedBefore || disturbed();
    return t;
}

namespace {

std::unique_ptr<Built> generates(const lift::Program& candidate, const arith::Bindings& tuning,
                                 const arith::Bindings& sizes, const codegen::Options& options,
                                 const std::vector<SizeAssumption>& assumed) {
    try {
        return buildAt(candidate, tuning, sizes, options, assumed);
    } catch (const Error&) {
        return nullptr; // another constraint (a vector width, a layout) fails at these sizes
    }
}

} // namespace

namespace {

// The smallest divisor of v that is at least min(t, v) and a multiple of step (which divides v:
// the run checked its size assumptions).
int64_t divisorAtLeast(int64_t v, int64_t t, int64_t step) {
    int64_t d = std::max(step, (std::min(t, v) + step - 1) / step * step);
    while (d < v && v % d != 0) {
        d += step;
    }
    return std::min(d, v);
}

} // namespace

std::optional<arith::Bindings>
validationSizes(const lift::Program& candidate, const std::vector<extract::TuningVar>& vars,
                const arith::Bindings& tuning, const arith::Bindings& real,
                const codegen::Options& options, const std::vector<SizeAssumption>& assumed,
                double maxWork, const WorkEstimate& estimate, double maxCalls) {
    auto fits = [&](const arith::Bindings& s) {
        return Space(vars, s).valid(tuning) ? generates(candidate, tuning, s, options, assumed)
                                            : nullptr;
    };
    for (int64_t t = 16;; t *= 2) {
        arith::Bindings small;
        bool all = true; // every size at its real value: no larger t helps
        for (const auto& [name, v] : real) {
            small[name] = divisorAtLeast(v, t, assumedDivisor(assumed, name));
            all = all && small[name] == v;
        }
        std::unique_ptr<Built> b = fits(small);
        if (!b) {
            if (all) {
                return std::nullopt;
            }
            continue;
        }
        // Shrink each size on its own again where the constraints allow (gesummv's split
        // factors need K = 1024; N can stay 16).
        for (const auto& [name, v] : real) {
            for (int64_t u = 16; u < small.at(name); u *= 2) {
                arith::Bindings trial = small;
                trial[name] = divisorAtLeast(v, u, assumedDivisor(assumed, name));
                if (trial[name] >= small.at(name)) {
                    break;
                }
                if (auto tb = fits(trial)) {
                    small = std::move(trial);
                    b = std::move(tb);
                    break;
                }
            }
        }
        double work = 1;
        for (const auto& [name, v] : small) {
            work *= double(v);
        }
        // Larger t only adds work.
        if (work > maxWork || (estimate && estimate(*b) > maxCalls)) {
            return std::nullopt; // the interpreter would take too long
        }
        return small;
    }
}

double maxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) {
        return std::numeric_limits<double>::infinity();
    }
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        double d = std::fabs(double(a[i]) - double(b[i])) / std::max(1.0, std::fabs(double(b[i])));
        if (std::isnan(d)) {
            d = std::isnan(a[i]) && std::isnan(b[i]) ? 0 : std::numeric_limits<double>::infinity();
        }
        worst = std::max(worst, d);
    }
    return worst;
}

} // namespace egopt::pipeline
