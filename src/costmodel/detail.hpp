// Internal helpers shared by the model files.
#pragma once

#include "egopt/costmodel/costmodel.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

namespace egopt::costmodel::detail {

// The calibration of the first class matching the device (the OpenCL properties filled in).
DeviceProfile profileFrom(const std::vector<Calibration>& classes, const runtime::Device& device);

// Calibration classes to and from JSON; errors name `file`.
nlohmann::json calibrationsToJson(const std::vector<Calibration>& classes);
std::vector<Calibration> calibrationsFromJson(const nlohmann::json& j, const std::string& file);

// Feature values by name from a JSON object (missing names: 0); errors name `where`.
KernelFeatures featuresFromJson(const nlohmann::json& j, const std::string& where);
nlohmann::json featuresToJson(const KernelFeatures& k);

// C operations of a user-function body, counted on the interpreter's C AST (loops with constant
// trip counts multiply their bodies; a branch counts its larger arm); `lanes` scales vector code.
double countOps(const std::string& name, const std::string& body, double lanes);

// The work-group size a driver picks for dimension 0 of a launch without a local size: the
// largest divisor of the global size that is at most `preferred` (launch_shape.cpp).
int64_t driverLocal(int64_t global, double preferred);

// Whether a CPU driver (PoCL) runs the whole NDRange `global` as one work-group.
bool smallRange(const std::array<int64_t, 3>& global, const DeviceProfile& profile);

// The value of an index function (codegen::IndexFunction) at an index already evaluated
// (feature_buffers.cpp; none for an index read from memory).
std::optional<int64_t> indexFunction(codegen::IndexFunction::Kind kind, int64_t i, int64_t n);

// The buffers a kernel's statements store to.
void collectWritten(const std::vector<codegen::KernelNode>& nodes, std::set<std::string>& out);

// Whether a barrier is among the statements (loops and ifs included).
bool hasBarrier(const std::vector<codegen::KernelNode>& nodes);

// The bank-conflict passes of one warp-level access to local memory whose lanes (in warp order)
// start at the byte addresses `starts`, each moving `pieceBytes`: the lanes are served in phases
// of `banks` x 4 bytes (32 lanes of 4 bytes, 8 lanes of 16), each phase in as many passes (its
// ways) as the most distinct 4-byte words that fall into one bank (lanes reading one word share
// it, a broadcast); the passes beyond the first of each phase (0: conflict-free).
double bankConflictPasses(const std::vector<int64_t>& starts, int64_t pieceBytes, int64_t banks);

// The size in bytes of each global buffer a kernel reads; a size that cannot be evaluated is
// left out.
std::map<std::string, double> bufferBytes(const codegen::KernelInfo& info,
                                          const codegen::GeneratedCode& code,
                                          const arith::Bindings& sizes);

// Expected global bytes read per work-item, by buffer: coalesced, strided.
using ReadsByBuffer = std::map<std::string, std::pair<double, double>>;

// The intermediates a kernel reads that an earlier kernel of the program produced, where its
// work-groups fill whole warps (`fullWarps`; else none): narrower groups wait on each read's
// latency wherever the data is, and the DRAM term's per-work-item rate, measured on such groups
// reading partial sums an earlier kernel wrote, is theirs.
std::set<std::string> producedEarlier(const codegen::KernelInfo& info, bool fullWarps);

// Adds to `k` the re-reads the cache serves and the reads of `produced` buffers, which the cache
// holds since an earlier kernel wrote them (docs/cost-models.md, cached_read_*).
void cachedReads(KernelFeatures& k, const ReadsByBuffer& readsByBuffer,
                 const std::map<std::string, double>& bytes, double items, double cacheBytes,
                 const std::set<std::string>& produced);

// The global read bytes a work-item keeps in flight (KernelFeatures::readBytesInFlight), from
// the reads met while walking its body: per loop context (the top level, or a loop walked as one
// multiplied body) the bytes of its reads, each counted for the iterations the compiler keeps in
// flight; loops walked iteration by iteration add their iterations to the enclosing context.
class ReadsInFlight {
public:
    // A loop walked as one body of `trips` iterations; `tripsKnown`: its bounds are constants
    // (the compiler knows its trip count).
    void enterLoop(int64_t trips, bool tripsKnown);
    void leaveLoop();
    void read(double bytes);
    // The largest context's bytes; 0 where a read sits in a loop the bound does not cover.
    double bytes() const;

private:
    struct Context {
        double copies = 1;   // iterations in flight
        bool bounded = true; // false: a long loop of known trip count (not modelled)
        double bytes = 0;
    };
    std::vector<Context> open_{Context{}};
    double largest_ = 0;
    bool unbounded_ = false;
};

} // namespace egopt::costmodel::detail
