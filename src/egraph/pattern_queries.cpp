// What a pattern's shape says (its root, whether matches can be deferred) and a pattern's
// instantiation as a term; the matcher is in pattern.cpp.
#include "egopt/egraph/pattern.hpp"

#include <algorithm>

namespace egopt::egraph {

bool Pattern::sortKnown() const {
    return nodes[root].kind != PatNode::Kind::ClassVar;
}

bool Pattern::isFunction() const {
    const PatNode& n = nodes[root];
    return n.kind == PatNode::Kind::Node && !isDataOp(n.op);
}

std::optional<Op> patternOp(const Pattern& p, PatId id) {
    const PatNode& n = p.nodes[id];
    switch (n.kind) {
    case PatNode::Kind::ClassVar:
        return std::nullopt;
    case PatNode::Kind::BoundVar:
        return Op::Param;
    case PatNode::Kind::Node:
        break;
    }
    return n.op;
}

std::optional<Op> rootOp(const Pattern& p) {
    return patternOp(p, p.root);
}

bool deferrable(const Pattern& p) {
    return p.nodes[p.root].kind == PatNode::Kind::Node &&
           std::none_of(p.nodes.begin(), p.nodes.end(), [](const PatNode& n) {
               return n.kind == PatNode::Kind::BoundVar ||
                      (n.kind == PatNode::Kind::Node && n.op == Op::Lambda);
           });
}

TermId instantiate(const Pattern& p, const VarTable& vars, const Subst& s, TermArena& out) {
    auto rec = [&](auto& self, PatId id) -> TermId {
        const PatNode& pn = p.nodes[id];
        switch (pn.kind) {
        case PatNode::Kind::ClassVar:
            return out.ref(s.classes.at(pn.slot), pn.depth - vars.depth.at(pn.slot));
        case PatNode::Kind::BoundVar:
            return out.var(pn.ival);
        case PatNode::Kind::Node:
            break;
        }
        TermNode t;
        t.op = pn.op;
        t.ival = pn.ival;
        for (const auto& size : pn.sizes) {
            t.sizes.push_back(size.substitute(s.sizes));
        }
        t.children.reserve(pn.children.size());
        for (PatId c : pn.children) {
            t.children.push_back(self(self, c));
        }
        return out.add(std::move(t));
    };
    return rec(rec, p.root);
}

} // namespace egopt::egraph
