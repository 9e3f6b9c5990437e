// Storage upkeep of the e-graph (docs/egraph.md, "Data structures" and "Memory"): deduplicating
// the member lists of the classes a rebuild changed, dropping parent-list entries of duplicates,
// compacting the node store and the class slots after a rebuild, and counting the bytes the
// containers hold.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>
#include <optional>
#include <span>

namespace egopt::egraph {

namespace {

// The deduplicated member lists of `classes`, worked out in parallel ranges of classes (reading
// only) and handed to `write(class, opMask, kept or nullopt if unchanged)` in class order, so
// that what `write` changes is the same for any thread count. `members(c)` is a class's list,
// `keeps(n)` whether member n stays (an owner of its form) and `opOf(n)` its operator.
template <typename Members, typename Keeps, typename OpOf, typename Write>
void dedupLists(std::span<const EClassId> classes, Members members, Keeps keeps, OpOf opOf,
                Write write) {
    struct Kept { // a range's classes: masks, and the kept lists of those that changed
        std::vector<uint64_t> masks;
        std::vector<uint32_t> ends; // by class: the end of its list in ids
        std::vector<uint8_t> changed;
        std::vector<ENodeId> ids;
    };
    constexpr size_t kGrain = 256;
    std::vector<Kept> kept((classes.size() + kGrain - 1) / kGrain);
    auto work = [&](size_t chunk) {
        Kept& out = kept[chunk];
        for (size_t i = chunk * kGrain; i < std::min(classes.size(), (chunk + 1) * kGrain); ++i) {
            std::span<const ENodeId> list = members(classes[i]);
            size_t start = out.ids.size();
            uint64_t opMask = 0;
            for (ENodeId n : list) {
                if (keeps(n)) {
                    out.ids.push_back(n);
                    opMask |= opBit(opOf(n));
                }
            }
            auto first = out.ids.begin() + static_cast<ptrdiff_t>(start);
            std::sort(first, out.ids.end());
            out.ids.erase(std::unique(first, out.ids.end()), out.ids.end());
            bool changed = !std::equal(first, out.ids.end(), list.begin(), list.end());
            if (!changed) {
                out.ids.resize(start);
            }
            out.masks.push_back(opMask);
            out.changed.push_back(changed);
            out.ends.push_back(static_cast<uint32_t>(out.ids.size()));
        }
    };
    constexpr size_t kParallel = 1 << 12; // below this, the sequential loop is faster
    if (classes.size() < kParallel) {
        for (size_t chunk = 0; chunk < kept.size(); ++chunk) {
            work(chunk);
        }
    } else {
        tbb::parallel_for(size_t(0), kept.size(), work);
    }
    for (size_t chunk = 0; chunk < kept.size(); ++chunk) {
        const Kept& in = kept[chunk];
        for (size_t j = 0, start = 0; j < in.masks.size(); start = in.ends[j++]) {
            std::optional<std::span<const ENodeId>> list;
            if (in.changed[j]) {
                list = std::span(in.ids).subspan(start, in.ends[j] - start);
            }
            write(classes[chunk * kGrain + j], in.masks[j], list);
        }
    }
}

} // namespace

// Members: one node per canonical form, in id order (deterministic matching order), for the
// classes in dirty_ (merged, or holding a re-canonicalized member), read in parallel.
void EGraph::dedupMembers() {
    rootSet(dirty_);
    dedupLists(
        dirty_, [this](EClassId c) { return membersOf(cls(c)); },
        // An owner of its form is canonical already (rebuild re-canonicalized every parent of
        // a merged class); any other member is a duplicate, outside the hashcons, which reads
        // its owner's node.
        [this](ENodeId n) { return !isDuplicate(n); },
        [this](ENodeId n) { return store_[ref_[n]].node.op; },
        [this](EClassId c, uint64_t opMask, std::optional<std::span<const ENodeId>> kept) {
            ClassSlot& k = cls(c);
            k.setOpMask(opMask);
            if (kept) {
                touchClass(c);
                memberPool_.assign(k.nodes, *kept);
            }
        });
    dirty_.clear();
}

// A duplicate's entry in a parent list matters only to the analysis: propagateAnalysis offers
// each parent's node, with the parent as its `best`, and a duplicate offers its owner's node
// (the same node: it reads it). A duplicate with a larger id than its owner, which is in the
// same lists, never wins the tie on (cost, best), so its entries can go: the analysis and
// repairs (which skip duplicates) are the same without them, and merges count them (`dropped`)
// to pick the same root.
void EGraph::dropParents() {
    rootSet(staleParents_);
    for (EClassId c : staleParents_) {
        IdList& list = cls(c).parents;
        std::span<ENodeId> parents = parentPool_.view(list);
        auto droppable = [&](ENodeId p) { return isDuplicate(p) && p > (ref_[p] & ~kDuplicate); };
        auto kept = std::remove_if(parents.begin(), parents.end(), droppable);
        if (kept != parents.end()) {
            dropped_[c] += static_cast<uint32_t>(parents.end() - kept);
            markDropped(c);
            parentPool_.truncate(list, kept - parents.begin());
        }
    }
    staleParents_.clear();
    staleParents_.shrink_to_fit();
}

// Most parents a rebuild round repairs are canonical already (a merge appends the smaller parent
// list to the larger, whose nodes point at the root that stays). Which ones is read here in
// parallel, before the repairs in order, so that those skip reading the node, its reference and
// its children's union-find entries (cache misses each); a merge in the repairs takes the hint
// back from the nodes over the class it absorbs, and releasing a duplicate from that node. The
// repairs do what they did without hints, so the e-graph is the same for any thread count.
void EGraph::hintRepairs(const std::vector<EClassId>& todo) {
    constexpr size_t kParallel = 1 << 12; // parents; below this, hints cost more than they save
    if (tbb::this_task_arena::max_concurrency() == 1) {
        return;
    }
    std::vector<ENodeId> parents;
    for (EClassId c : todo) {
        std::span<const ENodeId> ps = parentsOf(cls(findConst(c)));
        parents.insert(parents.end(), ps.begin(), ps.end());
    }
    if (parents.size() < kParallel) {
        return;
    }
    repairHint_.assign(parent_.size(), 0);
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, parents.size(), 4096),
        [&](const tbb::blocked_range<size_t>& r) {
            for (size_t i = r.begin(); i < r.end(); ++i) {
                ENodeId p = parents[i];
                if (isDuplicate(p)) {
                    continue;
                }
                const ChildList& kids = store_[ref_[p]].node.children;
                if (std::all_of(kids.begin(), kids.end(), [&](EClassId k) { return isRoot(k); })) {
                    // A node in two lists is hinted twice, with the same value.
                    std::atomic_ref<uint8_t>(repairHint_[p]).store(1, std::memory_order_relaxed);
                }
            }
        });
}

