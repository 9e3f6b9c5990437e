// Narrowing applications by their applied function (pattern.hpp, FunctionFilter): which rules
// can, and the filter of one search.
#include "egopt/egraph/rewrite.hpp"

#include <algorithm>

namespace egopt::egraph {

namespace {

// The condition pins its class argument: its library entry says which operator the class must
// hold, and its other arguments are numbers or texts (known before the search).
std::optional<uint32_t> pinnedSlot(const Call& cond, const Library& lib) {
    auto it = lib.conditions.find(cond.name);
    if (it == lib.conditions.end() || !it->second.first.requiresOp) {
        return std::nullopt;
    }
    std::optional<uint32_t> slot;
    for (const CallArg& a : cond.args) {
        if (a.kind == CallArg::Kind::Size || (a.kind == CallArg::Kind::Class && slot)) {
            return std::nullopt;
        }
        if (a.kind == CallArg::Kind::Class) {
            slot = a.slot;
        }
    }
    return slot;
}

// Whether every condition in `conds` holds for class `c` (their class argument); nullopt when
// one throws (the search decides such a condition at the end, so it pins nothing).
std::optional<bool> holdsAll(const EGraph& g, const Rule& rule, const Library& lib,
                             const SizeFacts& facts, const std::vector<size_t>& conds, EClassId c) {
    for (size_t i : conds) {
        const Call& call = rule.conditions[i];
        std::vector<ArgValue> args(call.args.size());
        for (size_t k = 0; k < call.args.size(); ++k) {
            args[k].number = call.args[k].number;
            args[k].text = call.args[k].text;
            args[k].eclass = call.args[k].kind == CallArg::Kind::Class ? c : kNoClass;
        }
        try {
            if (!lib.conditions.at(call.name).second(g, facts, args)) {
                return false;
            }
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    return true;
}

} // namespace

std::optional<FunctionPins> functionPins(const Rule& rule, const Library& lib) {
    FunctionPins pins;
    pins.fnSlot.assign(rule.lhs.nodes.size(), -1);
    bool any = false;
    for (const PatNode& n : rule.lhs.nodes) {
        size_t id = static_cast<size_t>(&n - rule.lhs.nodes.data());
        if (n.kind == PatNode::Kind::Node && n.op == Op::Apply && !n.children.empty()) {
            const PatNode& fn = rule.lhs.nodes[n.children[0]];
            if (fn.kind == PatNode::Kind::ClassVar) {
                pins.fnSlot[id] = static_cast<int32_t>(fn.slot);
                any = true;
            }
        }
    }
    if (!any) {
        return std::nullopt;
    }
    pins.pinnedBy.resize(rule.vars.names.size());
    for (size_t i = 0; i < rule.conditions.size(); ++i) {
        if (std::optional<uint32_t> slot = pinnedSlot(rule.conditions[i], lib)) {
            pins.pinnedBy.at(*slot).push_back(i);
        }
    }
    // The filter narrows a search only where ?f is pinned by a condition or bound before a
    // second `?f $` node (associativity); otherwise the operator check rules out as much, and
    // the index's function keys would be built for nothing (`Map(fun(x => ?f $ (?a, x)))`).
    std::vector<size_t> uses(pins.pinnedBy.size(), 0);
    bool narrows = false;
    for (int32_t slot : pins.fnSlot) {
        if (slot >= 0) {
            auto s = static_cast<size_t>(slot);
            narrows = narrows || !pins.pinnedBy[s].empty() || ++uses[s] > 1;
        }
    }
    if (!narrows) {
        return std::nullopt;
    }
    return pins;
}

FunctionFilter makeFunctionFilter(const EGraph& g, const Rule& rule, const Library& lib,
                                  const SizeFacts& facts, const FunctionPins& pins,
                                  const OpIndex& index, std::vector<EClassId>& roots,
                                  std::span<const EClassId>& candidates) {
    FunctionFilter f;
    f.index = &index;
    f.fnSlot = pins.fnSlot;
    f.pinned.assign(pins.pinnedBy.size(), false);
    f.pins.resize(pins.pinnedBy.size());
    for (size_t slot = 0; slot < pins.pinnedBy.size(); ++slot) {
        const std::vector<size_t>& conds = pins.pinnedBy[slot];
        if (conds.empty()) {
            continue;
        }
        // Every pinning condition needs its operator in the class: the first one's suffices.
        Op op = *lib.conditions.at(rule.conditions[conds[0]].name).first.requiresOp;
        bool pinned = true;
        for (EClassId c : index.withOp(op)) { // ascending
            std::optional<bool> holds = holdsAll(g, rule, lib, facts, conds, c);
            pinned = pinned && holds.has_value();
            if (holds.value_or(false)) {
                f.pins[slot].push_back(c);
            }
        }
        f.pinned[slot] = pinned;
        if (!pinned) {
            f.pins[slot].clear();
        }
    }
    candidates = index.candidates(rule.lhs);
    int32_t rootSlot = f.fnSlot[rule.lhs.root];
    if (rootSlot >= 0 && f.pinned[static_cast<size_t>(rootSlot)]) {
        roots.clear();
        for (EClassId fn : f.pins[static_cast<size_t>(rootSlot)]) {
            std::span<const EClassId> applying = index.applying(fn);
            roots.insert(roots.end(), applying.begin(), applying.end());
        }
        std::sort(roots.begin(), roots.end());
        roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
        candidates = roots;
    }
    return f;
}

} // namespace egopt::egraph
