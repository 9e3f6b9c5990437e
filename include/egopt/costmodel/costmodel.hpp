// Cost models (docs/design.md §7, docs/cost-models.md): features of a generated candidate at
// concrete sizes, device profiles, the analytic and learned models that predict its run time,
// measurement records and fitting, and rank correlation between predicted and measured times.
//
//     auto model = costmodel::loadModel("analytic");        // or "learned", or a file path
//     costmodel::DeviceProfile prof = model->profile(device); // runtime::Device + calibration
//     codegen::GeneratedCode code = codegen::generate(p, info, sizes);
//     costmodel::Features f = costmodel::computeFeatures(code, sizes, prof);
//     double seconds = model->predictSeconds(f, prof);
//     ... run it, then:
//     costmodel::appendRecord("data.jsonl", {prof.name, sizes, text, f, seconds, measured});
//     double tau = costmodel::kendallTau(predicted, measured);
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/codegen/codegen.hpp"
#include "egopt/runtime/device.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace egopt::costmodel {

// ---------------------------------------------------------------------------------------------
// Features (features.cpp, docs/cost-models.md lists them): counts for one kernel launch over the
// whole NDRange. Bytes of global memory are split by how consecutive work-items (dimension 0)
// access them: coalesced (addresses advance by one element, or stay the same) or strided.
struct KernelFeatures {
    std::string name;
    double globalReadCoalesced = 0;  // bytes
    double globalReadStrided = 0;    // bytes
    double globalWriteCoalesced = 0; // bytes
    double globalWriteStrided = 0;   // bytes
    double localBytes = 0;           // bytes read and written in __local memory
    double privateAccesses = 0;      // statements executed on private values (register work)
    double arithOps = 0;             // C operations of user functions, times their executions
    double userFunCalls = 0;         // user-function calls executed
    double workItems = 0;            // global size (product over dimensions)
    double workGroups = 0;           // global / local (driver-chosen local size: see profile)
    double workGroupSize = 0;        // work-items per work-group
    double workPerItem = 0;          // statements executed by the busiest work-item
    double barriers = 0;             // barrier() executions per work-group
    double loopTrips = 0;            // sequential loop iterations of the busiest work-item
    double launches = 1;             // kernel launches (1 per kernel)
    // The parts of globalReadCoalesced / globalReadStrided that re-read a buffer the device's
    // cache holds (DeviceProfile::cacheBytes): beyond the buffer's size, the reads of it come from
    // the caches, not from DRAM (bytes; 0 where the profile models no cache).
    double cachedReadCoalesced = 0;
    double cachedReadStrided = 0;
    // The memory transactions of the global accesses (GPUs): each warp-level access takes one
    // per DeviceProfile::transactionBytes line its lanes touch, per scalar piece of a vector
    // access (a vloadN needs only element alignment, so it runs as N scalar loads); a
    // warp-uniform access takes one per piece. Counted per work-item (a warp's transactions
    // shared by its lanes); 0 where the profile's transactionBytes is 0.
    double globalTransactions = 0;
    // Global reads the busiest work-item executes (a loop-invariant read once per entry of its
    // loop): what it waits on in sequence, each for its latency over the reads the compiled loop
    // keeps in flight (DeviceProfile::readLatency).
    double readsPerItem = 0;
    // The bytes of local memory's bank-conflict passes (GPUs): each warp-level access is served
    // in phases of 128 bytes (32 lanes of 4 bytes, 8 lanes of a float4), each phase in as many
    // passes (ways) as the most distinct 4-byte words one bank holds (DeviceProfile::localBanks;
    // one word read by many lanes is a broadcast); each pass beyond a phase's first counts a
    // phase's 128 bytes, shared by the warp's lanes. 0 where the profile's localBanks is 0.
    double localConflictBytes = 0;
    // Private memory per work-item (KernelInfo::privateBytes): the registers a GPU work-item
    // holds, which bound how many work-items a compute unit keeps in flight. A property of the
    // launch the analytic model reads, not one of the features above (the learned model's
    // inputs and the recorded feature vectors stay as they are).
    double privateBytes = 0;
    // The bytes of global reads a work-item keeps in flight (GPUs; 0: not bounded), which with
    // the work-items in flight bound the DRAM rate a compute unit reaches
    // (DeviceProfile::dramBytesInFlight): a loop-free body's reads, all iterations of a loop the
    // compiler unrolls completely, and a few of a loop whose trip count depends on the work-item
    // (docs/cost-models.md, "Bytes in flight"). Read beside the features, like privateBytes.
    double readBytesInFlight = 0;

