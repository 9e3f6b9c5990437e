// Substituting values for size variables in a program (for a tuner, and for tests that run a
// candidate at chosen tuning values), and removing no-op layout chains. The program is rebuilt
// node by node: programs are append-only and their sizes and types are interned.
#include "egopt/egraph/convert.hpp"
#include "egopt/extract/extract.hpp"

#include <unordered_map>

namespace egopt::extract {

namespace {

using lift::NodeId;

class Rebuild {
public:
    Rebuild(const lift::Program& in, const arith::Bindings& values, bool dropNoOps = false)
        : in_(in), dropNoOps_(dropNoOps) {
        for (const auto& [name, v] : values) {
            repl_.emplace(name, arith::Size(v));
        }
    }

    lift::Program run() {
        out_.fileName = in_.fileName;
        out_.source = in_.source;
        for (const std::string& v : in_.sizeVars) {
            if (!repl_.contains(v)) {
                out_.sizeVars.push_back(v);
            }
        }
        for (lift::UserFunDecl d : in_.userFuns) {
            for (lift::TypeId& t : d.paramTypes) {
                t = type(t);
            }
            d.returnType = type(d.returnType);
            out_.userFuns.push_back(std::move(d));
        }
        out_.root = convert(in_.root);
        return std::move(out_);
    }

private:
    lift::TypeId type(lift::TypeId t) {
        if (t == lift::kNoType) {
            return t;
        }
        return out_.types.substitute(egraph::importType(out_.types, in_.types, t), repl_);
    }

    bool applies(NodeId id, lift::Op f) const {
        return in_.op(id) == lift::Op::Apply && in_.children(id).size() == 2 &&
               in_.op(in_.child(id, 0)) == f;
    }

    // The node with its no-op layout chain removed: Join $ (Split(k) $ x) is x, and so is
    // Join $ (Join $ (Split(a) $ (Split(b) $ x))), whose inner pair is removed first.
    NodeId peel(NodeId id) const {
        if (!applies(id, lift::Op::Join)) {
            return id;
        }
        NodeId inner = peel(in_.child(id, 1));
        return applies(inner, lift::Op::Split) ? peel(in_.child(inner, 1)) : id;
    }

    NodeId convert(NodeId id) {
        if (dropNoOps_) {
            id = peel(id);
        }
        const lift::Node& n = in_.node(id);
        switch (n.op) {
        case lift::Op::Param:
            return params_.at(id);
        case lift::Op::Literal: {
            const auto& lit = in_.literals.at(static_cast<size_t>(n.ival));
            return out_.addLiteral(type(lit.type), lit.text, n.loc);
        }
        case lift::Op::UserFun:
            return out_.refUserFun(static_cast<uint32_t>(n.ival), n.loc);
        case lift::Op::Lambda: {
            std::vector<NodeId> ps;
            for (NodeId p : in_.lambdaParams(id)) {
                const auto& info = in_.params.at(static_cast<size_t>(in_.node(p).ival));
                ps.push_back(out_.addParam(info.name, type(info.declaredType), in_.node(p).loc));
                params_[p] = ps.back();
            }
            return out_.lambda(ps, convert(in_.lambdaBody(id)), n.loc);
        }
        default:
            break;
        }
        std::vector<NodeId> children;
        for (NodeId c : in_.children(id)) {
            children.push_back(convert(c));
        }
        std::vector<arith::Size> sizes;
        for (const arith::Size& s : in_.sizes(id)) {
            sizes.push_back(s.substitute(repl_));
        }
        return out_.add(n.op, n.ival, children, sizes, n.loc);
    }

    const lift::Program& in_;
    bool dropNoOps_;
    lift::Program out_;
    std::map<std::string, arith::Size, std::less<>> repl_;
    std::unordered_map<NodeId, NodeId> params_;
};

} // namespace

lift::Program substituteSizes(const lift::Program& program, const arith::Bindings& values) {
    return Rebuild(program, values).run();
}

lift::Program withoutNoOpLayouts(const lift::Program& program) {
    return Rebuild(program, {}, true).run();
}

} // namespace egopt::extract
