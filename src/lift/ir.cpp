#include "egopt/lift/ir.hpp"

#include "egopt/lift/patterns.hpp"

#include <stdexcept>

namespace egopt::lift {

std::string_view opName(Op op) {
    return patternInfo(op).name;
}

bool isExpression(Op op) {
    return patternKind(op) == PatternKind::Expression;
}

bool isMapLike(Op op) {
    Semantics s = semantics(op);
    return s == Semantics::Map || s == Semantics::MapLanes;
}

bool isLowLevel(Op op) {
    return patternInfo(op).lowLevel;
}

NodeId Program::add(Op op, int32_t ival, std::span<const NodeId> children,
                    std::span<const arith::Size> sizes, SourceLoc loc) {
    Node n;
    n.op = op;
    n.ival = ival;
    n.firstChild = static_cast<uint32_t>(childIds_.size());
    n.numChildren = static_cast<uint32_t>(children.size());
    n.firstSize = static_cast<uint32_t>(sizeArgs_.size());
    n.numSizes = static_cast<uint32_t>(sizes.size());
    n.loc = loc;
    for (NodeId c : children) {
        if (c >= nodes_.size()) {
            throw std::logic_error("Program::add: child id out of range");
        }
    }
    childIds_.insert(childIds_.end(), children.begin(), children.end());
    sizeArgs_.insert(sizeArgs_.end(), sizes.begin(), sizes.end());
    nodes_.push_back(n);
    return static_cast<NodeId>(nodes_.size() - 1);
}

NodeId Program::addParam(std::string name, TypeId declaredType, SourceLoc loc) {
    params.push_back({std::move(name), declaredType});
    return add(Op::Param, static_cast<int32_t>(params.size() - 1), {}, {}, loc);
}

NodeId Program::addLiteral(TypeId type, std::string text, SourceLoc loc) {
    literals.push_back({type, std::move(text)});
    return add(Op::Literal, static_cast<int32_t>(literals.size() - 1), {}, {}, loc);
}

NodeId Program::addUserFun(UserFunDecl decl, SourceLoc loc) {
    userFuns.push_back(std::move(decl));
    return refUserFun(static_cast<uint32_t>(userFuns.size() - 1), loc);
}

NodeId Program::refUserFun(uint32_t index, SourceLoc loc) {
    if (index >= userFuns.size()) {
        throw std::logic_error("Program::refUserFun: index out of range");
    }
    return add(Op::UserFun, static_cast<int32_t>(index), {}, {}, loc);
}

NodeId Program::apply(NodeId fun, std::span<const NodeId> args, SourceLoc loc) {
    std::vector<NodeId> children{fun};
    children.insert(children.end(), args.begin(), args.end());
    return add(Op::Apply, 0, children, {}, loc);
}

NodeId Program::lambda(std::span<const NodeId> params_, NodeId body, SourceLoc loc) {
    std::vector<NodeId> children(params_.begin(), params_.end());
    children.push_back(body);
    return add(Op::Lambda, 0, children, {}, loc);
}

std::span<const NodeId> Program::children(NodeId id) const {
    const Node& n = node(id);
    return {childIds_.data() + n.firstChild, n.numChildren};
}

std::span<const arith::Size> Program::sizes(NodeId id) const {
    const Node& n = node(id);
    return {sizeArgs_.data() + n.firstSize, n.numSizes};
}

std::span<const NodeId> Program::lambdaParams(NodeId lambda) const {
    auto c = children(lambda);
    return c.subspan(0, c.size() - 1);
}

NodeId Program::lambdaBody(NodeId lambda) const {
    return children(lambda).back();
}

} // namespace egopt::lift
