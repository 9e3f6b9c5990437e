// The recorded applications of composition rules (runner.hpp, Applications).
#include "egopt/egraph/runner.hpp"

#include <algorithm>

namespace egopt::egraph {

const Applications::Instances& Applications::of(const std::string& rule) const {
    static const Instances kNone;
    for (const Entry& e : rhs) {
        if (e.rule == rule) {
            return e.instances;
        }
    }
    return kNone;
}

namespace {

// A right-hand side that uses OpenCL patterns (Applications: a schedule).
bool schedule(const Rule& rule) {
    if (!rule.rhs) {
        return false;
    }
    return std::any_of(rule.rhs->nodes.begin(), rule.rhs->nodes.end(), [](const PatNode& n) {
        switch (n.kind == PatNode::Kind::Node ? n.op : lift::Op::Map) {
        case lift::Op::MapGlb:
        case lift::Op::MapWrg:
        case lift::Op::MapLcl:
        case lift::Op::MapSeq:
        case lift::Op::ReduceSeq:
        case lift::Op::ToGlobal:
        case lift::Op::ToLocal:
        case lift::Op::ToPrivate:
            return true;
        default:
            return false;
        }
    });
}

} // namespace

void Applications::add(const Rule& rule, std::vector<ENodeId> nodes) {
    for (Entry& e : rhs) {
        if (e.rule == rule.name) {
            e.instances.push_back(std::move(nodes));
            return;
        }
    }
    rhs.push_back({rule.name, schedule(rule), {std::move(nodes)}});
}

} // namespace egopt::egraph
