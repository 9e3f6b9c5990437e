// Running generated kernels and checking them against the reference interpreter.
#include "egopt/codegen/validate.hpp"

#include "egopt/interp/interpreter.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

namespace egopt::codegen {

namespace {

using interp::Value;
using lift::ScalarKind;

// The scalar kinds of one value of a non-array type, in memory order.
void scalarLayout(const lift::TypeArena& types, lift::TypeId t, std::vector<ScalarKind>& out) {
    const lift::TypeNode& n = types.at(t);
    switch (n.kind) {
    case lift::TypeKind::Scalar:
        out.push_back(n.scalar);
        break;
    case lift::TypeKind::Vector:
        out.insert(out.end(), n.width == 3 ? 4 : n.width, n.scalar);
        break;
    case lift::TypeKind::Tuple:
        for (lift::TypeId f : n.elems) {
            scalarLayout(types, f, out);
        }
        break;
    case lift::TypeKind::Array:
        for (auto k = types.lengthOf(t).constant().value_or(0); k > 0; --k) {
            scalarLayout(types, types.elemOf(t), out);
        }
        break;
    }
}

size_t scalarBytes(ScalarKind k) {
    return k == ScalarKind::Double || k == ScalarKind::Long ? 8 : k == ScalarKind::Char ? 1 : 4;
}

void flatten(const Value& v, std::vector<double>& out) {
    if (v.isScalar()) {
        out.push_back(v.toDouble());
        return;
    }
    for (const Value& e : v.elems()) {
        flatten(e, out);
    }
}

std::vector<std::byte> encode(const std::vector<double>& values,
                              const std::vector<ScalarKind>& kinds) {
    std::vector<std::byte> bytes;
    for (size_t i = 0; i < values.size() && i < kinds.size(); ++i) {
        std::byte buf[8];
        size_t n = scalarBytes(kinds[i]);
        switch (kinds[i]) {
        case ScalarKind::Float: {
            auto f = static_cast<float>(values[i]);
            std::memcpy(buf, &f, 4);
            break;
        }
        case ScalarKind::Double:
            std::memcpy(buf, &values[i], 8);
            break;
        case ScalarKind::Long: {
            auto l = static_cast<int64_t>(values[i]);
            std::memcpy(buf, &l, 8);
            break;
        }
        case ScalarKind::Char:
            buf[0] = static_cast<std::byte>(static_cast<int8_t>(values[i]));
            break;
        default: {
            auto x = static_cast<int32_t>(values[i]);
            std::memcpy(buf, &x, 4);
            break;
        }
        }
        bytes.insert(bytes.end(), buf, buf + n);
    }
    return bytes;
}

std::vector<double> decode(const std::vector<std::byte>& bytes,
                           const std::vector<ScalarKind>& kinds) {
    std::vector<double> out;
    size_t pos = 0;
    for (ScalarKind k : kinds) {
        if (pos + scalarBytes(k) > bytes.size()) {
            break;
        }
        const std::byte* p = bytes.data() + pos;
        if (k == ScalarKind::Float) {
            float f;
            std::memcpy(&f, p, 4);
            out.push_back(f);
        } else if (k == ScalarKind::Double) {
            double d;
            std::memcpy(&d, p, 8);
            out.push_back(d);
        } else if (k == ScalarKind::Long) {
            int64_t l;
            std::memcpy(&l, p, 8);
            out.push_back(static_cast<double>(l));
        } else if (k == ScalarKind::Char) {
            out.push_back(static_cast<int8_t>(*p));
        } else {
            int32_t x;
            std::memcpy(&x, p, 4);
            out.push_back(x);
        }
        pos += scalarBytes(k);
    }
    return out;
}

void setScalarArg(runtime::Kernel& k, cl_uint index, const lift::TypeArena& types, lift::TypeId t,
                  const Value& v) {
    if (types.at(t).scalar == ScalarKind::Float) {
        k.setArg(index, static_cast<float>(v.toDouble()));
    } else {
        k.setArg(index, static_cast<int32_t>(v.toDouble()));
    }
}

runtime::NDRange ndRange(uint32_t dims, const std::array<size_t, 3>& s) {
    return dims == 1   ? runtime::NDRange(s[0])
           : dims == 2 ? runtime::NDRange(s[0], s[1])
                       : runtime::NDRange(s[0], s[1], s[2]);
}

struct Launch {
    runtime::Kernel kernel;
    runtime::NDRange global, local;
};

// The device side of one run: inputs uploaded once, intermediates and the output allocated once,
// every kernel built with its arguments set.
class Plan {
public:
    Plan(runtime::Session& s, lift::Program& p, const arith::Bindings& sizes,
         const std::vector<Value>& inputs, const std::string& buildOptions)
        : session_(s), program_(p), sizes_(sizes), inputs_(inputs), buildOptions_(buildOptions) {
        for (const auto& [k, v] : sizes) {
            sizeMap_.emplace(k, arith::Size(v));
        }
        uploaded_.resize(p.params.size());
    }

