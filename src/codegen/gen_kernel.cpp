// Kernel assembly: two generation passes (the first collects map extents to choose the launch
// configuration, the second generates with the thread counts known, which is what makes
// control-flow simplification possible), then typedefs, user functions and the kernel text.
#include "egopt/codegen/codegen.hpp"
#include "generator.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace egopt::codegen {

using detail::AddrSpace;
using detail::Buffer;
using detail::Generator;
using lift::TypeId;

namespace {

LaunchConfig chooseLaunch(const detail::Extents& e, const Options& opt) {
    LaunchConfig l;
    auto any = [](const std::array<int64_t, 3>& a) { return a[0] || a[1] || a[2]; };
    auto dimsOf = [](const std::array<int64_t, 3>& a, const std::array<int64_t, 3>& b) {
        uint32_t dims = 1;
        for (uint32_t d = 0; d < 3; ++d) {
            dims = (a[d] || b[d]) ? d + 1 : dims;
        }
        return dims;
    };
    if (any(e.wrg)) {
        l.driverLocal = false;
        l.dims = dimsOf(e.wrg, e.lcl);
        for (size_t d = 0; d < 3; ++d) {
            l.local[d] = static_cast<size_t>(std::max<int64_t>(e.lcl[d], 1));
        }
        // Larger MapLcl extents loop over the work-group; halve the largest dimension to fit.
        while (l.local[0] * l.local[1] * l.local[2] > opt.maxLocalSize) {
            auto it = std::max_element(l.local.begin(), l.local.end());
            *it = (*it + 1) / 2;
        }
        for (size_t d = 0; d < 3; ++d) {
            l.global[d] = static_cast<size_t>(std::max<int64_t>(e.wrg[d], 1)) * l.local[d];
        }
    } else if (any(e.glb)) {
        l.dims = dimsOf(e.glb, e.glb);
        for (size_t d = 0; d < 3; ++d) {
            l.global[d] = static_cast<size_t>(std::max<int64_t>(e.glb[d], 1));
        }
    } else {
        l.driverLocal = false; // a single work-item runs the whole (sequential) program
    }
    return l;
}

detail::ThreadPlan planFor(const LaunchConfig& l) {
    detail::ThreadPlan p;
    p.known = true;
    for (size_t d = 0; d < 3; ++d) {
        auto g = static_cast<int64_t>(l.global[d]);
        auto lc = static_cast<int64_t>(l.local[d]);
        p.glb[d] = g;
        p.lcl[d] = lc;
        p.wrg[d] = g / lc;
    }
    return p;
}

size_t bytesOf(const lift::TypeArena& types, TypeId t) {
    size_t n = 1;
    for (; types.isArray(t); t = types.elemOf(t)) {
        n *= static_cast<size_t>(types.lengthOf(t).constant().value_or(0));
    }
    return n * types.byteSize(t);
}

std::string typedefs(const lift::TypeArena& types, const std::vector<TypeId>& tuples) {
    std::string s;
    for (TypeId t : tuples) {
        const auto& fields = types.at(t).elems;
        // Host data is packed; only mixed field sizes differ from the natural layout.
        bool uniform = std::all_of(fields.begin(), fields.end(), [&](TypeId f) {
            return types.byteSize(f) == types.byteSize(fields[0]);
        });
        s += std::string("typedef struct ") + (uniform ? "" : "__attribute__((packed)) ") + "{";
        for (size_t i = 0; i < fields.size(); ++i) {
            s += " " + types.cName(fields[i]) + " _" + std::to_string(i) + ";";
        }
        s += " } " + types.cName(t) + ";\n";
    }
    return s;
}

std::string userFunctions(lift::Program& p, detail::TypeInference& infer,
                          const std::vector<std::pair<int, int>>& funs) {
    std::string s;
    auto& types = p.types;
    for (auto [index, width] : funs) {
        const lift::UserFunDecl& d = p.userFuns.at(static_cast<size_t>(index));
        auto lane = [&](TypeId t) {
            t = infer.concrete(t);
            return width ? infer.vectorize(t, static_cast<uint32_t>(width)) : t;
        };
        TypeId ret = lane(d.returnType);
        std::string sig =
            types.cName(ret) + " " + d.name + (width ? "_v" + std::to_string(width) : "") + "(";
        TypeId tupleName = types.kind(ret) == lift::TypeKind::Tuple ? ret : lift::kNoType;
        for (size_t i = 0; i < d.paramTypes.size(); ++i) {
            TypeId pt = lane(d.paramTypes[i]);
            if (tupleName == lift::kNoType && types.kind(pt) == lift::TypeKind::Tuple) {
                tupleName = pt;
            }
            sig += (i ? ", " : "") + types.cName(pt) + " " + d.paramNames.at(i);
        }
        sig += ")";
        // Bodies name their tuple type `Tuple` (SPEC §3).
        bool define = tupleName != lift::kNoType;
        s += define ? "#define Tuple " + types.cName(tupleName) + "\n" : "";
        s += sig + " " + d.body + "\n";
        s += define ? "#undef Tuple\n" : "";
    }
    return s;
}

const char* kPadHelpers = "int egopt_mirror(int i, int n) { int p = 2 * n; int m = ((i % p) + p) "
                          "% p; return m < n ? m : p - 1 - m; }\n"
                          "int egopt_wrap(int i, int n) { return ((i % n) + n) % n; }\n";

bool usesDouble(const lift::TypeArena& types, const std::vector<Buffer>& buffers) {
    return std::any_of(buffers.begin(), buffers.end(), [&](const Buffer& b) {
        return types.at(types.scalarBase(b.elemType)).scalar == lift::ScalarKind::Double;
    });
}

std::string kernelSignature(Generator& g, KernelInfo& info, lift::Program& p) {
    auto& types = p.types;
    std::string s = "__kernel void " + info.name + "(";
    std::vector<std::string> params;
    const auto& bufs = g.buffers();
    for (size_t i = 0; i < g.params().size(); ++i) {
        const Buffer& b = bufs.at(g.params()[i]);
        KernelArg a;
        a.kind = KernelArg::Kind::Input;
        a.name = b.name;
        a.paramIndex = g.paramIndexOfArg()[i];
        a.isBuffer = !b.scalarVar;
        params.push_back(b.scalarVar ? "const " + types.cName(b.elemType) + " " + b.name
                                     : "const __global " + types.cName(b.elemType) + "* restrict " +
                                           b.name);
        info.args.push_back(a);
    }
    const Buffer& out = bufs.at(g.output());
    params.push_back("__global " + types.cName(out.elemType) + "* " + out.name);
    info.args.push_back({KernelArg::Kind::Output, out.name, -1, g.outputType(),
                         bytesOf(types, g.outputType()), true});
    for (auto t : g.temps()) {
        const Buffer& b = bufs.at(t);
        params.push_back("__global " + types.cName(b.elemType) + "* " + b.name);
        auto count = static_cast<size_t>(b.count.constant().value_or(0));
        info.args.push_back({KernelArg::Kind::Temp, b.name, -1, b.elemType,
                             count * types.byteSize(b.elemType), true});
    }
    for (size_t i = 0; i < params.size(); ++i) {
        s += (i ? ",\n    " : "\n    ") + params[i];
    }
    return s + ")";
}

} // namespace

