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

Timing Bench::time(Built& b, int runs, bool keepOutput, double slowSeconds) {
    session();
    bool disturbedBefore = disturbed();
    codegen::RunOptions o;
    o.warmup = 1;
    o.runs = std::max(1, runs);
    o.slowRunNs = static_cast<uint64_t>(std::max(1.0, slowSeconds * 1e9));
    o.keepOutput = keepOutput && allFloats(b.program.types, b.code.outputType);
    codegen::TimedResult r = codegen::runTimed(*live_->inputs, b.program, b.sizes, b.code, o);
    Timing t;
    t.seconds = double(r.medianNs) * 1e-9;
    t.bytes = r.bytes;
    t.output.assign(r.output.begin(), r.output.end());
    t.disturbed = disturbedBefore || disturbed();
    return t;
}

namespace {

bool generates(const lift::Program& candidate, const arith::Bindings& tuning,
               const arith::Bindings& sizes, const codegen::Options& options,
               const std::vector<SizeAssumption>& assumed) {
    try {
        buildAt(candidate, tuning, sizes, options, assumed);
        return true;
    } catch (const Error&) {
        return false; // another constraint (a vector width, a layout) fails at these sizes
    }
}

} // namespace

std::optional<arith::Bindings>
validationSizes(const lift::Program& candidate, const std::vector<extract::TuningVar>& vars,
                const arith::Bindings& tuning, const arith::Bindings& real,
                const codegen::Options& options, const std::vector<SizeAssumption>& assumed,
                double maxWork) {
    for (int64_t t = 16;; t *= 2) {
        arith::Bindings small;
        double work = 1;
        bool all = true; // every size at its real value: no larger t helps
        for (const auto& [name, v] : real) {
            int64_t step = assumedDivisor(assumed, name); // divides v (the run checked it)
            int64_t d = std::max(step, (std::min(t, v) + step - 1) / step * step);
            while (d < v && v % d != 0) {
                d += step;
            }
            d = std::min(d, v);
            small[name] = d;
            work *= double(d);
            all = all && d == v;
        }
        if (work > maxWork) {
            return std::nullopt; // the interpreter would take too long
        }
        if (Space(vars, small).valid(tuning) &&
            generates(candidate, tuning, small, options, assumed)) {
            return small;
        }
        if (all) {
            return std::nullopt;
        }
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
