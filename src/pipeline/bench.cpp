// Timing generated code at the real sizes and choosing small validation sizes (bench.hpp).
#include "bench.hpp"

#include "egopt/extract/extract.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/pipeline/tuner.hpp"
#include "stages.hpp"

#include <algorithm>
#include <chrono>
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
    : device_(device), inputs_(std::make_shared<const codegen::HostInputs>(
                           codegen::randomHostInputs(original, sizes, seed))) {}

Bench::Bench(const runtime::Device& device, const Bench& other)
    : device_(device), inputs_(other.inputs_) {}

Bench::~Bench() = default;

std::unique_ptr<Bench::Live> Bench::open() const {
    auto live = std::make_unique<Live>();
    live->session = std::make_unique<runtime::Session>(device_);
    live->inputs = std::make_unique<codegen::DeviceInputs>(*live->session, inputs_);
    live->inputs->uploadPrepared();
    return live;
}

void Bench::openAhead() {
    if (!live_ && !opening_.valid()) {
        opening_ = std::async(std::launch::async, [this] { return open(); });
    }
}

runtime::Session& Bench::session() {
    if (opening_.valid()) {
        live_ = opening_.get();
        live_->session->useCompilerPool(pool_);
    }
    if (live_ && live_->session->abandoned()) {
        // codegen already waited a bounded time for the hung kernel; keep the session only to
        // report disturbed timings while the kernel still runs.
        loadedBefore_ += live_->session->loadedFromWorkers();
        if (!live_->session->drain(std::chrono::milliseconds(0))) {
            hung_.push_back(std::move(live_));
        }
        live_.reset();
    }
    if (!live_) {
        live_ = open();
        live_->session->useCompilerPool(pool_);
    }
    return *live_->session;
}

void Bench::prebuild(const Built& b) {
    session().prebuild(b.code.source); // time() builds with the default options too
}

void Bench::useCompilerPool(std::shared_ptr<runtime::CompilerPool> pool) {
    pool_ = std::move(pool);
    if (live_) {
        live_->session->useCompilerPool(pool_);
    }
}

size_t Bench::loadedFromWorkers() const {
    return loadedBefore_ + (live_ ? live_->session->loadedFromWorkers() : 0);
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
    o.floatOutput = true;
    o.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(std::max(1e-3, timeoutSeconds) * 1e3));
    o.drain = o.timeout;
    codegen::TimedResult r = codegen::runTimed(*live_->inputs, b.program, b.sizes, b.code, o);
    Timing t;
    t.seconds = double(r.medianNs) * 1e-9;
    t.bytes = r.bytes;
    t.output = std::move(r.floats);
    t.disturbed = disturbedBefore || disturbed();
    return t;
}

namespace {

double workOf(const arith::Bindings& sizes) {
    double work = 1;
    for (const auto& [name, v] : sizes) {
        work *= double(std::max<int64_t>(v, 1));
    }
    return work;
}

} // namespace

References::References(const lift::Program& original, uint64_t seed)
    : program_(original), info_(lift::typecheck(program_)), seed_(seed) {}

bool References::applyTo(const lift::Program& candidate) const {
    auto mine = program_.lambdaParams(program_.root);
    auto theirs = candidate.lambdaParams(candidate.root);
    if (mine.size() != theirs.size()) {
        return false;
    }
    for (size_t i = 0; i < mine.size(); ++i) {
        const lift::ParamInfo& a = candidate.params.at(size_t(candidate.node(theirs[i]).ival));
        const lift::ParamInfo& b = program_.params.at(size_t(program_.node(mine[i]).ival));
        if (a.name != b.name || a.declaredType == lift::kNoType ||
            candidate.types.show(a.declaredType) != program_.types.show(b.declaredType)) {
            return false;
        }
    }
    return true;
}

std::shared_ptr<const codegen::Reference> References::at(const arith::Bindings& sizes) {
    std::promise<std::shared_ptr<const codegen::Reference>> promise;
    Entry entry;
    bool mine = false; // this thread interprets; the others wait for its result
    {
        std::lock_guard lock(mutex_);
        auto [it, fresh] = entries_.try_emplace(sizes);
        if (fresh) {
            it->second = promise.get_future().share();
        }
        entry = it->second;
        mine = fresh;
    }
    if (mine) {
        try {
            std::lock_guard lock(interpreting_);
            auto started = std::chrono::steady_clock::now();
            promise.set_value(std::make_shared<const codegen::Reference>(
                codegen::interpretReference(program_, info_, sizes, seed_)));
            double seconds = secondsSince(started);
            std::lock_guard guard(mutex_);
            secondsPerWork_ = std::max(secondsPerWork_, seconds / workOf(sizes));
        } catch (...) {
            promise.set_exception(std::current_exception());
        }
    }
    return entry.get();
}

double References::secondsToInterpret(const arith::Bindings& sizes) const {
    std::lock_guard lock(mutex_);
    return entries_.count(sizes) ? 0 : secondsPerWork_ * workOf(sizes);
}

size_t References::interpreted() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
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

// The 4-byte words of a generated program's inputs and output (each array parameter once): what
// the interpreter holds besides its intermediates.
double dataElements(const Built& b) {
    std::map<int, size_t> inputs; // parameter index -> bytes
    size_t output = 0;
    for (const codegen::KernelInfo& k : b.code.kernels) {
        for (const codegen::KernelArg& a : k.args) {
            if (a.kind == codegen::KernelArg::Kind::Input && a.isBuffer) {
                inputs[a.paramIndex] = std::max(inputs[a.paramIndex], a.bytes);
            } else if (a.kind == codegen::KernelArg::Kind::Output) {
                output = std::max(output, a.bytes);
            }
        }
    }
    double bytes = double(output);
    for (const auto& [param, n] : inputs) {
        bytes += double(n);
    }
    return bytes / 4;
}

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

double interpreterWork(double calls, double ops) {
    return std::min(calls, (calls + ops) / 8);
}

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
        // Larger t only adds work. Within the bound: the product of the sizes (the interpreter's
        // work where each size has an array of its own) or the data the program holds (2MM's four
        // sides multiply far past what it holds).
        double product = 1;
        for (const auto& [name, v] : small) {
            product *= double(v);
        }
        if ((product > maxWork && dataElements(*b) > maxWork) ||
            (estimate && estimate(*b) > maxCalls)) {
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
