// Running generated kernels and checking them against the reference interpreter.
#include "egopt/codegen/validate.hpp"

#include "egopt/interp/interpreter.hpp"

#include <cmath>
#include <cstring>
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
    return s.str();
}

RunResult runAndValidate(runtime::Session& session, lift::Program& program,
                         const lift::TypeInfo& info, const arith::Bindings& sizes,
                         const GeneratedCode& code, const RunOptions& options) {
    std::vector<Value> inputs = interp::randomInputs(program, sizes, options.seed);
    interp::Interpreter interpreter(program, info, sizes);
    Value reference = interpreter.run(inputs);

    runtime::Kernel kernel = session.build(code.source, code.kernel.name, options.buildOptions);
    const auto& types = program.types;
    RunResult r;
    runtime::Buffer output;
    for (size_t i = 0; i < code.kernel.args.size(); ++i) {
        const KernelArg& a = code.kernel.args[i];
        auto index = static_cast<cl_uint>(i);
        if (a.kind == KernelArg::Kind::Input) {
            const Value& v = inputs.at(static_cast<size_t>(a.paramIndex));
            if (!a.isBuffer) {
                setScalarArg(kernel, index, types, a.type, v);
                continue;
            }
            std::vector<double> flat;
            flatten(v, flat);
            std::vector<ScalarKind> kinds;
            scalarLayout(types, a.type, kinds);
            kernel.setArg(index, session.upload(encode(flat, kinds)));
            r.bytes += a.bytes;
        } else {
            runtime::Buffer b = session.allocate(std::max<size_t>(a.bytes, 4));
            kernel.setArg(index, b);
            if (a.kind == KernelArg::Kind::Output) {
                output = b;
                r.bytes += a.bytes;
            }
        }
    }
    const LaunchConfig& l = code.kernel.launch;
    runtime::NDRange global(l.global[0]), local;
    if (l.dims == 2) {
        global = runtime::NDRange(l.global[0], l.global[1]);
    } else if (l.dims == 3) {
        global = runtime::NDRange(l.global[0], l.global[1], l.global[2]);
    }
    if (!l.driverLocal) {
        local = l.dims == 1   ? runtime::NDRange(l.local[0])
                : l.dims == 2 ? runtime::NDRange(l.local[0], l.local[1])
                              : runtime::NDRange(l.local[0], l.local[1], l.local[2]);
    }
    runtime::TimingResult t = runtime::timeKernel(session, kernel, global, local, options.warmup,
                                                  std::max(1, options.runs), options.timeout);
    r.medianNs = t.medianNs;
    r.gbPerSec = t.medianNs ? static_cast<double>(r.bytes) / static_cast<double>(t.medianNs) : 0;

    std::vector<ScalarKind> outKinds;
    scalarLayout(types, code.outputType, outKinds);
    std::vector<double> want;
    flatten(reference, want);
    compare(decode(session.download(output), outKinds), want, options.tolerance, r);
    r.ok = r.mismatches == 0;
    return r;
}

} // namespace egopt::codegen