    // The features as a vector, in featureNames() order.
    std::vector<double> values() const;
    void setValues(const std::vector<double>& v);
};

// The feature names, in the order of KernelFeatures::values().
const std::vector<std::string>& featureNames();

struct Features {
    std::vector<KernelFeatures> kernels; // in launch order
    KernelFeatures total;                // summed over the kernels (workPerItem etc. too)
};

// ---------------------------------------------------------------------------------------------
// Device profile (profile.cpp): properties queried through OpenCL plus calibrated constants of
// the device class (costmodel/analytic.json).
struct DeviceProfile {
    std::string name;        // device name as OpenCL reports it
    std::string deviceClass; // the calibration entry used, e.g. "pocl-cpu", "nvidia-gpu"
    bool gpu = false;
    double computeUnits = 1;
    double maxWorkGroupSize = 256;
    double localMemBytes = 32768;
    double clockHz = 1e9;
    // Calibrated constants.
    double globalBandwidth = 10e9; // bytes/s for coalesced global traffic
    double stridedPenalty = 4;     // strided bytes cost this many coalesced bytes
    double localBandwidth = 50e9;  // bytes/s of __local traffic
    double flopsPerCuPerCycle = 8; // arithmetic operations per compute unit per cycle
    double stmtsPerCuPerCycle = 1; // generated statements per compute unit per cycle
    double launchOverhead = 5e-6;  // seconds per kernel launch
    double barrierCost = 1e-7;     // seconds per barrier per work-group (serialised per CU)
    double lanes = 8;              // work-items a compute unit runs in lock step (SIMD/warp)
    double driverLocalSize = 64;   // work-group size the driver picks when left to it
    double groupOverhead = 1e-7;   // seconds per work-group scheduled on a compute unit
    // Work-items per compute unit needed to reach full throughput (latency hiding on GPUs);
    // throughput grows linearly up to it from one work-item in flight.
    double saturationItems = 1;
    // Register file per compute unit and the most private bytes a work-item keeps in registers
    // (GPUs; 0 = not modelled): beyond the second a compiler spills to slow memory.
    double registerFileBytes = 0;
    double privateBytesMax = 0;
    // The most bytes one work-item's access moves coalesced with its neighbours' (GPUs; 0 = no
    // limit): NVIDIA's driver splits a wider access (a float8 or float16 vload) into pieces that
    // a warp's neighbours interleave, so it costs what a strided access costs.
    double maxCoalescedBytes = 0;
    // The farthest apart two neighbouring work-items' accesses may start and still coalesce
    // (GPUs; 0: as far as one access moves): a warp's scalar loads 8 to 32 bytes apart fill the
    // same 32-byte sectors, whose other bytes the work-items' next loads read from the L1.
    double coalescedSpanBytes = 0;
    // The unit DRAM and the L2 move (GPUs; 0: not counted): a strided access whose lanes'
    // addresses evaluate counts the bytes of the sectors its warp touches, as coalesced bytes.
    double sectorBytes = 0;
    // The cache that serves re-reads (GPUs; 0 = not modelled): a buffer of at most cacheBytes
    // read more than once is fetched from DRAM once, its other reads come from the caches at
    // cacheBandwidth (bytes/s, per full warp: a partly filled one moves fewer bytes per access).
    double cacheBytes = 0;
    double cacheBandwidth = 0;
    // Work-items per compute unit the cache's bandwidth needs in flight (like saturationItems;
    // 0: saturationItems).
    double cacheSaturationItems = 0;
    // The line one memory transaction of a warp moves (GPUs: an L1 wavefront; 0: transactions are
    // not counted) and the transactions a compute unit serves per cycle.
    double transactionBytes = 0;
    double transactionsPerCuPerCycle = 0;
    // Work-items per compute unit that arithmetic and statements need in flight to issue at full
    // rate (like saturationItems; 0: saturationItems).
    double computeSaturationItems = 0;
    // The least time a work-item takes per global read in sequence, whatever runs beside it (the
    // read's latency over the reads its compiled loop keeps in flight; 0: not modelled): a launch
    // takes at least its busiest work-item's reads (KernelFeatures::readsPerItem) times this.
    double readLatency = 0;
    // The global read bytes a compute unit needs in flight to reach its share of
    // globalBandwidth (GPUs; 0: not modelled): with fewer (work-items in flight times
    // KernelFeatures::readBytesInFlight) DRAM waits in proportion, as with saturationItems.
    double dramBytesInFlight = 0;
    // Local memory's banks of 4-byte words (GPUs; 0: bank conflicts not counted): a warp's
    // access whose lanes hit distinct words of one bank is served in that many passes.
    double localBanks = 0;
};

