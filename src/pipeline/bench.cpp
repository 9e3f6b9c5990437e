// Timing generated code at the real sizes and choosing small validation sizes (bench.hpp).
#include "bench.hpp"

#include "egopt/extract/extract.hpp"
#include "egopt/interp/interpreter.hpp"
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace egopt::pipeline {

namespace {

void encode(const interp::Value& v, std::vector<std::byte>& out) {
    auto put = [&out](const void* p, size_t n) {
        auto* b = static_cast<const std::byte*>(p);
        out.insert(out.end(), b, b + n);
    };
    switch (v.kind()) {
    case interp::Value::Kind::Float: {
        float f = v.asFloat();
        put(&f, 4);
        return;
    }
    case interp::Value::Kind::Double: {
        double d = v.asDouble();
        put(&d, 8);
        return;
    }
    case interp::Value::Kind::Int:
    case interp::Value::Kind::Bool: {
        auto i = static_cast<int32_t>(v.toDouble());
        put(&i, 4);
        return;
    }
    default:
        for (const auto& e : v.elems()) {
            encode(e, out);
        }
    }
}

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

runtime::NDRange ndRange(uint32_t dims, const std::array<size_t, 3>& s) {
    return dims == 1   ? runtime::NDRange(s[0])
           : dims == 2 ? runtime::NDRange(s[0], s[1])
                       : runtime::NDRange(s[0], s[1], s[2]);
}

size_t bufferBytes(const arith::Size& bytes, const arith::Bindings& sizes) {
    return std::max<size_t>(codegen::evaluateSize(bytes, sizes), 4);
}

} // namespace

std::unique_ptr<Built> buildAt(const lift::Program& candidate, const arith::Bindings& tuning,
                               const arith::Bindings& sizes, const codegen::Options& options) {
    auto b = std::make_unique<Built>();
    b->program = extract::substituteSizes(candidate, tuning);
    b->info = lift::typecheck(b->program);
    b->code = codegen::generate(b->program, b->info, sizes, options);
    b->sizes = sizes;
    return b;
}

// Input buffers uploaded once per session, by parameter index (kernels never write inputs).
struct Bench::Inputs {
    std::vector<interp::Value> values;
    std::vector<std::optional<runtime::Buffer>> buffers;
    arith::Bindings sizes;
};

Bench::Bench(const runtime::Device& device, lift::Program& original, const arith::Bindings& sizes,
             uint64_t seed)
    : device_(device), inputs_(std::make_unique<Inputs>()) {
    inputs_->values = interp::randomInputs(original, sizes, seed);
    inputs_->sizes = sizes;
}

Bench::~Bench() = default;

runtime::Session& Bench::session() {
    if (!session_) {
        session_ = std::make_unique<runtime::Session>(device_);
        inputs_->buffers.assign(inputs_->values.size(), std::nullopt);
    }
    return *session_;
}

// One run's kernels with their arguments set and launch sizes bound.
struct Bench::Prepared {
    std::vector<runtime::Kernel> kernels;
    std::vector<std::pair<runtime::NDRange, runtime::NDRange>> ranges;
    std::vector<runtime::Buffer> intermediates;
    runtime::Buffer output;
    size_t bytes = 0;          // inputs (each once) + output
    std::vector<bool> counted; // inputs already in `bytes`, by parameter
};

runtime::Buffer Bench::input(size_t param) {
    if (!inputs_->buffers.at(param)) {
        std::vector<std::byte> bytes;
        encode(inputs_->values.at(param), bytes);
        inputs_->buffers[param] = session().upload(bytes);
    }
    return *inputs_->buffers[param];
}

void Bench::setArg(runtime::Kernel& kernel, cl_uint index, const codegen::KernelArg& a,
                   const Built& b, Prepared& p) {
    runtime::Session& s = session();
    switch (a.kind) {
    case codegen::KernelArg::Kind::Input: {
        const interp::Value& v = inputs_->values.at(static_cast<size_t>(a.paramIndex));
        if (a.isBuffer) {
            auto param = static_cast<size_t>(a.paramIndex);
            runtime::Buffer buf = input(param);
            p.counted.resize(std::max(p.counted.size(), param + 1));
            p.bytes += p.counted[param] ? 0 : buf.bytes();
            p.counted[param] = true;
            kernel.setArg(index, buf);
        } else if (v.kind() == interp::Value::Kind::Float) {
            kernel.setArg(index, v.asFloat());
        } else {
            kernel.setArg(index, static_cast<int32_t>(v.toDouble()));
        }
        return;
    }
    case codegen::KernelArg::Kind::Size:
        kernel.setArg(
            index, static_cast<int32_t>(codegen::evaluateSize(arith::Size::var(a.name), b.sizes)));
        return;
    case codegen::KernelArg::Kind::Intermediate: {
        runtime::Buffer& m = p.intermediates.at(static_cast<size_t>(a.intermediate));
        if (!m.get()) {
            m = s.allocate(
                bufferBytes(b.code.intermediates[size_t(a.intermediate)].byteSize, b.sizes));
        }
        kernel.setArg(index, m);
        return;
    }
    case codegen::KernelArg::Kind::Output:
        p.output = s.allocate(bufferBytes(a.byteSize, b.sizes));
        p.bytes += p.output.bytes();
        kernel.setArg(index, p.output);
        return;
    case codegen::KernelArg::Kind::Temp:
        kernel.setArg(index, s.allocate(bufferBytes(a.byteSize, b.sizes)));
        return;
    }
}

Timing Bench::time(const Built& b, int runs, bool keepOutput, double slowSeconds) {
    runtime::Session& s = session();
    Prepared p;
    p.intermediates.resize(b.code.intermediates.size());
    for (const codegen::KernelInfo& k : b.code.kernels) {
        p.kernels.push_back(s.build(b.code.source, k.name));
        for (size_t i = 0; i < k.args.size(); ++i) {
            setArg(p.kernels.back(), static_cast<cl_uint>(i), k.args[i], b, p);
        }
        codegen::LaunchConfig c = k.launch.bind(b.sizes);
        p.ranges.emplace_back(ndRange(c.dims, c.global),
                              c.driverLocal ? runtime::NDRange() : ndRange(c.dims, c.local));
    }
    std::vector<uint64_t> totals;
    for (int run = 0; run <= std::max(1, runs); ++run) {
        uint64_t total = 0;
        for (size_t k = 0; k < p.kernels.size(); ++k) {
            total += s.launch(p.kernels[k], p.ranges[k].first, p.ranges[k].second).kernelNs;
        }
        // The warm-up (run 0) is dropped unless it alone shows the configuration is too slow.
        bool slow = double(total) * 1e-9 > slowSeconds;
        if (run > 0 || slow) {
            totals.push_back(total);
        }
        if (slow) {
            break;
        }
    }
    Timing t;
    t.seconds = double(runtime::medianOf(totals)) * 1e-9;
    t.bytes = p.bytes;
    if (keepOutput && allFloats(b.program.types, b.code.outputType)) {
        t.output = s.downloadValues<float>(p.output);
    }
    return t;
}

namespace {

bool generates(const lift::Program& candidate, const arith::Bindings& tuning,
               const arith::Bindings& sizes, const codegen::Options& options) {
    try {
        buildAt(candidate, tuning, sizes, options);
        return true;
    } catch (const Error&) {
        return false; // another constraint (a vector width, a layout) fails at these sizes
    }
}

} // namespace

std::optional<arith::Bindings> validationSizes(const lift::Program& candidate,
                                               const std::vector<extract::TuningVar>& vars,
                                               const arith::Bindings& tuning,
                                               const arith::Bindings& real,
                                               const codegen::Options& options, double maxWork) {
    for (int64_t t = 16;; t *= 2) {
        arith::Bindings small;
        double work = 1;
        bool all = true; // every size at its real value: no larger t helps
        for (const auto& [name, v] : real) {
            int64_t d = std::min(t, v);
            while (v % d != 0) {
                ++d;
            }
            small[name] = d;
            work *= double(d);
            all = all && d == v;
        }
        if (work > maxWork) {
            return std::nullopt; // the interpreter would take too long
        }
        if (Space(vars, small).valid(tuning) && generates(candidate, tuning, small, options)) {
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