// Rebuilding's work lists hold up to millions of ids after a large apply phase. Roots are found
// without path compression (findConst: the union-find's inner links are not observable) and the
// ids sorted in parallel, or, when the list is long beside the ids' range, marked in a bitmap
// read back in order (no sort); the set is the same either way and for any thread count.
void EGraph::rootSet(std::vector<EClassId>& ids) const {
    constexpr size_t kParallel = 1 << 14; // below this, the sequential loop is faster
    if (ids.size() < kParallel) {
        for (EClassId& c : ids) {
            c = findConst(c);
        }
    } else {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, ids.size(), 4096),
                          [&](const tbb::blocked_range<size_t>& r) {
                              for (size_t i = r.begin(); i < r.end(); ++i) {
                                  ids[i] = findConst(ids[i]);
                              }
                          });
    }
    // A bit per id costs less than sorting once the list holds an id per 64 or more.
    if (64 * ids.size() >= parent_.size()) {
        std::vector<uint64_t> bits((parent_.size() + 63) / 64, 0);
        for (EClassId c : ids) {
            bits[c / 64] |= uint64_t(1) << (c % 64);
        }
        ids.clear();
        for (size_t w = 0; w < bits.size(); ++w) {
            for (uint64_t b = bits[w]; b != 0; b &= b - 1) {
                ids.push_back(
                    static_cast<EClassId>(64 * w + static_cast<size_t>(std::countr_zero(b))));
            }
        }
        return;
    }
    if (ids.size() < kParallel) {
        std::sort(ids.begin(), ids.end());
    } else {
        tbb::parallel_sort(ids.begin(), ids.end());
    }
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// The live nodes slide down over the holes, in order: the store stays in id order, so the
// members of a class, which are often added close together, are close together in memory.
void EGraph::compactStore() {
    std::vector<uint32_t> moved(store_.size(), NodeTable::kNone);
    uint32_t to = 0;
    for (uint32_t from = 0; from < store_.size(); ++from) {
        if (store_[from].id == kHole) {
            continue;
        }
        if (to != from) {
            store_[to] = std::move(store_[from]);
            ref_[store_[to].id] = to;
        }
        moved[from] = to++;
    }
    store_.truncate(to);
    memo_.remap(moved);
    holes_ = 0;
}

void EGraph::compactClasses() {
    decltype(classes_) live;
    for (EClassId c = 0; c < parent_.size(); ++c) {
        if (isRoot(c)) {
            uint32_t slot = static_cast<uint32_t>(live.size());
            live.push_back(std::move(cls(c)));
            parent_[c] = kRoot | slot;
        }
    }
    classes_ = std::move(live);
    freeSlots_.clear();
    freeSlots_.shrink_to_fit();
}

// Not counted: absorbedParent_, dataChanged_ and staleParents_, transients of the apply phase and
// rebuild; varTypes_ and unsettled_, which one thread settles at other times than several.
EGraph::MemoryParts EGraph::memoryParts() const {
    auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    MemoryParts m;
    m.nodes = store_.bytes() + heapChildBytes_;
    m.ids = parent_.bytes() + ref_.bytes();
    // dropped_: a bucket pointer each, and a node (key, count, link) per entry.
    size_t droppedBytes = dropped_.bucket_count() * sizeof(void*) +
                          dropped_.size() * (sizeof(std::pair<EClassId, uint32_t>) + sizeof(void*));
    size_t largeCostBytes =
        largeCosts_.bucket_count() * sizeof(void*) +
        largeCosts_.size() * (sizeof(std::pair<EClassId, uint64_t>) + sizeof(void*));
    m.classes =
        classes_.bytes() + vec(freeSlots_) + shapes_.bytes() + droppedBytes + largeCostBytes;
    m.hashcons = memo_.bytes();
    m.members = memberPool_.bytes();
    m.parents = parentPool_.bytes();
    m.other = attrs_.bytes() + vec(orig_) + vec(proof_) + vec(copyOrigins_);
    for (const auto& edges : proof_) {
        m.other += vec(edges);
    }
    return m;
}

size_t EGraph::memoryBytes() const {
    if (bytesAt_ == changes_) {
        return bytes_;
    }
    bytes_ = memoryParts().total();
    bytesAt_ = changes_;
    return bytes_;
}

} // namespace egopt::egraph