// Fills the OpenCL-queried fields from `device`; the caller keeps or overrides the constants.
DeviceProfile queryProfile(const runtime::Device& device, DeviceProfile base = {});

// Features of generated code at concrete sizes (every size variable of the code bound).
// Walks each kernel's facts (codegen::KernelFacts, not its text): loops, ifs, memory accesses and
// their byte addresses (coalescing by differencing w.r.t. the work-item id in dimension 0 or the
// innermost loop), function calls (C operations counted on the interpreter's AST of the bodies in
// GeneratedCode::functions), barriers. Throws egopt::Error (BadInput) when a size is missing.
Features computeFeatures(const codegen::GeneratedCode& code, const arith::Bindings& sizes,
                         const DeviceProfile& profile);

// ---------------------------------------------------------------------------------------------
// Models (analytic.cpp, learned.cpp).
class Model {
public:
    virtual ~Model() = default;
    virtual std::string kind() const = 0; // "analytic" or "learned"
    // The file it was loaded from ("" if built in memory).
    virtual std::string source() const { return source_; }
    // The device profile: OpenCL properties plus this model's calibration for the device class.
    virtual DeviceProfile profile(const runtime::Device& device) const = 0;
    // Predicted seconds for one run of the whole kernel sequence.
    virtual double predictSeconds(const Features& f, const DeviceProfile& profile) const = 0;
    virtual std::string toJson() const = 0; // the model file's contents

protected:
    std::string source_;
    friend std::unique_ptr<Model> parseModel(const std::string& text, const std::string& file);
};

// A calibration entry of the analytic model: constants for devices whose name, vendor or type
// matches.
struct Calibration {
    std::string deviceClass;
    std::string match; // substring of "platform|vendor|name|type" (case-insensitive); "" = any
    DeviceProfile constants;
};

class AnalyticModel : public Model {
public:
    explicit AnalyticModel(std::vector<Calibration> classes);
    std::string kind() const override { return "analytic"; }
    DeviceProfile profile(const runtime::Device& device) const override;
    double predictSeconds(const Features& f, const DeviceProfile& profile) const override;
    // One kernel's predicted seconds (launch overhead included).
    double kernelSeconds(const KernelFeatures& k, const DeviceProfile& profile) const;
    std::string toJson() const override;
    const std::vector<Calibration>& classes() const { return classes_; }

private:
    std::vector<Calibration> classes_;
};

// log(seconds) = bias + sum_i weights[i] * log(1 + feature_i) over the summed features.
class LearnedModel : public Model {
public:
    std::vector<std::string> features; // names, a subset of featureNames()
    std::vector<double> weights;       // one per feature
    double bias = 0;
    double ridge = 0;        // the regularisation it was fitted with
    size_t trainedOn = 0;    // records
    std::string deviceClass; // "" = any
    // Device calibrations for profile() (defaults to costmodel/analytic.json's when empty).
    std::vector<Calibration> classes;

