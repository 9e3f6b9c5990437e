// Loading egopt's chosen kernel from the pipeline's outputs and binding its launch plan to device
// buffers. The plan's JSON format is codegen::GeneratedCode::launchJson (src/codegen/gen_plan.cpp);
// the report embeds it as the chosen candidate's "launch".
#include "chosen_kernel.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace egopt::bench {

using nlohmann::json;

namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(ErrorKind::BadInput, "cannot read '" + path + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Sizes are numbers at bound sizes and Lift expressions ("N/^128") otherwise.
size_t number(const json& value, const std::string& what) {
    if (!value.is_number_unsigned() && !value.is_number_integer()) {
        throw Error(ErrorKind::BadInput, what + " is not a number: " + value.dump());
    }
    return value.get<size_t>();
}

runtime::NDRange range(const json& sizes, const std::string& what) {
    std::vector<size_t> s;
    for (const json& v : sizes) {
        s.push_back(number(v, what));
    }
    switch (s.size()) {
    case 1:
        return {s[0]};
    case 2:
        return {s[0], s[1]};
    case 3:
        return {s[0], s[1], s[2]};
    default:
        throw Error(ErrorKind::BadInput, what + " has " + std::to_string(s.size()) + " dimensions");
    }
}

PlanArg::Kind argKind(const std::string& kind) {
    static const std::map<std::string, PlanArg::Kind> kinds = {
        {"input", PlanArg::Kind::Input},
        {"output", PlanArg::Kind::Output},
        {"temp", PlanArg::Kind::Temp},
        {"intermediate", PlanArg::Kind::Intermediate},
        {"size", PlanArg::Kind::Size}};
    auto it = kinds.find(kind);
    if (it == kinds.end()) {
        throw Error(ErrorKind::BadInput, "unknown argument kind '" + kind + "'");
    }
    return it->second;
}

PlanArg parseArg(const json& a) {
    PlanArg arg;
    arg.kind = argKind(a.at("kind").get<std::string>());
    arg.name = a.at("name").get<std::string>();
    if (arg.kind == PlanArg::Kind::Size) {
        arg.buffer = false;
        return arg;
    }
    arg.bytes = number(a.at("bytes"), "the size of argument " + arg.name);
    if (arg.kind == PlanArg::Kind::Input) {
        arg.param = a.at("param").get<int>();
        arg.buffer = a.at("buffer").get<bool>();
    }
    if (arg.kind == PlanArg::Kind::Intermediate) {
        arg.intermediate = a.at("buffer_index").get<int>();
    }
    return arg;
}

PlanKernel parseKernel(const json& k) {
    PlanKernel kernel;
    kernel.name = k.at("kernel").get<std::string>();
    kernel.global = range(k.at("global"), "the global size of " + kernel.name);
    if (!k.at("local").is_null()) {
        kernel.local = range(k.at("local"), "the local size of " + kernel.name);
    }
    for (const json& a : k.at("args")) {
        kernel.args.push_back(parseArg(a));
    }
    return kernel;
}

// Parameter sizes and the output size, from the arguments of every kernel.
void collectBuffers(ChosenKernel& chosen) {
    for (const PlanKernel& k : chosen.kernels) {
        for (const PlanArg& a : k.args) {
            if (a.kind == PlanArg::Kind::Output) {
                chosen.outputBytes = a.bytes;
            } else if (a.kind == PlanArg::Kind::Input) {
                const size_t p = static_cast<size_t>(a.param);
                chosen.paramBytes.resize(std::max(chosen.paramBytes.size(), p + 1), 0);
                chosen.paramIsBuffer.resize(chosen.paramBytes.size(), true);
                chosen.paramBytes[p] = a.bytes;
                chosen.paramIsBuffer[p] = a.buffer;
            }
        }
    }
}

void parsePlan(ChosenKernel& chosen, const json& launch) {
    for (const json& k : launch.at("kernels")) {
        chosen.kernels.push_back(parseKernel(k));
    }
    for (const json& m : launch.at("intermediates")) {
        chosen.intermediateBytes.push_back(number(m.at("bytes"), "intermediate buffer size"));
    }
    collectBuffers(chosen);
}

} // namespace

