// Host-side data of device runs: the memory layout of Lift values, their conversion to and from
// device bytes, and input buffers shared by many runs (DeviceInputs).
#include "run_data.hpp"

#include "egopt/codegen/validate.hpp"
#include "egopt/interp/flatten.hpp"
#include "egopt/interp/interpreter.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace egopt::codegen {

using interp::Value;
using lift::ScalarKind;

namespace {

size_t scalarBytes(ScalarKind k) {
    return k == ScalarKind::Double || k == ScalarKind::Long ? 8 : k == ScalarKind::Char ? 1 : 4;
}

void putScalar(ScalarKind k, double v, std::vector<std::byte>& out) {
    std::byte buf[8];
    size_t n = scalarBytes(k);
    switch (k) {
    case ScalarKind::Float: {
        auto f = static_cast<float>(v);
        std::memcpy(buf, &f, 4);
        break;
    }
    case ScalarKind::Double:
        std::memcpy(buf, &v, 8);
        break;
    case ScalarKind::Long: {
        auto l = static_cast<int64_t>(v);
        std::memcpy(buf, &l, 8);
        break;
    }
    case ScalarKind::Char:
        buf[0] = static_cast<std::byte>(static_cast<int8_t>(v));
        break;
    default: {
        auto x = static_cast<int32_t>(v);
        std::memcpy(buf, &x, 4);
        break;
    }
    }
    out.insert(out.end(), buf, buf + n);
}

} // namespace

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
    case lift::TypeKind::Array: {
        // The element's layout once, repeated: outputs of 128M floats are laid out in a blink.
        std::vector<ScalarKind> elem;
        scalarLayout(types, types.elemOf(t), elem);
        auto n =
            static_cast<size_t>(std::max<int64_t>(0, types.lengthOf(t).constant().value_or(0)));
        if (elem.size() == 1) {
            out.insert(out.end(), n, elem.front());
            break;
        }
        out.reserve(out.size() + n * elem.size());
        for (size_t k = 0; k < n; ++k) {
            out.insert(out.end(), elem.begin(), elem.end());
        }
        break;
    }
    }
}

std::vector<std::byte> encode(const std::vector<double>& values,
                              const std::vector<ScalarKind>& kinds) {
    std::vector<std::byte> bytes;
    for (size_t i = 0; i < values.size() && i < kinds.size(); ++i) {
        putScalar(kinds[i], values[i], bytes);
    }
    return bytes;
}

std::vector<double> decode(const std::vector<std::byte>& bytes,
                           const std::vector<ScalarKind>& kinds) {
    std::vector<double> out;
    if (std::all_of(kinds.begin(), kinds.end(),
                    [](ScalarKind k) { return k == ScalarKind::Float; })) {
        out.resize(std::min(kinds.size(), bytes.size() / 4));
        for (size_t i = 0; i < out.size(); ++i) {
            float f;
            std::memcpy(&f, bytes.data() + 4 * i, 4);
            out[i] = f;
        }
        return out;
    }
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

namespace {

// Appends a random value of concrete type `t` as device bytes, its scalars drawn from `rng` in
// row-major order (a 3-wide vector's fourth slot is padding, not drawn).
void appendRandom(const lift::TypeArena& types, lift::TypeId t, std::mt19937_64& rng,
                  std::vector<std::byte>& out) {
    const lift::TypeNode& n = types.at(t);
    switch (n.kind) {
    case lift::TypeKind::Scalar:
        putScalar(n.scalar, interp::randomScalar(n.scalar, rng), out);
        return;
    case lift::TypeKind::Vector:
        for (uint32_t i = 0; i < n.width; ++i) {
            putScalar(n.scalar, interp::randomScalar(n.scalar, rng), out);
        }
        if (n.width == 3) {
            putScalar(n.scalar, 0, out);
        }
        return;
    case lift::TypeKind::Tuple:
        for (lift::TypeId f : n.elems) {
            appendRandom(types, f, rng, out);
        }
        return;
    case lift::TypeKind::Array: {
        for (int64_t i = types.lengthOf(t).constant().value_or(0); i > 0; --i) {
            appendRandom(types, types.elemOf(t), rng, out);
        }
        return;
    }
    }
}

// splitmix64: a counter-based generator, so that a large array's elements are drawn in parallel,
// each from its index alone.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A float array of n elements uniform in [-1, 1), element i from (key, i); 16 threads fill 128M
// floats in a fraction of a second, where one engine drawing them in sequence takes seconds.
std::vector<std::byte> randomFloats(uint64_t key, size_t n) {
    std::vector<std::byte> out(n * 4);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, size_t{1} << 16),
                      [&](const tbb::blocked_range<size_t>& r) {
                          for (size_t i = r.begin(); i < r.end(); ++i) {
                              double u = double(mix(key + i) >> 11) * 0x1p-53; // [0, 1)
                              auto f = static_cast<float>(u * 2.0 - 1.0);
                              std::memcpy(out.data() + 4 * i, &f, 4);
                          }
                      });
    return out;
}

