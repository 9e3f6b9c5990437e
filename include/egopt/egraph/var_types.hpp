// The free variables of a class's smallest term with the types its parameter nodes give them:
// what the context check (crossesContexts, match_scope.cpp) compares between a match's classes.
// The e-graph keeps one list per class as an analysis (EGraph::smallestVarTypes); few lists are
// distinct, so each is interned once and a class keeps its 4-byte id.
#pragma once

#include "egopt/egraph/enode.hpp"
#include "egopt/lift/type.hpp"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace egopt::egraph {

// A variable's type where the smallest term gives it two types.
inline constexpr TypeId kMixedType = lift::kNoType - 1;

struct VarType {
    int32_t var; // De Bruijn index, from the class's root
    TypeId type; // or kMixedType
    friend bool operator==(const VarType&, const VarType&) = default;
};

using VarTypesId = uint32_t;

// The lists a reader worked out for classes whose lists the e-graph does not know yet
// (EGraph::smallestVarTypes), by canonical class: valid while the e-graph does not change.
struct VarTypeScratch {
    std::unordered_map<EClassId, std::vector<VarType>> lists;
};

// Interned lists of VarType (sorted by variable): equal lists get equal ids. Id 0 is the empty
// list. Reads are thread-safe while nobody interns.
class VarTypeTable {
public:
    VarTypeTable();
    VarTypesId intern(std::span<const VarType> list);
    // The id of an interned list, or kNotInterned (a read: thread-safe while nobody interns).
    static constexpr VarTypesId kNotInterned = UINT32_MAX;
    VarTypesId find(std::span<const VarType> list) const;
    std::span<const VarType> operator[](VarTypesId id) const {
        return std::span(flat_).subspan(starts_[id], starts_[id + 1] - starts_[id]);
    }
    size_t size() const { return starts_.size() - 1; }
    size_t bytes() const {
        return flat_.capacity() * sizeof(VarType) + (starts_.capacity() + slots_.capacity()) * 4;
    }

private:
    static uint32_t hashOf(std::span<const VarType> list);
    void rehash(size_t count);
    static constexpr uint32_t kNone = UINT32_MAX;
    std::vector<VarType> flat_;    // every list, one after another
    std::vector<uint32_t> starts_; // by id: where its list starts in flat_ (and one past the end)
    std::vector<uint32_t> slots_;  // open addressing over the ids, a power of two, half full
};

} // namespace egopt::egraph
