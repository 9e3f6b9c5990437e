// Kernel assembly: the program is split into kernels (stages.hpp); each kernel is generated in
// two passes (the first collects map extents to choose the launch configuration, the second
// generates with the thread counts known, which is what makes control-flow simplification
// possible); typedefs, user functions and helpers are shared by all kernels of the .cl file.
#include "egopt/codegen/codegen.hpp"
#include "generator.hpp"
#include "stages.hpp"

#include <algorithm>

namespace egopt::codegen {

using arith::Size;
using detail::AddrSpace;
using detail::Buffer;
using detail::Generator;
using lift::TypeId;

namespace {

LaunchConfig chooseLaunch(const detail::Extents& e, const Options& opt) {
    LaunchConfig l;
    auto any = [](const std::array<Size, 3>& a) {
        return std::any_of(a.begin(), a.end(), [](const Size& s) { return s != Size(0); });
    };
    auto dimsOf = [](const std::array<Size, 3>& a, const std::array<Size, 3>& b) {
        uint32_t dims = 1;
        for (uint32_t d = 0; d < 3; ++d) {
            dims = (a[d] != Size(0) || b[d] != Size(0)) ? d + 1 : dims;
        }
        return dims;
    };
    auto atLeast1 = [](const Size& s) { return s == Size(0) ? Size(1) : s; };
    if (any(e.wrg)) {
        l.driverLocal = false;
        l.dims = dimsOf(e.wrg, e.lcl);
        for (size_t d = 0; d < 3; ++d) {
            // A symbolic MapLcl extent runs in a loop over a work-group of the largest size.
            auto lcl = e.lcl[d].constant().value_or(static_cast<int64_t>(opt.maxLocalSize));
            l.local[d] = static_cast<size_t>(std::max<int64_t>(lcl, 1));
        }
        // Larger MapLcl extents loop over the work-group; halve the largest dimension to fit.
        while (l.local[0] * l.local[1] * l.local[2] > opt.maxLocalSize) {
            auto it = std::max_element(l.local.begin(), l.local.end());
            *it = (*it + 1) / 2;
        }
        for (size_t d = 0; d < 3; ++d) {
            l.globalSize[d] = atLeast1(e.wrg[d]) * Size(static_cast<int64_t>(l.local[d]));
        }
    } else if (any(e.glb)) {
        l.dims = dimsOf(e.glb, e.glb);
        for (size_t d = 0; d < 3; ++d) {
            l.globalSize[d] = atLeast1(e.glb[d]);
        }
    } else {
        l.driverLocal = false; // a single work-item runs the whole (sequential) program
    }
    for (size_t d = 0; d < 3; ++d) {
        l.global[d] = static_cast<size_t>(l.globalSize[d].constant().value_or(0));
    }
    return l;
}

detail::ThreadPlan planFor(const LaunchConfig& l) {
    detail::ThreadPlan p;
    p.known = true;
    for (size_t d = 0; d < 3; ++d) {
        Size lc(static_cast<int64_t>(l.local[d]));
        p.glb[d] = l.globalSize[d];
        p.lcl[d] = lc;
        p.wrg[d] = l.driverLocal ? l.globalSize[d] : exactDiv(l.globalSize[d], lc);
    }
    return p;
}

Size byteSizeOf(const lift::TypeArena& types, TypeId t) {
    Size n = 1;
    for (; types.isArray(t); t = types.elemOf(t)) {
        n = n * types.lengthOf(t);
    }
    return n * Size(static_cast<int64_t>(types.byteSize(t)));
}

size_t constantBytes(const Size& s) {
    return static_cast<size_t>(std::max<int64_t>(s.constant().value_or(0), 0));
}

KernelArg bufferArg(KernelArg::Kind kind, std::string name, TypeId type, Size bytes) {
    KernelArg a;
    a.kind = kind;
    a.name = std::move(name);
    a.type = type;
    a.bytes = constantBytes(bytes);
    a.byteSize = std::move(bytes);
    return a;
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

// The definitions (text), each one also in `defs`.
std::string userFunctions(lift::Program& p, detail::TypeInference& infer,
                          const std::vector<std::pair<int, int>>& funs,
                          std::vector<FunctionDef>& defs) {
    std::string s;
    auto& types = p.types;
    for (auto [index, width] : funs) {
        const lift::UserFunDecl& d = p.userFuns.at(static_cast<size_t>(index));
        auto lane = [&](TypeId t) {
            t = infer.concrete(t);
            return width ? infer.vectorize(t, static_cast<uint32_t>(width)) : t;
        };
        TypeId ret = lane(d.returnType);
        std::string name = d.name + (width ? "_v" + std::to_string(width) : "");
        const lift::TypeNode& rt = types.at(ret);
        defs.push_back({name, d.body,
                        rt.kind == lift::TypeKind::Vector ? static_cast<uint32_t>(rt.width) : 1});
        std::string sig = types.cName(ret) + " " + name + "(";
        TypeId tupleName = types.kind(ret) == lift::TypeKind::Tuple ? ret : lift::kNoType;
        for (size_t i = 0; i < d.paramTypes.size(); ++i) {
            TypeId pt = lane(d.paramTypes[i]);
            if (tupleName == lift::kNoType && types.kind(pt) == lift::TypeKind::Tuple) {
                tupleName = pt;
            }
            sig += (i ? ", " : "") + types.cName(pt) + " " + d.paramNames.at(i);
        }
        sig += ")";
        // Bodies name their tuple type `Tuple` (docs/design.md §3).
        bool define = tupleName != lift::kNoType;
        s += define ? "#define Tuple " + types.cName(tupleName) + "\n" : "";
        s += sig + " " + d.body + "\n";
        s += define ? "#undef Tuple\n" : "";
    }
    return s;
}

// Index helpers of padded arrays (the mirror and wrap boundaries), defined in `defs` too.
std::string padHelpers(std::vector<FunctionDef>& defs) {
    const FunctionDef helpers[] = {
        {"egopt_mirror",
         "{ int p = 2 * n; int m = ((i % p) + p) % p; return m < n ? m : p - 1 - m; }", 1},
        {"egopt_wrap", "{ return ((i % n) + n) % n; }", 1}};
    std::string s;
    for (const FunctionDef& f : helpers) {
        defs.push_back(f);
        s += "int " + f.name + "(int i, int n) " + f.body + "\n";
    }
    return s;
}

bool usesDouble(const lift::TypeArena& types, const std::vector<Buffer>& buffers) {
    return std::any_of(buffers.begin(), buffers.end(), [&](const Buffer& b) {
        return types.at(types.scalarBase(b.elemType)).scalar == lift::ScalarKind::Double;
    });
}

// Arguments in order: top-level inputs, earlier kernels' results, the output (the program's or
// an intermediate), scratch buffers, unbound sizes.
std::string kernelSignature(Generator& g, KernelInfo& info, lift::Program& p, int producing,
                            const std::vector<std::string>& sizeParams) {
    auto& types = p.types;
    std::vector<std::string> params;
    const auto& bufs = g.buffers();
    detail::TypeInference& infer = g.inference();
    for (size_t i = 0; i < g.params().size(); ++i) {
        const Buffer& b = bufs.at(g.params()[i]);
        int index = g.paramIndexOfArg()[i];
        TypeId t = infer.concrete(p.params.at(static_cast<size_t>(index)).declaredType);
        KernelArg a = bufferArg(KernelArg::Kind::Input, b.name, t,
                                b.scalarVar ? Size(static_cast<int64_t>(types.byteSize(t)))
                                            : byteSizeOf(types, t));
        a.paramIndex = index;
        a.isBuffer = !b.scalarVar;
        params.push_back(b.scalarVar ? "const " + types.cName(b.elemType) + " " + b.name
                                     : "const __global " + types.cName(b.elemType) + "* restrict " +
                                           b.name);
        info.args.push_back(std::move(a));
    }
    for (const auto& [id, index] : g.inputs()) {
        const Buffer& b = bufs.at(id);
        params.push_back("const __global " + types.cName(b.elemType) + "* restrict " + b.name);
        KernelArg a = bufferArg(KernelArg::Kind::Intermediate, b.name, lift::kNoType, 0);
        a.intermediate = index;
        info.args.push_back(std::move(a));
    }
    const Buffer& out = bufs.at(g.output());
    params.push_back("__global " + types.cName(out.elemType) + "* " + out.name);
    KernelArg o = bufferArg(producing < 0 ? KernelArg::Kind::Output : KernelArg::Kind::Intermediate,
                            out.name, g.outputType(), byteSizeOf(types, g.outputType()));
    o.intermediate = producing;
    o.writes = producing >= 0;
    info.args.push_back(std::move(o));
    for (auto t : g.temps()) {
        const Buffer& b = bufs.at(t);
        params.push_back("__global " + types.cName(b.elemType) + "* " + b.name);
        info.args.push_back(
            bufferArg(KernelArg::Kind::Temp, b.name, b.elemType,
                      b.count * Size(static_cast<int64_t>(types.byteSize(b.elemType)))));
    }
    for (const std::string& v : sizeParams) {
        params.push_back("const int " + v);
        KernelArg a = bufferArg(KernelArg::Kind::Size, v, types.scalar(lift::ScalarKind::Int), 4);
        a.isBuffer = false;
        info.args.push_back(std::move(a));
    }
    std::string s = "__kernel void " + info.name + "(";
    for (size_t i = 0; i < params.size(); ++i) {
        s += (i ? ",\n    " : "\n    ") + params[i];
    }
    return s + ")";
}

// What the kernels of one program share at the top of the .cl file.
struct Shared {
    std::vector<TypeId> tuples;
    std::vector<std::pair<int, int>> userFuns; // (user function, vector width), first use first
    bool usesPadHelpers = false;
    bool fp64 = false;

    void add(Generator& g, const lift::TypeArena& types) {
        auto addUnique = [](auto& list, const auto& item) {
            if (std::find(list.begin(), list.end(), item) == list.end()) {
                list.push_back(item);
            }
        };
        for (TypeId t : g.tupleTypes()) {
            addUnique(tuples, t);
        }
        for (const auto& f : g.userFuns()) {
            addUnique(userFuns, f);
        }
        usesPadHelpers = usesPadHelpers || g.usesPadHelpers();
        fp64 = fp64 || usesDouble(types, g.buffers());
    }

    std::string header(lift::Program& p, const arith::Bindings& sizes,
                       std::vector<FunctionDef>& defs) const {
        detail::SizeMap sm;
        for (const auto& [k, v] : sizes) {
            sm.emplace(k, Size(v));
        }
        detail::TypeInference infer(p, sm);
        std::string s = fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
        s += typedefs(p.types, tuples);
        s += usesPadHelpers ? padHelpers(defs) : "";
        return s + userFunctions(p, infer, userFuns, defs);
    }
};

// One kernel: two generation passes (extents, then code with the launch known).
struct Built {
    KernelInfo info;
    std::string text; // signature and body
    lift::TypeId outputType = 0;
};

Built buildKernel(lift::Program& program, const arith::Bindings& sizes,
                  const detail::KernelSpec& spec, const Options& options, std::string name,
                  int producing, const std::vector<std::string>& sizeParams, Shared& shared) {
    Generator probe(program, sizes, detail::ThreadPlan{}, options.simplifyMemo);
    probe.run(spec);
    Built b;
    b.info.name = std::move(name);
    b.info.launch = chooseLaunch(probe.extents(), options);
    Generator g(program, sizes, planFor(b.info.launch), options.simplifyMemo);
    g.run(spec);
    b.info.barriers = g.barriers();
    b.info.privateBytes = g.privateBytes();
    b.info.facts = g.takeFacts();
    b.outputType = g.outputType();
    auto& types = program.types;
    b.text = kernelSignature(g, b.info, program, producing, sizeParams) + " {\n";
    for (auto l : g.locals()) {
        const Buffer& buf = g.buffers().at(l);
        auto count = static_cast<size_t>(buf.count.constant().value_or(1));
        b.text += "  __local " + types.cName(buf.elemType) + " " + buf.name + "[" +
                  std::to_string(count) + "];\n";
        b.info.localBytes += count * types.byteSize(buf.elemType);
    }
    // The declarations are statements of the body, before the generated ones.
    auto& body = b.info.facts.body;
    body.insert(body.begin(), g.locals().size(), KernelNode{});
    b.text += g.body() + "}\n";
    shared.add(g, types);
    return b;
}

} // namespace

GeneratedCode generate(lift::Program& program, const lift::TypeInfo& info,
                       const arith::Bindings& sizes, const Options& options) {
    if (program.root == lift::kNoNode || info.resultType == lift::kNoType) {
        badInput("codegen: the program has not been type-checked", program.fileName);
    }
    GeneratedCode code;
    for (const std::string& v : program.sizeVars) {
        if (!sizes.contains(v)) {
            code.sizeParams.push_back(v);
        }
    }
    detail::StagePlan plan = detail::planStages(program);
    size_t count = plan.stages.size() + 1;
    Shared shared;
    std::vector<detail::Materialized> done;
    std::string kernels;
    for (size_t k = 0; k < count; ++k) {
        bool last = k + 1 == count;
        lift::NodeId root = last ? program.lambdaBody(program.root) : plan.stages[k];
        detail::KernelUses uses = detail::usesOf(program, root, plan, k);
        detail::KernelSpec spec;
        spec.root = root;
        spec.outputName = last ? "out" : "tmp" + std::to_string(k);
        spec.params = uses.params;
        if (count == 1) {
            spec.params.clear(); // one kernel: every parameter is an argument, as declared
            for (lift::NodeId p : program.lambdaParams(program.root)) {
                spec.params.push_back(program.node(p).ival);
            }
        }
        for (size_t s : uses.stages) {
            spec.inputs.push_back(done.at(s));
        }
        spec.lets = uses.lets;
        std::string name =
            count == 1 ? options.kernelName : options.kernelName + "_" + std::to_string(k);
        Built b = buildKernel(program, sizes, spec, options, std::move(name),
                              last ? -1 : static_cast<int>(k), code.sizeParams, shared);
        kernels += (k ? "\n" : "") + b.text;
        if (!last) {
            Size bytes = byteSizeOf(program.types, b.outputType);
            code.intermediates.push_back(
                {spec.outputName, b.outputType, bytes, constantBytes(bytes), static_cast<int>(k)});
            done.push_back({root, spec.outputName, b.outputType, static_cast<int>(k)});
        }
        code.outputType = b.outputType;
        code.kernels.push_back(std::move(b.info));
    }
    // Intermediate arguments of readers carry the buffer's type and size.
    for (KernelInfo& k : code.kernels) {
        for (KernelArg& a : k.args) {
            if (a.kind == KernelArg::Kind::Intermediate && !a.writes) {
                const Intermediate& m = code.intermediates.at(static_cast<size_t>(a.intermediate));
                a.type = m.type;
                a.byteSize = m.byteSize;
                a.bytes = m.bytes;
            }
        }
    }
    code.kernel = code.kernels.back();
    code.source = "// Generated by egopt from " + program.fileName + "\n" +
                  shared.header(program, sizes, code.functions) + kernels;
    return code;
}

} // namespace egopt::codegen
