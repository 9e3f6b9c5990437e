// Helpers of the feature walk (features.cpp) that need no walker: index functions, the buffers a
// kernel stores to, buffer sizes, and the re-reads a cache serves.
#include "detail.hpp"
#include "egopt/support/diagnostic.hpp"

#include <algorithm>

namespace egopt::costmodel::detail {

using codegen::KernelNode;

// The value of an index function (codegen::IndexFunction) at an index already evaluated.
std::optional<int64_t> indexFunction(codegen::IndexFunction::Kind kind, int64_t i, int64_t n) {
    using Kind = codegen::IndexFunction::Kind;
    if (n <= 0) {
        return std::nullopt;
    }
    switch (kind) {
    case Kind::Clamp:
        return std::clamp<int64_t>(i, 0, n - 1);
    case Kind::Wrap:
        return ((i % n) + n) % n;
    case Kind::Mirror: {
        int64_t p = 2 * n, m = ((i % p) + p) % p;
        return m < n ? m : p - 1 - m;
    }
    case Kind::Loaded:
        return std::nullopt; // data-dependent
    }
    return std::nullopt;
}

// The buffers a kernel's statements store to.
void collectWritten(const std::vector<codegen::KernelNode>& nodes, std::set<std::string>& out) {
    for (const auto& n : nodes) {
        for (const auto& a : n.accesses) {
            if (a.write) {
                out.insert(a.buffer);
            }
        }
        collectWritten(n.body, out);
    }
}

bool hasBarrier(const std::vector<codegen::KernelNode>& nodes) {
    return std::any_of(nodes.begin(), nodes.end(),
                       [](const KernelNode& n) { return n.barrier || hasBarrier(n.body); });
}

// Local memory's banks hold consecutive 4-byte words in turn (word w in bank w mod banks).
constexpr int64_t kBankBytes = 4;

double bankConflictPasses(const std::vector<int64_t>& starts, int64_t pieceBytes, int64_t banks) {
    int64_t piece = std::max<int64_t>(1, pieceBytes);
    int64_t nbanks = std::max<int64_t>(1, banks);
    auto perPhase = static_cast<size_t>(
        std::max<int64_t>(1, nbanks * kBankBytes / std::max(piece, kBankBytes)));
    double passes = 0;
    for (size_t first = 0; first < starts.size(); first += perPhase) {
        std::map<int64_t, std::set<int64_t>> wordsByBank;
        size_t most = 1;
        for (size_t l = first; l < std::min(starts.size(), first + perPhase); ++l) {
            for (int64_t w = starts[l] / kBankBytes; w <= (starts[l] + piece - 1) / kBankBytes;
                 ++w) {
                auto& words = wordsByBank[w % nbanks];
                words.insert(w);
                most = std::max(most, words.size());
            }
        }
        passes += static_cast<double>(most - 1);
    }
    return passes;
}

// The size in bytes of each global buffer a kernel reads (an intermediate's from the program's
// list of them); a size that cannot be evaluated is left out.
std::map<std::string, double> bufferBytes(const codegen::KernelInfo& info,
                                          const codegen::GeneratedCode& code,
                                          const arith::Bindings& sizes) {
    std::map<std::string, double> out;
    for (const auto& a : info.args) {
        if (!a.isBuffer) {
            continue;
        }
        bool inter =
            a.intermediate >= 0 && static_cast<size_t>(a.intermediate) < code.intermediates.size();
        const arith::Size& size =
            inter ? code.intermediates[static_cast<size_t>(a.intermediate)].byteSize : a.byteSize;
        try {
            out[a.name] = static_cast<double>(codegen::evaluateSize(size, sizes));
        } catch (const Error&) {
        }
    }
    return out;
}

std::set<std::string> producedEarlier(const codegen::KernelInfo& info, bool fullWarps) {
    std::set<std::string> out;
    for (const auto& a : info.args) {
        if (fullWarps && a.kind == codegen::KernelArg::Kind::Intermediate && !a.writes) {
            out.insert(a.name);
        }
    }
    return out;
}

// Re-reads served by the cache: a buffer of F bytes that the kernel reads R bytes of in all, more
// than F, is fetched from DRAM once; of the other R - F bytes, the share the cache holds of the
// buffer (all of it when F is at most `cacheBytes`, else cacheBytes / F) come from the caches
// (split between coalesced and strided as its reads are). A buffer an earlier kernel produced
// is in the cache already (the L2 keeps what was written last): that share of all R bytes.
void cachedReads(KernelFeatures& k, const ReadsByBuffer& readsByBuffer,
                 const std::map<std::string, double>& bytes, double items, double cacheBytes,
                 const std::set<std::string>& produced) {
    for (const auto& [buffer, reads] : readsByBuffer) {
        auto size = bytes.find(buffer);
        double total = (reads.first + reads.second) * items;
        bool resident = produced.contains(buffer);
        if (size == bytes.end() || size->second <= 0 || (total <= size->second && !resident)) {
            continue;
        }
        double held = std::min(1.0, cacheBytes / size->second);
        double reused = held * (resident ? 1.0 : 1.0 - size->second / total);
        k.cachedReadCoalesced += reused * reads.first * items;
        k.cachedReadStrided += reused * reads.second * items;
    }
}

// A loop the compiler does not unroll completely keeps kRuntimeUnroll of its iterations' reads in
// flight where its trip count depends on the work-item (the loops over a work-group's share of a
// chunk, which start at the local id): the unroll factor of a loop of unknown trip count. A long
// loop of constant trip count (a sequential reduction from 0 to n) is not bounded: H200 runs of
// asum read at 3 TB/s with 256 such work-items per compute unit, more than 4 loads each keep in
// flight (docs/cost-models.md, "Bytes in flight").
constexpr double kRuntimeUnroll = 4;
constexpr int64_t kUnrolledTrips = 16; // features.cpp's kExpandTrips: unrolled completely

void ReadsInFlight::enterLoop(int64_t trips, bool tripsKnown) {
    Context c;
    c.bounded = open_.back().bounded && (trips <= kUnrolledTrips || !tripsKnown);
    c.copies = trips <= kUnrolledTrips ? static_cast<double>(trips) : kRuntimeUnroll;
    open_.push_back(c);
}

void ReadsInFlight::leaveLoop() {
    largest_ = std::max(largest_, open_.back().bytes);
    open_.pop_back();
}

void ReadsInFlight::read(double bytes) {
    Context& c = open_.back();
    unbounded_ = unbounded_ || !c.bounded;
    c.bytes += bytes * c.copies;
}

double ReadsInFlight::bytes() const {
    return unbounded_ ? 0.0 : std::max(largest_, open_.front().bytes);
}

} // namespace egopt::costmodel::detail
