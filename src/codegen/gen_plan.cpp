// The host-side plan: launch configurations at concrete sizes, and the plan as JSON (kernels in
// launch order with their launch configuration and arguments, intermediate buffers, symbolic
// size parameters). Sizes are numbers when known and Lift size expressions ("N/^128") otherwise.
#include "egopt/codegen/codegen.hpp"
#include "egopt/support/diagnostic.hpp"

#include <nlohmann/json.hpp>

namespace egopt::codegen {

using arith::Size;

size_t evaluateSize(const Size& s, const arith::Bindings& sizes) {
    auto v = s.evaluate(sizes);
    if (!v || *v < 0) {
        std::string missing;
        for (const std::string& var : s.variables()) {
            missing += sizes.contains(var) ? "" : (missing.empty() ? "" : ", ") + var;
        }
        badInput("codegen: cannot evaluate the size " + s.toString() +
                 (missing.empty() ? "" : ": no value for " + missing));
    }
    return static_cast<size_t>(*v);
}

bool LaunchConfig::symbolic() const {
    return std::any_of(globalSize.begin(), globalSize.end(),
                       [](const Size& s) { return !s.isConstant(); });
}

LaunchConfig LaunchConfig::bind(const arith::Bindings& sizes) const {
    LaunchConfig l = *this;
    for (size_t d = 0; d < 3; ++d) {
        l.global[d] = evaluateSize(globalSize[d], sizes);
        l.globalSize[d] = Size(static_cast<int64_t>(l.global[d]));
    }
    return l;
}

namespace {

nlohmann::json sizeJson(const Size& s) {
    if (auto c = s.constant()) {
        return *c;
    }
    return s.toString();
}

const char* kindName(KernelArg::Kind k) {
    switch (k) {
    case KernelArg::Kind::Input:
        return "input";
    case KernelArg::Kind::Output:
        return "output";
    case KernelArg::Kind::Temp:
        return "temp";
    case KernelArg::Kind::Intermediate:
        return "intermediate";
    case KernelArg::Kind::Size:
        return "size";
    }
    return "?";
}

nlohmann::json argJson(const KernelArg& a) {
    nlohmann::json e{{"name", a.name}, {"kind", kindName(a.kind)}};
    if (a.kind != KernelArg::Kind::Size) {
        e["bytes"] = sizeJson(a.byteSize);
    }
    if (a.kind == KernelArg::Kind::Input) {
        e["param"] = a.paramIndex;
        e["buffer"] = a.isBuffer;
    }
    if (a.kind == KernelArg::Kind::Intermediate) {
        e["buffer_index"] = a.intermediate;
        e["access"] = a.writes ? "write" : "read";
    }
    return e;
}

nlohmann::json kernelJson(const KernelInfo& k) {
    const LaunchConfig& l = k.launch;
    nlohmann::json j;
    j["kernel"] = k.name;
    j["dims"] = l.dims;
    nlohmann::json global = nlohmann::json::array();
    for (uint32_t d = 0; d < l.dims; ++d) {
        global.push_back(sizeJson(l.globalSize[d]));
    }
    j["global"] = global;
    if (l.driverLocal) {
        j["local"] = nullptr;
    } else {
        j["local"] = std::vector<size_t>(l.local.begin(), l.local.begin() + l.dims);
    }
    j["local_memory_bytes"] = k.localBytes;
    j["private_memory_bytes"] = k.privateBytes;
    j["barriers"] = k.barriers;
    nlohmann::json args = nlohmann::json::array();
    for (const KernelArg& a : k.args) {
        args.push_back(argJson(a));
    }
    j["args"] = args;
    return j;
}

} // namespace

std::string GeneratedCode::launchJson() const {
    nlohmann::json j;
    j["size_params"] = sizeParams;
    nlohmann::json ks = nlohmann::json::array();
    for (const KernelInfo& k : kernels) {
        ks.push_back(kernelJson(k));
    }
    j["kernels"] = ks;
    nlohmann::json buffers = nlohmann::json::array();
    for (size_t i = 0; i < intermediates.size(); ++i) {
        const Intermediate& m = intermediates[i];
        nlohmann::json readers = nlohmann::json::array();
        for (size_t k = 0; k < kernels.size(); ++k) {
            for (const KernelArg& a : kernels[k].args) {
                if (a.intermediate == static_cast<int>(i) && !a.writes) {
                    readers.push_back(k);
                }
            }
        }
        buffers.push_back({{"name", m.name},
                           {"bytes", sizeJson(m.byteSize)},
                           {"written_by", m.producer},
                           {"read_by", readers}});
    }
    j["intermediates"] = buffers;
    return j.dump(2) + "\n";
}

} // namespace egopt::codegen
