// Host-side data of device runs: the memory layout of Lift values, their conversion to and from
// device bytes, and input buffers shared by many runs (DeviceInputs).
#include "run_data.hpp"

#include "egopt/codegen/validate.hpp"
#include "egopt/interp/flatten.hpp"

#include <cstring>

namespace egopt::codegen {

using interp::Value;
using lift::ScalarKind;

namespace {

size_t scalarBytes(ScalarKind k) {
    return k == ScalarKind::Double || k == ScalarKind::Long ? 8 : k == ScalarKind::Char ? 1 : 4;
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
    case lift::TypeKind::Array:
        for (auto k = types.lengthOf(t).constant().value_or(0); k > 0; --k) {
            scalarLayout(types, types.elemOf(t), out);
        }
        break;
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

DeviceInputs::DeviceInputs(runtime::Session& session,
                           std::shared_ptr<const std::vector<interp::Value>> values)
    : session_(session), values_(std::move(values)), buffers_(values_->size()) {}

const interp::Value& DeviceInputs::value(size_t param) const {
    return values_->at(param);
}

runtime::Buffer DeviceInputs::buffer(size_t param, const lift::TypeArena& types,
                                     lift::TypeId type) {
    std::optional<runtime::Buffer>& b = buffers_.at(param);
    if (!b) {
        std::vector<double> flat;
        egopt::interp::flattenScalars(value(param), flat);
        std::vector<ScalarKind> kinds;
        scalarLayout(types, type, kinds);
        b = session_.upload(encode(flat, kinds));
    }
    return *b;
}

} // namespace egopt::codegen
