// Kernel boundaries: which top-level computations end a kernel, and what each kernel reads.
#include "stages.hpp"

#include "infer.hpp"

#include <algorithm>
#include <set>

namespace egopt::codegen::detail {

using lift::NodeId;
using lift::Op;

namespace {

bool isComputation(const lift::Program& p, NodeId fun) {
    Op op = p.op(fun);
    if (lift::isMapLike(op)) {
        return !(op == Op::Map && isReadLayout(p, fun)); // a Map of a layout is a view
    }
    switch (op) {
    case Op::UserFun:
    case Op::VectorizeUserFun:
    case Op::Reduce:
    case Op::ReduceSeq:
    case Op::PartRed:
    case Op::Iterate:
    case Op::ScanSeq:
    case Op::ReduceWhileSeq:
    case Op::InsertionSortSeq:
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return true;
    default:
        return false;
    }
}

// Whether applying `fun` yields an array (only arrays are materialised; a top-level scalar,
// e.g. a user function of scalar inputs, is recomputed where it is used).
bool producesArray(const lift::Program& p, NodeId fun) {
    switch (p.op(fun)) {
    case Op::ToGlobal:
    case Op::ToLocal:
    case Op::ToPrivate:
        return producesArray(p, p.child(fun, 0));
    case Op::UserFun:
    case Op::MapVec:
    case Op::VectorizeUserFun:
        return false;
    default:
        return true;
    }
}

// Whether `fun` maps work onto threads (it then needs the whole NDRange of its own kernel).
bool isParallel(const lift::Program& p, NodeId fun) {
    Op op = p.op(fun);
    if (op == Op::MapGlb || op == Op::MapWrg || op == Op::MapLcl) {
        return true;
    }
    auto c = p.children(fun);
    return std::any_of(c.begin(), c.end(), [&](NodeId k) { return isParallel(p, k); });
}

struct Frontier {
    NodeId node;
    bool parallel;
    bool array;
};

class Planner {
public:
    explicit Planner(const lift::Program& p) : p_(p) {}

    // The top-level computations whose values reach `e` through data-layout patterns only.
    std::vector<Frontier> visit(NodeId e) {
        if (p_.op(e) != Op::Apply) {
            return {};
        }
        auto c = p_.children(e);
        NodeId fun = c[0];
        std::vector<Frontier> args;
        for (size_t i = 1; i < c.size(); ++i) {
            auto f = visit(c[i]);
            args.insert(args.end(), f.begin(), f.end());
        }
        if (p_.op(fun) == Op::Lambda) {
            materialise(args, true);
            plan.lets.push_back(e);
            return visit(p_.lambdaBody(fun));
        }
        if (!isComputation(p_, fun)) {
            return args;
        }
        bool parallel = isParallel(p_, fun);
        if (p_.op(fun) == Op::Iterate && parallel) {
            // Each iteration would need a kernel of its own (global synchronisation).
            failAt(p_, fun,
                   "a top-level Iterate of a parallel function needs one kernel per iteration, "
                   "which is not supported: iterate inside MapWrg, or unroll it");
        }
        for (const Frontier& f : args) {
            materialise({f}, parallel || f.parallel);
        }
        return {Frontier{e, parallel, producesArray(p_, fun)}};
    }

    StagePlan plan;

private:
    void materialise(const std::vector<Frontier>& items, bool needed) {
        for (const Frontier& f : items) {
            if (needed && f.array &&
                std::find(plan.stages.begin(), plan.stages.end(), f.node) == plan.stages.end()) {
                plan.stages.push_back(f.node);
            }
        }
    }

    const lift::Program& p_;
};

class UseWalker {
public:
    UseWalker(const lift::Program& p, const StagePlan& plan, size_t done)
        : p_(p), stages_(plan.stages.begin(), plan.stages.begin() + static_cast<long>(done)) {
        for (NodeId app : plan.lets) {
            auto params = p_.lambdaParams(p_.child(app, 0));
            for (size_t i = 0; i < params.size(); ++i) {
                letArg_.emplace_back(p_.node(params[i]).ival,
                                     std::make_pair(params[i], p_.child(app, i + 1)));
            }
        }
    }

    void walk(NodeId n) {
        if (!seen_.insert(n).second) {
            return;
        }
        if (auto it = std::find(stages_.begin(), stages_.end(), n); it != stages_.end()) {
            stages.insert(static_cast<size_t>(it - stages_.begin()));
            return;
        }
        const lift::Node& node = p_.node(n);
        if (node.op == Op::Param) {
            usedParam(node.ival);
            return;
        }
        if (node.op == Op::Lambda) {
            walk(p_.lambdaBody(n)); // the parameters are declarations
            return;
        }
        for (NodeId k : p_.children(n)) {
            walk(k);
        }
    }

    std::set<int> params;
    std::set<size_t> stages;
    std::vector<std::pair<NodeId, NodeId>> lets; // in first-use order; sorted by the caller

    const std::vector<std::pair<int, std::pair<NodeId, NodeId>>>& letArgs() const {
        return letArg_;
    }

private:
    void usedParam(int index) {
        params.insert(index);
        for (const auto& [param, binding] : letArg_) {
            if (param == index) {
                lets.push_back(binding);
                walk(binding.second);
            }
        }
    }

    const lift::Program& p_;
    std::vector<NodeId> stages_;
    std::vector<std::pair<int, std::pair<NodeId, NodeId>>> letArg_; // let param index -> binding
    std::set<NodeId> seen_;
};

} // namespace

StagePlan planStages(const lift::Program& program) {
    Planner planner(program);
    planner.visit(program.lambdaBody(program.root));
    return planner.plan;
}

KernelUses usesOf(const lift::Program& program, NodeId root, const StagePlan& plan, size_t done) {
    UseWalker w(program, plan, done);
    w.walk(root);
    KernelUses u;
    for (NodeId p : program.lambdaParams(program.root)) {
        if (w.params.contains(program.node(p).ival)) {
            u.params.push_back(program.node(p).ival);
        }
    }
    u.stages.assign(w.stages.begin(), w.stages.end());
    // Outer lets first (the plan's order), so an inner let's argument can use an outer parameter.
    for (const auto& [index, binding] : w.letArgs()) {
        if (std::find(w.lets.begin(), w.lets.end(), binding) != w.lets.end()) {
            u.lets.push_back(binding);
        }
    }
    return u;
}

} // namespace egopt::codegen::detail