    void addKernel(const std::string& source, const KernelInfo& info, const GeneratedCode& code) {
        Launch l{session_.build(source, info.name, buildOptions_), {}, {}};
        for (size_t i = 0; i < info.args.size(); ++i) {
            setArg(l.kernel, static_cast<cl_uint>(i), info.args[i], code);
        }
        LaunchConfig c = info.launch.bind(sizes_);
        l.global = ndRange(c.dims, c.global);
        l.local = c.driverLocal ? runtime::NDRange() : ndRange(c.dims, c.local);
        launches.push_back(std::move(l));
    }

    lift::TypeId concrete(lift::TypeId t) { return program_.types.substitute(t, sizeMap_); }

    std::vector<Launch> launches;
    runtime::Buffer output;
    size_t bytes = 0; // inputs + output

private:
    void setArg(runtime::Kernel& k, cl_uint index, const KernelArg& a, const GeneratedCode& code) {
        switch (a.kind) {
        case KernelArg::Kind::Input:
            if (!a.isBuffer) {
                setScalarArg(k, index, program_.types, concrete(a.type),
                             inputs_.at(static_cast<size_t>(a.paramIndex)));
                return;
            }
            k.setArg(index, input(a));
            return;
        case KernelArg::Kind::Size:
            k.setArg(index, static_cast<int32_t>(evaluateSize(arith::Size::var(a.name), sizes_)));
            return;
        case KernelArg::Kind::Intermediate: {
            auto i = static_cast<size_t>(a.intermediate);
            intermediates_.resize(code.intermediates.size());
            if (!intermediates_[i]) {
                intermediates_[i] = allocate(code.intermediates[i].byteSize);
            }
            k.setArg(index, *intermediates_[i]);
            return;
        }
        case KernelArg::Kind::Output:
            output = allocate(a.byteSize);
            bytes += output.bytes();
            k.setArg(index, output);
            return;
        case KernelArg::Kind::Temp:
            k.setArg(index, allocate(a.byteSize));
            return;
        }
    }

    runtime::Buffer allocate(const arith::Size& bytes) {
        return session_.allocate(std::max<size_t>(evaluateSize(bytes, sizes_), 4));
    }

    runtime::Buffer input(const KernelArg& a) {
        auto p = static_cast<size_t>(a.paramIndex);
        if (!uploaded_.at(p)) {
            std::vector<double> flat;
            flatten(inputs_.at(p), flat);
            std::vector<ScalarKind> kinds;
            scalarLayout(program_.types, concrete(a.type), kinds);
            uploaded_[p] = session_.upload(encode(flat, kinds));
            bytes += evaluateSize(a.byteSize, sizes_);
        }
        return *uploaded_[p];
    }