    std::string kind() const override { return "learned"; }
    DeviceProfile profile(const runtime::Device& device) const override;
    double predictSeconds(const Features& f, const DeviceProfile& profile) const override;
    std::string toJson() const override;
};

// "analytic" / "learned" (costmodel/NAME.json, found like rules::defaultRulesPath: the working
// directory's costmodel/, then beside the executable and its parents, then the source tree), or a
// path to a model file. Throws egopt::Error (BadInput) naming the file and what was expected.
std::unique_ptr<Model> loadModel(const std::string& nameOrFile);
// Parses a model file's text; `file` names it in errors.
std::unique_ptr<Model> parseModel(const std::string& text, const std::string& file);
// The directory holding the shipped models ("" when none is found).
std::string defaultModelDir();
// Writes model.toJson() to `path` (egopt::Error when it cannot be written).
void saveModel(const Model& model, const std::string& path);

// ---------------------------------------------------------------------------------------------
// Records and fitting (records.cpp, fit.cpp).
struct Record {
    std::string device; // DeviceProfile::name
    arith::Bindings sizes;
    std::string program;        // the candidate's Lift text
    Features features;          // only the totals are stored and read back (per kernel: "kernels")
    double predicted = 0;       // seconds, by the model in use
    double measuredSeconds = 0; // median of the runs
    std::string deviceClass;    // calibration entry ("" if unknown)
    std::string label;          // free text: program file, variant, ...
    // The candidate as front-end text with its tuning values bound ("" if unknown): `program`
    // is the printed term, which the front end does not parse, and names the run's candidate.
    std::string source;
};

// Ranking quality on recorded runs (ranking.cpp). Records are grouped into runs: consecutive
// records of one label and sizes (what one `--record` run appends for one program). A run's
// candidates are its distinct programs, each at its fastest measured configuration with that
// configuration's prediction, as the pipeline's report counts them.
struct RunRanking {
    std::string label;
    arith::Bindings sizes;
    size_t records = 0;
    std::vector<double> measured, recorded, predicted; // per candidate
    double tauRecorded = 0, tauPredicted = 0;          // Kendall's tau-b against measured
    // The measured time of the candidate predicted fastest over the fastest measured one.
    double gapRecorded = 0, gapPredicted = 0;
};
// `predict` gives a record's prediction by the model under test (recorded: Record::predicted).
std::vector<RunRanking> rankRuns(const std::vector<Record>& records,
                                 const std::function<double(const Record&)>& predict);
// The measured time of the candidate with the smallest positive prediction over the smallest
// measured time (1 when the two are the same candidate; 0 when nothing is predicted).
double predictedBestGap(const std::vector<double>& predicted, const std::vector<double>& measured);

// Appends one JSON line to `path` (created if missing).
void appendRecord(const std::string& path, const Record& record);
// Reads a JSONL file; errors name the file and line.
std::vector<Record> readRecords(const std::string& path);
std::string recordToJson(const Record& record);

struct FitOptions {
    double ridge = 1e-3; // L2 penalty on the weights (not the bias), on standardised features
    std::vector<std::string> features; // empty: every feature
};
// Least squares of log(measured) on log(1 + features) with ridge regularisation. Records with a
// non-positive measurement are skipped; BadInput when fewer than 2 remain.
LearnedModel fitLearned(const std::vector<Record>& records, const FitOptions& options = {});

// Calibrates the analytic model's constants for one device (records measured on it, `start`
// holding its OpenCL properties): a coordinate search over the constants on a log scale that
// minimises the mean squared error of log(predicted / measured). Returns the constants found.
DeviceProfile calibrateAnalytic(const std::vector<Record>& records, DeviceProfile start);

// Kendall's tau-b between two equally long sequences (ties in either handled); 0 when undefined
// (fewer than 2 items, or one sequence constant).
double kendallTau(const std::vector<double>& predicted, const std::vector<double>& measured);

} // namespace egopt::costmodel
