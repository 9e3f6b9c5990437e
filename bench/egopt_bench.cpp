// bench/egopt_bench: egopt end to end against CLBlast and the bandwidth limit (docs/benchmarks.md,
// "End to end: egopt vs CLBlast vs copy"). scripts/bench runs the egopt pipeline on each example
// program first; this executable then loads each chosen kernel (the .cl and the report's launch
// plan), times it with the anchors' Timer, checks sampled outputs against a host reference, and
// times next to it, in the same run, CLBlast's routine for the same operation and size (where
// CLBlast has one) and the float4 copy kernel moving the same number of bytes.
#include "blas_rows.hpp"
#include "chosen_kernel.hpp"
#include "cli.hpp"
#include "codegen_report.hpp"
#include "egopt/runtime/device.hpp"
#include "egopt_refs.hpp"

#include <clblast_c.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace egopt::bench {
namespace {

constexpr const char* kUsage =
    R"(usage: egopt_bench --dir DIR [--device D] [--runs R] [--warmup W] [--filter S] [--csv] CASE...
  CASE         TAG:PROGRAM:VAR=V,VAR=V: the egopt outputs DIR/TAG/PROGRAM.cl and
               DIR/TAG/PROGRAM.report.json of examples/PROGRAM.lift at these sizes, and
               DIR/TAG/status (scripts/bench's note on the egopt run)
  --dir DIR    where scripts/bench wrote the egopt outputs
  --device D   device index or name substring (as for `egopt devices`); default: PoCL
  --runs R     timed runs per row (default 10); the median is reported
  --warmup W   untimed runs before them (default 2)
  --filter S   only cases whose tag contains S
  --csv        kernel,device,egopt_gbps,clblast_gbps,copy_gbps; then GFLOP/s for mm
  (--quick and --size are accepted and ignored: scripts/bench picks the sizes)
)";

constexpr size_t kCheckSamples = 1024;

struct Case {
    std::string tag;
    std::string program;
    SizeMap sizes;
};

struct Args {
    Options options;
    std::string dir;
    std::vector<Case> cases;
};

// The three rows of one case and the notes that explain them.
struct CaseResult {
    std::string tag;
    ComparedRow egopt;
    std::optional<ComparedRow> blast;
    std::optional<ComparedRow> copy;
};

Case parseCase(const std::string& text) {
    const size_t a = text.find(':');
    const size_t b = a == std::string::npos ? a : text.find(':', a + 1);
    if (b == std::string::npos) {
        throw Error(ErrorKind::BadInput, "bad case '" + text + "'\n" + kUsage);
    }
    Case c{text.substr(0, a), text.substr(a + 1, b - a - 1), {}};
    std::istringstream sizes(text.substr(b + 1));
    for (std::string item; std::getline(sizes, item, ',');) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos) {
            throw Error(ErrorKind::BadInput, "bad size '" + item + "' in case '" + text + "'");
        }
        c.sizes[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    }
    return c;
}

// --dir and the cases are ours; everything else goes to the shared parser.
Args parseArgs(int argc, char** argv) {
    Args args;
    std::vector<char*> forwarded{argv[0]};
    const std::vector<std::string> valued{"--device", "--size", "--runs", "--warmup", "--filter"};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--dir" && i + 1 < argc) {
            args.dir = argv[++i];
        } else if (std::find(valued.begin(), valued.end(), arg) != valued.end() && i + 1 < argc) {
            forwarded.push_back(argv[i]);
            forwarded.push_back(argv[++i]);
        } else if (arg.starts_with("-")) {
            forwarded.push_back(argv[i]);
        } else {
            args.cases.push_back(parseCase(arg));
        }
    }
    args.options = parseOptions(static_cast<int>(forwarded.size()), forwarded.data(), kUsage);
    if (args.dir.empty()) {
        throw Error(ErrorKind::BadInput, std::string("--dir is required\n") + kUsage);
    }
    return args;
}

size_t size(const Case& c, const char* name) {
    return static_cast<size_t>(c.sizes.at(name));
}

// "1M", "4096x4096", "256x256x256": every size, in name order (programs here are square).
std::string sizeLabel(const Case& c) {
    if (c.sizes.size() == 1) {
        return formatCount(static_cast<size_t>(c.sizes.begin()->second));
    }
    std::string label;
    for (const auto& [name, value] : c.sizes) {
        label += (label.empty() ? "" : "x") + std::to_string(value);
    }
    return label;
}

std::string readStatus(const std::filesystem::path& dir) {
    std::ifstream in(dir / "status");
    std::string line;
    return std::getline(in, line) ? line : "no status (egopt not run?)";
}