    runtime::Session& session_;
    lift::Program& program_;
    const arith::Bindings& sizes_;
    const std::vector<Value>& inputs_;
    std::string buildOptions_;
    std::map<std::string, arith::Size, std::less<>> sizeMap_;
    std::vector<std::optional<runtime::Buffer>> uploaded_;      // by parameter index
    std::vector<std::optional<runtime::Buffer>> intermediates_; // by intermediate index
};

// Runs the sequence `warmup` times untimed, then `runs` times; each kernel waits for the
// previous one (in-order queue), so every run recomputes the output from the inputs.
void timeSequence(runtime::Session& session, std::vector<Launch>& launches,
                  const RunOptions& options, RunResult& r) {
    std::vector<std::vector<uint64_t>> perKernel(launches.size());
    std::vector<uint64_t> totals;
    int runs = std::max(1, options.runs);
    for (int run = 0; run < options.warmup + runs; ++run) {
        uint64_t total = 0;
        for (size_t k = 0; k < launches.size(); ++k) {
            Launch& l = launches[k];
            uint64_t ns = session.launch(l.kernel, l.global, l.local, options.timeout).kernelNs;
            total += ns;
            if (run >= options.warmup) {
                perKernel[k].push_back(ns);
            }
        }
        if (run >= options.warmup) {
            totals.push_back(total);
        }
    }
    r.medianNs = runtime::medianOf(totals);
    for (size_t k = 0; k < launches.size(); ++k) {
        r.kernelMedianNs.emplace_back(launches[k].kernel.name(), runtime::medianOf(perKernel[k]));
    }
}

void compare(const std::vector<double>& got, const std::vector<double>& want, double tol,
             RunResult& r) {
    r.elements = want.size();
    if (got.size() != want.size()) {
        r.mismatches = want.size();
        r.maxError = INFINITY;
        return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
        double err = std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i]));
        if (std::isnan(err)) {
            err = std::isnan(got[i]) && std::isnan(want[i]) ? 0.0 : INFINITY;
        }
        if (err > tol) {
            ++r.mismatches;
        }
        if (err > r.maxError || (i == 0 && err >= r.maxError)) {
            r.maxError = err;
            r.worstIndex = i;
            r.worstGot = got[i];
            r.worstWant = want[i];
        }
    }
}

} // namespace

std::string RunResult::summary() const {
    std::ostringstream s;
    s << (ok ? "OK" : "FAIL") << ": " << elements << " elements, largest error " << maxError;
    if (!ok) {
        s << " (" << mismatches << " mismatches; element " << worstIndex << ": got " << worstGot
          << ", expected " << worstWant << ")";
    }
    s << "; median kernel time " << static_cast<double>(medianNs) / 1e3 << " us, " << gbPerSec
      << " GB/s (" << bytes << " bytes)";
    if (kernelMedianNs.size() > 1) {
        s << "; " << kernelMedianNs.size() << " kernels:";
        for (const auto& [name, ns] : kernelMedianNs) {
            s << " " << name << " " << static_cast<double>(ns) / 1e3 << " us";
        }
    }
    return s.str();
}

RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options) {
    std::vector<Value> inputs = interp::randomInputs(program, sizes, options.seed);
    interp::Interpreter interpreter(program, info, sizes);
    Value reference = interpreter.run(inputs);

    Plan plan(session, program, sizes, inputs, options.buildOptions);
    for (const KernelInfo& k : code.kernels) {
        plan.addKernel(code.source, k, code);
    }
    RunResult r;
    timeSequence(session, plan.launches, options, r);
    r.bytes = plan.bytes;
    r.gbPerSec = r.medianNs ? static_cast<double>(r.bytes) / static_cast<double>(r.medianNs) : 0;

    std::vector<ScalarKind> outKinds;
    scalarLayout(program.types, plan.concrete(code.outputType), outKinds);
    std::vector<double> want;
    flatten(reference, want);
    compare(decode(session.download(plan.output), outKinds), want, options.tolerance, r);
    r.ok = r.mismatches == 0;
    return r;
}

} // namespace egopt::codegen