ChosenKernel loadChosen(const std::string& reportPath, const std::string& clPath) {
    const json report = json::parse(readFile(reportPath));
    const json& chosenEntry = report.at("chosen");
    if (chosenEntry.is_null()) {
        throw Error(ErrorKind::BadInput, reportPath + " has no chosen kernel");
    }
    const json& candidate = report.at("candidates").at(chosenEntry.at("index").get<size_t>());
    ChosenKernel chosen;
    chosen.source = readFile(clPath);
    chosen.sizes = report.at("input").at("sizes").get<std::map<std::string, int64_t>>();
    chosen.expression = candidate.at("lowered_expression").get<std::string>();
    chosen.pipelineSeconds = candidate.at("median_seconds").get<double>();
    parsePlan(chosen, candidate.at("launch"));
    return chosen;
}

double compulsoryBytes(const ChosenKernel& chosen) {
    double bytes = static_cast<double>(chosen.outputBytes);
    for (size_t p = 0; p < chosen.paramBytes.size(); ++p) {
        bytes += chosen.paramIsBuffer[p] ? static_cast<double>(chosen.paramBytes[p]) : 0.0;
    }
    return bytes;
}

BoundPlan::BoundPlan(runtime::Session& session, const ChosenKernel& chosen,
                     const std::vector<ParamValue>& params)
    : session_(session), plans_(chosen.kernels) {
    output_ = session.allocate(std::max<size_t>(chosen.outputBytes, 4));
    for (size_t bytes : chosen.intermediateBytes) {
        intermediates_.push_back(session.allocate(std::max<size_t>(bytes, 4)));
    }
    for (const PlanKernel& plan : plans_) {
        kernels_.push_back(session.build(chosen.source, plan.name));
        setArgs(kernels_.back(), plan, params, chosen);
        kernels_.back().requireAllArgsSet();
    }
}

void BoundPlan::setArgs(runtime::Kernel& kernel, const PlanKernel& plan,
                        const std::vector<ParamValue>& params, const ChosenKernel& chosen) {
    for (size_t i = 0; i < plan.args.size(); ++i) {
        const PlanArg& a = plan.args[i];
        const auto index = static_cast<cl_uint>(i);
        switch (a.kind) {
        case PlanArg::Kind::Input: {
            const ParamValue& value = params.at(static_cast<size_t>(a.param));
            a.buffer ? kernel.setArg(index, value.buffer) : kernel.setArg(index, value.scalar);
            break;
        }
        case PlanArg::Kind::Output:
            kernel.setArg(index, output_);
            break;
        case PlanArg::Kind::Temp:
            temps_.push_back(session_.allocate(std::max<size_t>(a.bytes, 4)));
            kernel.setArg(index, temps_.back());
            break;
        case PlanArg::Kind::Intermediate:
            kernel.setArg(index, intermediates_.at(static_cast<size_t>(a.intermediate)));
            break;
        case PlanArg::Kind::Size:
            // Symbolic plans take each unbound size variable as an int argument named after it.
            kernel.setArg(index, static_cast<int32_t>(chosen.sizes.at(a.name)));
            break;
        }
    }
}

runtime::Handle<cl_event> BoundPlan::enqueue(cl_command_queue queue) const {
    runtime::Handle<cl_event> last;
    for (size_t k = 0; k < kernels_.size(); ++k) {
        const runtime::NDRange& global = plans_[k].global;
        const runtime::NDRange& local = plans_[k].local;
        cl_event event = nullptr;
        const size_t* localSizes = local.dims == 0 ? nullptr : local.sizes.data();
        // The queue is in order, so each kernel sees the intermediates its predecessors wrote.
        runtime::checkCl(clEnqueueNDRangeKernel(queue, kernels_[k].get(), global.dims, nullptr,
                                                global.sizes.data(), localSizes, 0, nullptr,
                                                &event),
                         "clEnqueueNDRangeKernel(" + plans_[k].name + ")");
        last = runtime::Handle<cl_event>(event);
    }
    return last;
}

} // namespace egopt::bench
