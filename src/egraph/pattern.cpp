// E-matching by backtracking over the members of each class, and pattern instantiation.
#include "egopt/egraph/pattern.hpp"

namespace egopt::egraph {

namespace {

bool isSizeVar(const arith::Size& s, std::string& name) {
    auto v = s.variable();
    if (v && !v->empty() && (*v)[0] == '#') {
        name = *v;
        return true;
    }
    return false;
}

class Matcher {
public:
    Matcher(const EGraph& g, const Pattern& p, size_t slots,
            const std::function<void(const Subst&)>& onMatch)
        : g_(g), p_(p), onMatch_(onMatch) {
        s_.classes.assign(slots, kNoClass);
        binder_.assign(p.nodes.size(), {0, -1});
        lambdaTypes_.assign(p.nodes.size(), nullptr);
        std::vector<std::pair<PatId, int32_t>> scope;
        findBinders(p.root, scope);
    }

    void run(EClassId c) {
        std::vector<std::pair<PatId, EClassId>> todo{{p_.root, c}};
        step(todo);
    }

private:
    // For each bound variable of the pattern, the lambda that binds it and its position there.
    void findBinders(PatId id, std::vector<std::pair<PatId, int32_t>>& scope) {
        const PatNode& pn = p_.nodes[id];
        if (pn.kind == PatNode::Kind::BoundVar) {
            if (pn.ival >= 0 && static_cast<size_t>(pn.ival) < scope.size()) {
                binder_[id] = scope[scope.size() - 1 - static_cast<size_t>(pn.ival)];
            }
            return;
        }
        size_t before = scope.size();
        if (pn.kind == PatNode::Kind::Node && pn.op == Op::Lambda) {
            for (int32_t i = 0; i < pn.ival; ++i) {
                scope.emplace_back(id, i);
            }
        }
        for (PatId c : pn.children) {
            findBinders(c, scope);
        }
        scope.resize(before);
    }

    // A variable node matches a bound variable only if its type is the binder's parameter type:
    // a class shared between contexts (a closed class after beta) may hold a variable of the
    // same index from another lambda.
    bool binderTypeMatches(PatId pid, const ENode& n) const {
        auto [lam, pos] = binder_[pid];
        const std::vector<TypeId>* types = pos >= 0 ? lambdaTypes_[lam] : nullptr;
        const Attr& a = g_.attrOf(n);
        if (!types || static_cast<size_t>(pos) >= types->size() || a.types.empty()) {
            return true;
        }
        return a.types[0] == (*types)[static_cast<size_t>(pos)];
    }

    // Matches the pending (pattern, class) pairs; calls onMatch_ for each full match.
    void step(std::vector<std::pair<PatId, EClassId>>& todo) {
        if (todo.empty()) {
            onMatch_(s_);
            return;
        }
        auto [pid, cls] = todo.back();
        todo.pop_back();
        const PatNode& pn = p_.nodes[pid];
        cls = g_.findConst(cls);
        if (pn.kind == PatNode::Kind::ClassVar) {
            EClassId& bound = s_.classes[pn.slot];
            if (bound == kNoClass) {
                bound = cls;
                step(todo);
                bound = kNoClass;
            } else if (bound == cls) {
                step(todo);
            }
        } else {
            for (ENodeId n : g_.eclass(cls).nodes) {
                tryNode(pid, g_.node(n), todo);
            }
        }
        todo.emplace_back(pid, cls);
    }

    void tryNode(PatId pid, const ENode& n, std::vector<std::pair<PatId, EClassId>>& todo) {
        const PatNode& pn = p_.nodes[pid];
        if (pn.kind == PatNode::Kind::BoundVar) {
            if (n.op == Op::Param && n.ival == pn.ival && binderTypeMatches(pid, n)) {
                step(todo);
            }
            return;
        }
        if (n.op != pn.op || n.children.size() != pn.children.size()) {
            return;
        }
        // A lambda's attribute holds its parameter types, which patterns do not constrain.
        if (n.ival != pn.ival) {
            return;
        }
        const Attr& a = g_.attrOf(n);
        if (a.sizes.size() != pn.sizes.size()) {
            return;
        }
        std::vector<std::string> newlyBound;
        bool ok = true;
        for (size_t i = 0; i < pn.sizes.size() && ok; ++i) {
            std::string name;
            if (!isSizeVar(pn.sizes[i], name)) {
                ok = pn.sizes[i] == a.sizes[i];
            } else if (auto it = s_.sizes.find(name); it != s_.sizes.end()) {
                ok = it->second == a.sizes[i];
            } else {
                s_.sizes.emplace(name, a.sizes[i]);
                newlyBound.push_back(name);
            }
        }
        if (ok) {
            const std::vector<TypeId>* saved = lambdaTypes_[pid];
            if (pn.op == Op::Lambda) {
                lambdaTypes_[pid] = &a.types;
            }
            size_t before = todo.size();
            for (size_t i = pn.children.size(); i-- > 0;) {
                todo.emplace_back(pn.children[i], n.children[i]);
            }
            step(todo);
            todo.resize(before);
            lambdaTypes_[pid] = saved;
        }
        for (const auto& name : newlyBound) {
            s_.sizes.erase(name);
        }
    }

    const EGraph& g_;
    const Pattern& p_;
    const std::function<void(const Subst&)>& onMatch_;
    Subst s_;
    std::vector<std::pair<PatId, int32_t>> binder_;       // by bound-variable PatId
    std::vector<const std::vector<TypeId>*> lambdaTypes_; // by lambda PatId, while matched
};

} // namespace

bool Pattern::sortKnown() const {
    return nodes[root].kind != PatNode::Kind::ClassVar;
}

bool Pattern::isFunction() const {
    const PatNode& n = nodes[root];
    return n.kind == PatNode::Kind::Node && !isDataOp(n.op);
}

void matchClass(const EGraph& g, const Pattern& p, size_t numSlots, EClassId c,
                const std::function<void(const Subst&)>& onMatch) {
    Matcher(g, p, numSlots, onMatch).run(c);
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
        for (PatId c : pn.children) {
            t.children.push_back(self(self, c));
        }
        return out.add(std::move(t));
    };
    return rec(rec, p.root);
}

} // namespace egopt::egraph
