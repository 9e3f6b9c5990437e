// The smallest term's variable types (var_types.hpp) as an analysis: kept per class, settled
// on demand, and unsettled where a merge or a smaller term may change them. The check that
// reads them (crossesContexts) then costs a lookup per class instead of a walk over the
// smallest terms, with the same answers: a settled list is always the one the term gives now.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <oneapi/tbb/parallel_for.h>

namespace egopt::egraph {

VarTypeTable::VarTypeTable() : starts_{0} {
    rehash(64);
    intern({});
}

uint32_t VarTypeTable::hashOf(std::span<const VarType> list) {
    uint64_t h = list.size();
    auto mix = [&h](uint32_t v) { h = (h ^ v) * 0x9e3779b97f4a7c15ULL; };
    for (const VarType& v : list) {
        mix(static_cast<uint32_t>(v.var));
        mix(v.type);
    }
    return static_cast<uint32_t>(h ^ (h >> 32));
}

void VarTypeTable::rehash(size_t count) {
    slots_.assign(count, kNone);
    size_t mask = count - 1;
    for (VarTypesId id = 0; id < size(); ++id) {
        size_t i = hashOf((*this)[id]) & mask;
        while (slots_[i] != kNone) {
            i = (i + 1) & mask;
        }
        slots_[i] = id;
    }
}

VarTypesId VarTypeTable::find(std::span<const VarType> list) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(list) & mask; slots_[i] != kNone; i = (i + 1) & mask) {
        std::span<const VarType> known = (*this)[slots_[i]];
        if (std::equal(known.begin(), known.end(), list.begin(), list.end())) {
            return slots_[i];
        }
    }
    return kNotInterned;
}

VarTypesId VarTypeTable::intern(std::span<const VarType> list) {
    size_t mask = slots_.size() - 1;
    size_t i = hashOf(list) & mask;
    for (; slots_[i] != kNone; i = (i + 1) & mask) {
        std::span<const VarType> known = (*this)[slots_[i]];
        if (std::equal(known.begin(), known.end(), list.begin(), list.end())) {
            return slots_[i];
        }
    }
    auto id = static_cast<VarTypesId>(size());
    flat_.insert(flat_.end(), list.begin(), list.end());
    starts_.push_back(static_cast<uint32_t>(flat_.size()));
    slots_[i] = id;
    if (2 * size() > slots_.size()) {
        rehash(2 * slots_.size());
    }
    return id;
}

namespace {

void addVar(std::vector<VarType>& vars, int32_t v, TypeId t) {
    auto it = std::lower_bound(vars.begin(), vars.end(), v,
                               [](const VarType& a, int32_t b) { return a.var < b; });
    if (it != vars.end() && it->var == v) {
        it->type = it->type == t ? t : kMixedType;
    } else {
        vars.insert(it, {v, t});
    }
}

} // namespace

// A class's list from its smallest member: a parameter's own type, and its children's lists
// (a lambda binds n.ival variables: its body's index v is v - n.ival outside). nullopt when
// `listOf` does not know a child's list yet.
template <typename ListOf>
std::optional<std::vector<VarType>> EGraph::varTypesFrom(EClassId root, ListOf listOf) const {
    const ENode& n = originalNode(cls(root).best);
    std::vector<VarType> vars;
    if (n.op == Op::Param && !attrOf(n).types.empty()) {
        vars.push_back({n.ival, attrOf(n).types[0]});
    }
    int32_t bound = n.op == Op::Lambda ? n.ival : 0;
    for (EClassId child : n.children) {
        std::optional<std::span<const VarType>> kids = listOf(findConst(child));
        if (!kids) {
            return std::nullopt;
        }
        for (VarType v : *kids) {
            if (v.var >= bound) {
                addVar(vars, v.var - bound, v.type);
            }
        }
    }
    return vars;
}

// Bottom up with a stack (smallest terms can nest deeply): a class is worked out once its
// children are. Costs fall strictly along smallest terms, so the walk has no cycle.
void EGraph::settleVarTypes(EClassId c) {
    std::vector<EClassId> stack{findConst(c)};
    while (!stack.empty()) {
        EClassId top = stack.back();
        if (cls(top).varTypes != kUnsettled) {
            stack.pop_back();
            continue;
        }
        auto list = varTypesFrom(top, [&](EClassId k) -> std::optional<std::span<const VarType>> {
            VarTypesId id = cls(k).varTypes;
            if (id == kUnsettled) {
                stack.push_back(k);
                return std::nullopt;
            }
            return varTypes_[id];
        });
        if (list) {
            cls(top).varTypes = varTypes_.intern(*list);
            stack.pop_back();
        }
    }
}