std::vector<ParamValue> makeParams(runtime::Session& session, const ChosenKernel& chosen) {
    std::vector<ParamValue> params(chosen.paramBytes.size());
    for (size_t p = 0; p < params.size(); ++p) {
        if (chosen.paramIsBuffer[p]) {
            params[p].buffer = uploadPattern(session, chosen.paramBytes[p] / 4, paramSeed(p));
        } else {
            params[p].scalar = scalarValue(p);
        }
    }
    return params;
}

Work egoptWork(const Case& c, const ChosenKernel& chosen) {
    Work work = streamWork(compulsoryBytes(chosen));
    if (c.program == "mm") {
        work.flops = 2.0 * double(size(c, "M")) * double(size(c, "N")) * double(size(c, "K"));
        work.computeBound = true;
    }
    return work;
}

// Times the chosen kernel sequence and checks its output; the note says what was timed.
Row egoptRow(Timer& timer, const Case& c, const std::filesystem::path& dir, std::string& note) {
    const ChosenKernel chosen =
        loadChosen(dir / (c.program + ".report.json"), dir / (c.program + ".cl"));
    runtime::Session& session = timer.session();
    const BoundPlan plan(session, chosen, makeParams(session, chosen));
    Row row{c.program, "egopt", sizeLabel(c), "-", egoptWork(c, chosen), {}};
    row.samples = timer.measure([&](cl_command_queue queue) { return plan.enqueue(queue); });
    note += std::to_string(chosen.kernels.size()) + " kernel(s), pipeline median " +
            formatFixed(chosen.pipelineSeconds * 1e3, 3) + " ms; ";
    if (const ProgramRef* ref = findReference(c.program)) {
        bool ok = false;
        note += "check: " + sampledCheck(session, plan.output(), chosen.outputBytes / 4, *ref,
                                         c.sizes, kCheckSamples, ok);
        row.check = ok ? "ok" : "FAIL";
    }
    note += "; " + chosen.expression.substr(0, 160);
    return row;
}

// y = alpha A x + beta B x as CLBlast computes it: sgemv into y, then sgemv accumulating into y.
Row blasGesummv(Timer& timer, size_t n, size_t k) {
    runtime::Session& session = timer.session();
    const runtime::Buffer a = uploadPattern(session, n * k, 1);
    const runtime::Buffer b = uploadPattern(session, n * k, 2);
    const runtime::Buffer x = uploadPattern(session, k, 3);
    const runtime::Buffer y = session.allocate(n * sizeof(float));
    auto gemv = [&](cl_command_queue* q, cl_event* e, const runtime::Buffer& m, float alpha,
                    float beta) {
        const CLBlastStatusCode status =
            CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, n, k, alpha, m.get(), 0, k,
                         x.get(), 0, 1, beta, y.get(), 0, 1, q, e);
        if (status != CLBlastSuccess) {
            throw Error(ErrorKind::Internal, "CLBlastSgemv failed: " + std::to_string(status));
        }
    };
    auto enqueue = [&](cl_command_queue queue) {
        cl_event first = nullptr;
        gemv(&queue, &first, a, 0.75f, 0.0f);
        runtime::Handle<cl_event> firstEvent(first);
        cl_event second = nullptr;
        gemv(&queue, &second, b, 0.5f, 1.0f);
        return runtime::Handle<cl_event>(second);
    };
    const double bytes = (2.0 * double(n) * double(k) + double(k) + double(n)) * 4;
    Row row{"2x sgemv", "clblast",         std::to_string(n) + "x" + std::to_string(k),
            "-",        streamWork(bytes), {}};
    row.samples = timer.measure(enqueue);
    return row;
}

// CLBlast's routine for the case's operation, or nothing (blackscholes, nbody, jacobi3).
std::optional<Row> blastRow(Timer& timer, const Case& c) {
    const std::string& p = c.program;
    if (p == "scal" || p == "asum" || p == "dot") {
        const VectorData data = makeVectors(timer.session(), size(c, "N"));
        return p == "scal"   ? blasScal(timer, data)
               : p == "asum" ? blasAsum(timer, data)
                             : blasDot(timer, data);
    }
    if (p == "gemv" && size(c, "M") == size(c, "N")) {
        return blasGemv(timer, size(c, "N"));
    }
    if (p == "gesummv") {
        return blasGesummv(timer, size(c, "N"), size(c, "K"));
    }
    if (p == "mm") {
        return blasGemm(timer, size(c, "M"), size(c, "N"), size(c, "K"));
    }
    return std::nullopt;
}

// The copy kernel moving `bytes` (half read, half written), rounded up to its 1024-float unit.
Row copyRow(Timer& timer, double bytes) {
    const size_t floats = static_cast<size_t>(bytes / 8);
    const size_t n = std::max<size_t>(1024, (floats + 1023) / 1024 * 1024);
    return copyKernel(timer, makeVectors(timer.session(), n));
}

class Bench {
public:
    Bench(runtime::Session& session, const Args& args)
        : args_(args), timer_(session, args.options.timing) {}