GeneratedCode generate(lift::Program& program, const lift::TypeInfo& info,
                       const arith::Bindings& sizes, const Options& options) {
    if (program.root == lift::kNoNode || info.resultType == lift::kNoType) {
        badInput("codegen: the program has not been type-checked", program.fileName);
    }
    for (const std::string& v : program.sizeVars) {
        if (!sizes.contains(v)) {
            badInput("codegen: no value for the size variable " + v + ": pass --size " + v +
                         "=<value>",
                     program.fileName);
        }
    }
    Generator probe(program, sizes, detail::ThreadPlan{});
    probe.run();
    LaunchConfig launch = chooseLaunch(probe.extents(), options);
    Generator g(program, sizes, planFor(launch));
    g.run();

    GeneratedCode code;
    code.kernel.name = options.kernelName;
    code.kernel.launch = launch;
    code.kernel.barriers = g.barriers();
    code.outputType = g.outputType();
    auto& types = program.types;
    // Input argument types with concrete lengths, for the host side.
    detail::SizeMap sm;
    for (const auto& [k, v] : sizes) {
        sm.emplace(k, arith::Size(v));
    }
    detail::TypeInference infer(program, sm);
    std::string sig = kernelSignature(g, code.kernel, program);
    for (KernelArg& a : code.kernel.args) {
        if (a.kind == KernelArg::Kind::Input) {
            a.type =
                infer.concrete(program.params.at(static_cast<size_t>(a.paramIndex)).declaredType);
            a.bytes = a.isBuffer ? bytesOf(types, a.type) : types.byteSize(a.type);
        }
    }
    std::string& s = code.source;
    s = "// Generated by egopt from " + program.fileName + "\n";
    if (usesDouble(types, g.buffers())) {
        s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    }
    s += typedefs(types, g.tupleTypes());
    s += g.usesPadHelpers() ? kPadHelpers : "";
    s += userFunctions(program, infer, g.userFuns());
    s += sig + " {\n";
    for (auto l : g.locals()) {
        const Buffer& b = g.buffers().at(l);
        auto count = static_cast<size_t>(b.count.constant().value_or(1));
        s += "  __local " + types.cName(b.elemType) + " " + b.name + "[" + std::to_string(count) +
             "];\n";
        code.kernel.localBytes += count * types.byteSize(b.elemType);
    }
    s += g.body() + "}\n";
    return code;
}

std::string GeneratedCode::launchJson() const {
    nlohmann::json j;
    const LaunchConfig& l = kernel.launch;
    j["kernel"] = kernel.name;
    j["dims"] = l.dims;
    j["global"] = std::vector<size_t>(l.global.begin(), l.global.begin() + l.dims);
    if (l.driverLocal) {
        j["local"] = nullptr;
    } else {
        j["local"] = std::vector<size_t>(l.local.begin(), l.local.begin() + l.dims);
    }
    j["local_memory_bytes"] = kernel.localBytes;
    j["barriers"] = kernel.barriers;
    nlohmann::json args = nlohmann::json::array();
    for (const KernelArg& a : kernel.args) {
        const char* kind = a.kind == KernelArg::Kind::Input    ? "input"
                           : a.kind == KernelArg::Kind::Output ? "output"
                                                               : "temp";
        nlohmann::json e{{"name", a.name}, {"kind", kind}, {"bytes", a.bytes}};
        if (a.kind == KernelArg::Kind::Input) {
            e["param"] = a.paramIndex;
            e["buffer"] = a.isBuffer;
        }
        args.push_back(e);
    }
    j["args"] = args;
    return j.dump(2) + "\n";
}

} // namespace egopt::codegen
