// Generated-kernel rows. The interpreter cannot evaluate the benchmark sizes (hundreds of
// millions of elements, a 4096^3 product) in reasonable time, so the check is split: the kernel
// generated at small sizes is compared in full with the interpreter (codegen::runAndValidate),
// and the kernel generated at the benchmark size, the one that is timed, is compared on up to
// kSamples outputs with the host reference of its ProgramSpec.
#include "codegen_rows.hpp"

#include "blas_rows.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/codegen/validate.hpp"
#include "egopt/lift/frontend.hpp"
#include "egopt/lift/sizes.hpp"
#include "egopt/lift/typecheck.hpp"
#include "embedded_programs.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace egopt::bench {

namespace {

constexpr size_t kSamples = 4096;
constexpr double kTolerance = 1e-3; // as codegen::RunOptions: float reassociation
constexpr size_t kMaxErrorText = 400;

struct Compiled {
    lift::Program program;
    lift::TypeInfo info;
    codegen::GeneratedCode code;
};

const EmbeddedProgram& findProgram(const std::string& name) {
    for (const EmbeddedProgram& p : embeddedPrograms()) {
        if (p.name == name) {
            return p;
        }
    }
    throw Error(ErrorKind::Internal, "program '" + name + "' is not embedded in bench/codegen");
}

// Parsed afresh for each size: generation interns concrete types into the program.
Compiled compile(const ProgramSpec& spec, const arith::Bindings& sizes) {
    const EmbeddedProgram& source = findProgram(spec.program);
    Compiled c{lift::parseProgram(std::string(source.source), std::string(source.path)), {}, {}};
    c.info = lift::typecheck(c.program);
    c.code = codegen::generate(c.program, c.info, sizes);
    return c;
}

// Every size variable of the program, read by the front end, bound to `size`.
arith::Bindings bindAll(const ProgramSpec& spec, size_t size) {
    const EmbeddedProgram& source = findProgram(spec.program);
    const lift::Program program =
        lift::parseProgram(std::string(source.source), std::string(source.path));
    arith::Bindings sizes;
    for (const std::string& var : program.sizeVars) {
        sizes[var] = static_cast<int64_t>(size);
    }
    return sizes;
}

std::string interpreterCheck(runtime::Session& session, const ProgramSpec& spec, bool& ok) {
    Compiled c = compile(spec, spec.checkSizes);
    codegen::RunOptions options;
    options.warmup = 0;
    options.runs = 1;
    const codegen::RunResult r =
        codegen::runAndValidate(session, c.program, c.info, spec.checkSizes, c.code, options);
    ok = r.ok;
    std::ostringstream text;
    text << "interpreter check at " << lift::showBindings(c.program, spec.checkSizes) << ": "
         << (r.ok ? "ok" : "FAIL") << " (" << r.elements << " outputs, largest error " << r.maxError
         << ")";
    return text.str();
}

bool isFloatData(const lift::TypeArena& types, lift::TypeId type) {
    return types.at(types.scalarBase(type)).scalar == lift::ScalarKind::Float;
}

runtime::NDRange toRange(const codegen::LaunchConfig& l, const std::array<size_t, 3>& sizes) {
    return l.dims == 1   ? runtime::NDRange(sizes[0])
           : l.dims == 2 ? runtime::NDRange(sizes[0], sizes[1])
                         : runtime::NDRange(sizes[0], sizes[1], sizes[2]);
}

// The kernel's arguments: pattern data for array inputs, kScalarInput for scalars, fresh
// buffers for the output and temporaries. Returns the output buffer.
runtime::Buffer bindArgs(runtime::Session& session, const Compiled& c, KernelCase& kernelCase) {
    runtime::Buffer output;
    unsigned arrayParam = 0;
    for (const codegen::KernelArg& a : c.code.kernel.args) {
        // Intermediates (several kernels) and size arguments (symbolic kernels) would need the
        // whole kernel sequence timed; every program here is one kernel at concrete sizes.
        if (a.kind != codegen::KernelArg::Kind::Input &&
            a.kind != codegen::KernelArg::Kind::Output &&
            a.kind != codegen::KernelArg::Kind::Temp) {
            throw Error(ErrorKind::BadInput, "argument " + a.name +
                                                 ": only single-kernel "
                                                 "programs at concrete sizes are supported");
        }
        if (!isFloatData(c.program.types, a.type)) {
            throw Error(ErrorKind::BadInput, "argument " + a.name + " is not float data");
        }
        if (a.kind == codegen::KernelArg::Kind::Input && !a.isBuffer) {
            kernelCase.args.emplace_back(kScalarInput);
        } else if (a.kind == codegen::KernelArg::Kind::Input) {
            kernelCase.args.emplace_back(uploadPattern(session, a.bytes / 4, 1 + arrayParam++));
        } else {
            runtime::Buffer buffer = session.allocate(std::max<size_t>(a.bytes, 4));
            kernelCase.args.emplace_back(buffer);
            if (a.kind == codegen::KernelArg::Kind::Output) {
                output = buffer;
            }
        }
    }
    return output;
}

// Compulsory traffic: every input and the output once (temporaries not counted).
Work workOf(const ProgramSpec& spec, const Compiled& c, const arith::Bindings& sizes) {
    Work work;
    for (const codegen::KernelArg& a : c.code.kernel.args) {
        if (a.kind != codegen::KernelArg::Kind::Temp) {
            work.bytes += static_cast<double>(a.bytes);
        }
    }
    if (spec.computeBound) {
        work.computeBound = true;
        work.flops = 2;
        for (const auto& [name, value] : sizes) {
            work.flops *= static_cast<double>(value);
        }
    }
    return work;
}

// Compares up to kSamples evenly spaced outputs, and the last, with the host reference.
std::string sampledCheck(runtime::Session& session, const runtime::Buffer& output,
                         const ProgramSpec& spec, const arith::Bindings& sizes, bool& ok) {
    const std::vector<float> got = session.downloadValues<float>(output);
    const size_t step = std::max<size_t>(1, got.size() / kSamples);
    std::vector<size_t> indices;
    for (size_t i = 0; i < got.size(); i += step) {
        indices.push_back(i);
    }
    if (!got.empty() && indices.back() != got.size() - 1) {
        indices.push_back(got.size() - 1);
    }
    for (size_t i : indices) {
        const double want = spec.reference(sizes, i);
        if (!(std::abs(got[i] - want) <= kTolerance * std::max(1.0, std::abs(want)))) {
            ok = false;
            std::ostringstream text;
            text << "sampled check: FAIL at output " << i << ": got " << got[i] << ", want "
                 << want;
            return text.str();
        }
    }
    ok = true;
    return "sampled check at the timed size: ok (" + std::to_string(indices.size()) + " of " +
           std::to_string(got.size()) + " outputs)";
}

GeneratedRow measure(Timer& timer, const ProgramSpec& spec, size_t size, const std::string& label) {
    GeneratedRow result{{spec.name, "egopt", label, "ERROR", {}, {}}, spec.timed};
    bool interpOk = false;
    result.note += "; " + interpreterCheck(timer.session(), spec, interpOk);
    const arith::Bindings sizes = bindAll(spec, size);
    const Compiled c = compile(spec, sizes);
    KernelCase kernelCase{.name = spec.name,
                          .size = label,
                          .source = c.code.source,
                          .entry = c.code.kernel.name,
                          .options = "",
                          .global = toRange(c.code.kernel.launch, c.code.kernel.launch.global),
                          .local = {},
                          .args = {},
                          .work = workOf(spec, c, sizes),
                          .impl = "egopt"};
    if (!c.code.kernel.launch.driverLocal) {
        kernelCase.local = toRange(c.code.kernel.launch, c.code.kernel.launch.local);
    }
    const runtime::Buffer output = bindArgs(timer.session(), c, kernelCase);
    result.row = benchKernel(timer, kernelCase);
    bool sampledOk = false;
    result.note += "; " + sampledCheck(timer.session(), output, spec, sizes, sampledOk);
    result.row.check = interpOk && sampledOk ? "ok" : "FAIL";
    return result;
}

} // namespace

GeneratedRow benchGenerated(Timer& timer, const ProgramSpec& spec, size_t size,
                            const std::string& label) {
    try {
        return measure(timer, spec, size, label);
    } catch (const std::exception& error) {
        std::string message = error.what();
        if (message.size() > kMaxErrorText) {
            message = message.substr(0, kMaxErrorText) + "...";
        }
        return {{spec.name, "egopt", label, "ERROR", {}, {}}, "error: " + message};
    }
}

} // namespace egopt::bench