bool isFloatArray(const lift::TypeArena& types, lift::TypeId t) {
    const lift::TypeNode& n = types.at(t);
    if (n.kind != lift::TypeKind::Array) {
        return n.kind == lift::TypeKind::Scalar && n.scalar == ScalarKind::Float;
    }
    return isFloatArray(types, types.elemOf(t));
}

} // namespace

HostInputs randomHostInputs(lift::Program& program, const arith::Bindings& sizes, uint64_t seed) {
    std::map<std::string, arith::Size, std::less<>> sizeMap;
    for (const auto& [k, v] : sizes) {
        sizeMap.emplace(k, arith::Size(v));
    }
    std::mt19937_64 rng(seed);
    HostInputs in;
    for (lift::NodeId p : program.lambdaParams(program.root)) {
        const lift::ParamInfo& param = program.params.at(static_cast<size_t>(program.node(p).ival));
        lift::TypeId t = program.types.substitute(param.declaredType, sizeMap);
        in.values.emplace_back();
        in.bytes.emplace_back();
        const lift::TypeArena& types = program.types;
        if (types.at(t).kind != lift::TypeKind::Array) {
            in.values.back() = interp::randomValue(types, t, sizes, rng);
        } else if (isFloatArray(types, t)) {
            size_t n = 1;
            for (lift::TypeId a = t; types.at(a).kind == lift::TypeKind::Array;
                 a = types.elemOf(a)) {
                n *= static_cast<size_t>(
                    std::max<int64_t>(0, types.lengthOf(a).constant().value_or(0)));
            }
            in.bytes.back() = randomFloats(mix(seed ^ (uint64_t(in.bytes.size()) << 48)), n);
        } else {
            appendRandom(types, t, rng, in.bytes.back());
        }
    }
    return in;
}

DeviceInputs::DeviceInputs(runtime::Session& session,
                           std::shared_ptr<const std::vector<interp::Value>> values)
    : DeviceInputs(session, std::make_shared<const HostInputs>(HostInputs{
                                *values, std::vector<std::vector<std::byte>>(values->size())})) {}

DeviceInputs::DeviceInputs(runtime::Session& session, std::shared_ptr<const HostInputs> inputs)
    : session_(session), inputs_(std::move(inputs)), buffers_(inputs_->values.size()) {}

const interp::Value& DeviceInputs::value(size_t param) const {
    return inputs_->values.at(param);
}

void DeviceInputs::uploadPrepared() {
    for (size_t p = 0; p < buffers_.size(); ++p) {
        if (!buffers_[p] && !inputs_->bytes.at(p).empty()) {
            buffers_[p] = session_.upload(inputs_->bytes[p]);
            session_.makeResident(*buffers_[p]);
        }
    }
}

runtime::Buffer DeviceInputs::buffer(size_t param, const lift::TypeArena& types,
                                     lift::TypeId type) {
    std::optional<runtime::Buffer>& b = buffers_.at(param);
    if (!b) {
        if (!inputs_->bytes.at(param).empty()) {
            b = session_.upload(inputs_->bytes[param]);
        } else {
            std::vector<double> flat;
            egopt::interp::flattenScalars(value(param), flat);
            std::vector<ScalarKind> kinds;
            scalarLayout(types, type, kinds);
            b = session_.upload(encode(flat, kinds));
        }
    }
    return *b;
}

} // namespace egopt::codegen