// Many classes (a planned window after a large rebuild): their lists are worked out in
// parallel, in chunks that each find their classes' roots and keep what they worked out
// (reading only), then kept in chunk and list order. A list is the one the smallest term gives,
// whoever works it out.
void EGraph::settleVarTypes() {
    // Small chunks: a planned window settles a few thousand classes, which chunks of 1,024
    // would leave to a few of the threads.
    constexpr size_t kChunk = 128;
    if (unsettled_.size() < 4 * kChunk) {
        rootSet(unsettled_);
        for (EClassId c : unsettled_) {
            settleVarTypes(c);
        }
        unsettled_.clear();
        return;
    }
    // Each chunk works out its classes' lists and looks them up in the table (few lists are
    // distinct, so nearly all are interned already); only the others are kept, in list order,
    // and interned below in that order, as interning every list in order would number them.
    // The scratch maps are freed on the threads that filled them.
    std::vector<VarTypesId> ids(unsettled_.size());
    std::vector<std::vector<std::pair<size_t, std::vector<VarType>>>> missing(
        (unsettled_.size() + kChunk - 1) / kChunk);
    tbb::parallel_for(size_t(0), missing.size(), [&](size_t chunk) {
        size_t end = std::min(unsettled_.size(), (chunk + 1) * kChunk);
        VarTypeScratch worked;
        auto settled = [this](EClassId k) -> std::optional<std::span<const VarType>> {
            VarTypesId id = cls(k).varTypes;
            if (id == kUnsettled) {
                return std::nullopt;
            }
            return varTypes_[id];
        };
        for (size_t i = chunk * kChunk; i < end; ++i) {
            // The list holds ids that merges have since absorbed, and roots settled since (on
            // demand) or twice: each chunk finds its roots, and a root listed twice gets the
            // same list twice.
            unsettled_[i] = findConst(unsettled_[i]);
            if (cls(unsettled_[i]).varTypes != kUnsettled) {
                ids[i] = kUnsettled; // nothing to write
                continue;
            }
            // Most smallest terms are over settled classes: their list needs no scratch map.
            std::optional<std::vector<VarType>> direct = varTypesFrom(unsettled_[i], settled);
            std::span<const VarType> list = direct ? std::span<const VarType>(*direct)
                                                   : smallestVarTypes(unsettled_[i], worked);
            ids[i] = varTypes_.find(list);
            if (ids[i] == VarTypeTable::kNotInterned) {
                missing[chunk].emplace_back(i, std::vector<VarType>(list.begin(), list.end()));
            }
        }
    });
    for (auto& chunk : missing) {
        for (auto& [i, list] : chunk) {
            ids[i] = varTypes_.intern(list);
        }
    }
    // Every unsettled class is in the list, so keeping the listed ones keeps all.
    for (size_t i = 0; i < unsettled_.size(); ++i) {
        if (ids[i] != kUnsettled) {
            cls(unsettled_[i]).varTypes = ids[i];
        }
    }
    unsettled_.clear();
}

std::span<const VarType> EGraph::smallestVarTypes(EClassId c, VarTypeScratch& scratch) const {
    c = findConst(c);
    if (VarTypesId id = cls(c).varTypes; id != kUnsettled) {
        return varTypes_[id];
    }
    std::vector<EClassId> stack{c};
    while (!stack.empty()) {
        EClassId top = stack.back();
        if (scratch.lists.count(top) != 0) {
            stack.pop_back();
            continue;
        }
        auto list = varTypesFrom(top, [&](EClassId k) -> std::optional<std::span<const VarType>> {
            if (VarTypesId id = cls(k).varTypes; id != kUnsettled) {
                return varTypes_[id];
            }
            if (auto it = scratch.lists.find(k); it != scratch.lists.end()) {
                return std::span<const VarType>(it->second);
            }
            stack.push_back(k);
            return std::nullopt;
        });
        if (list) {
            scratch.lists.emplace(top, std::move(*list));
            stack.pop_back();
        }
    }
    return scratch.lists.at(c);
}

// A class reads `c` where its smallest member has a child in c: that member is in c's parent
// list (or, a duplicate, its owner is, in the same class). An unsettled class's readers are
// unsettled already, so the walk stops there.
void EGraph::unsettleAbove(EClassId c) {
    std::vector<EClassId> stack{c};
    while (!stack.empty()) {
        EClassId x = stack.back();
        stack.pop_back();
        auto visit = [&](std::span<const ENodeId> parents) {
            for (ENodeId p : parents) {
                EClassId pc = findConst(p);
                ClassSlot& k = cls(pc);
                if (k.varTypes == kUnsettled) {
                    continue;
                }
                const auto& kids = originalNode(k.best).children;
                if (std::any_of(kids.begin(), kids.end(),
                                [&](EClassId child) { return findConst(child) == x; })) {
                    k.varTypes = kUnsettled;
                    unsettled_.push_back(pc);
                    stack.push_back(pc);
                }
            }
        };
        visit(parentsOf(cls(x)));
        // The class whose parents rebuild is repairing keeps the rest of its list aside.
        if (repairingOld_ && findConst(repairing_) == x) {
            visit(parentPool_.view(*repairingOld_));
        }
    }
}

// The survivor's smallest term is the winner's, over the same classes: its list is the
// winner's. The classes that read the loser read the survivor from now on.
void EGraph::varTypesBeforeMerge(EClassId a, EClassId b, bool bWins) {
    VarTypesId won = cls(bWins ? b : a).varTypes;
    VarTypesId lost = cls(bWins ? a : b).varTypes;
    if (lost != kUnsettled && lost != won) {
        unsettleAbove(bWins ? a : b);
    }
    // An unsettled winner is in unsettled_ already (by an id whose root is now a).
    cls(a).varTypes = won;
}

void EGraph::varTypesOnNewBest(EClassId c, VarTypesId before) {
    if (before == kUnsettled) {
        return; // its readers are unsettled, and so is it (in unsettled_)
    }
    cls(c).varTypes = kUnsettled;
    settleVarTypes(c);
    if (cls(c).varTypes != before) {
        unsettleAbove(c);
    }
}

} // namespace egopt::egraph