    std::vector<CaseResult> run() {
        std::vector<CaseResult> results;
        for (const Case& c : args_.cases) {
            if (c.tag.find(args_.options.filter) != std::string::npos) {
                results.push_back(runCase(c));
            }
        }
        return results;
    }

    const std::vector<Note>& notes() const { return notes_; }

private:
    CaseResult runCase(const Case& c) {
        CaseResult result{c.tag, {}, std::nullopt, std::nullopt};
        const std::filesystem::path dir = std::filesystem::path(args_.dir) / c.tag;
        const std::string label = c.tag + " " + sizeLabel(c);
        std::string note = "egopt: " + readStatus(dir) + "; ";
        std::cerr << "running " << label << " (egopt)...\n";
        result.egopt.row = guarded(
            Row{c.program, "egopt", sizeLabel(c), "ERROR", {}, {}},
            [&] { return egoptRow(timer_, c, dir, note); }, note);
        notes_.push_back({label, note});
        std::cerr << "running " << label << " (clblast)...\n";
        std::string blastNote;
        if (std::optional<Row> blast = guardedBlast(c, blastNote)) {
            result.blast = ComparedRow{*blast, "-", "-"};
        }
        const double bytes = result.egopt.row.work.bytes > 0 ? result.egopt.row.work.bytes
                             : result.blast                  ? result.blast->row.work.bytes
                                                             : 0;
        if (bytes > 0) {
            std::cerr << "running " << label << " (copy)...\n";
            result.copy = ComparedRow{copyRow(timer_, bytes), "100%", "-"};
            fillRatios(result);
        }
        return result;
    }

    template <typename Body>
    Row guarded(Row failed, Body body, std::string& note) {
        try {
            return body();
        } catch (const std::exception& error) {
            note += std::string("error: ") + error.what();
            return failed;
        }
    }

    std::optional<Row> guardedBlast(const Case& c, std::string& note) {
        try {
            return blastRow(timer_, c);
        } catch (const std::exception& error) {
            note = error.what();
            notes_.push_back({c.tag + " clblast", note});
            return Row{c.program, "clblast", sizeLabel(c), "ERROR", {}, {}};
        }
    }

    static void fillRatios(CaseResult& r) {
        r.egopt.vsCopy = percentOfCopy(r.egopt.row, r.copy->row);
        if (r.blast) {
            r.blast->vsCopy = percentOfCopy(r.blast->row, r.copy->row);
            r.egopt.vsBlast = timesFaster(r.egopt.row, r.blast->row);
        }
    }

    const Args& args_;
    Timer timer_;
    std::vector<Note> notes_;
};

std::string rate(const std::optional<ComparedRow>& r, bool flops) {
    if (!r || r->row.samples.deviceNs.empty()) {
        return "";
    }
    const double amount = flops ? r->row.work.flops : r->row.work.bytes;
    return formatFixed(gigaPerSecond(amount, r->row.samples.deviceNs), 3);
}

void printCsv(std::ostream& out, const std::vector<CaseResult>& results, std::string device) {
    std::replace(device.begin(), device.end(), ',', ' ');
    out << "kernel,device,egopt_gbps,clblast_gbps,copy_gbps\n";
    for (const CaseResult& r : results) {
        out << r.tag << ',' << device << ',' << rate(r.egopt, false) << ',' << rate(r.blast, false)
            << ',' << rate(r.copy, false) << '\n';
    }
    out << "\nkernel,device,egopt_gflops,clblast_gflops\n";
    for (const CaseResult& r : results) {
        if (r.egopt.row.work.computeBound || (r.blast && r.blast->row.work.computeBound)) {
            out << r.tag << ',' << device << ',' << rate(r.egopt, true) << ','
                << rate(r.blast, true) << '\n';
        }
    }
}

int run(int argc, char** argv) {
    const Args args = parseArgs(argc, argv);
    const runtime::Device device = runtime::selectDevice(args.options.device);
    runtime::Session session(device);
    Bench bench(session, args);
    const std::vector<CaseResult> results = bench.run();
    if (args.options.csv) {
        printCsv(std::cout, results, device.name);
        return kExitOk;
    }
    Comparison comparison;
    for (const CaseResult& r : results) {
        comparison.rows.push_back(r.egopt);
        for (const auto* extra : {&r.blast, &r.copy}) {
            if (*extra) {
                comparison.rows.push_back(**extra);
            }
        }
    }
    comparison.notes = bench.notes();
    printHeader(std::cout, device, args.options);
    printComparison(std::cout, comparison);
    return kExitOk;
}

} // namespace
} // namespace egopt::bench

int main(int argc, char** argv) {
    return egopt::bench::runMain("egopt_bench", [&] { return egopt::bench::run(argc, argv); });
}
