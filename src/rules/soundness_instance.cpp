// Random instances of a rule's left-hand side as Lift programs. Each pattern variable gets a
// role from where the left-hand side uses it (the function of a Map, the operator or initial
// value of a reduction, an index function, an applied function of k arguments, a value under
// some binders), a random instantiation for that role, and the program is kept only if the type
// checker accepts it (rejection sampling).
#include "egopt/lift/typecheck.hpp"
#include "soundness_detail.hpp"

namespace egopt::rules::detail {

using egraph::PatId;
using egraph::PatNode;
using lift::Op;

namespace {

struct Role {
    enum class Kind : uint8_t { Data, Function, Reducer, Init, Index, ScalarFun } kind = Kind::Data;
    size_t arity = 1;
    bool known = false;
};

bool isReduction(Op op) {
    return op == Op::Reduce || op == Op::ReduceSeq || op == Op::PartRed;
}

// The role of the variable at child `i` of `parent`.
Role roleAt(const egraph::Pattern& pat, const PatNode& parent, size_t i) {
    using K = Role::Kind;
    switch (parent.op) {
    case Op::Apply: {
        if (i == 0) {
            return {K::Function, parent.children.size() - 1, true};
        }
        // A reduction's initial value is the monoid's neutral element when its operator is a
        // variable (the instance's monoid); an operator the rule writes out (a lambda folding
        // into an array accumulator) takes any initial value of its type.
        const PatNode& f = pat.nodes[parent.children[0]];
        bool init = i == 1 && f.kind == PatNode::Kind::Node && isReduction(f.op) &&
                    pat.nodes[f.children.at(0)].kind == PatNode::Kind::ClassVar;
        return {init ? K::Init : K::Data, 1, true};
    }
    case Op::Lambda:
        return {K::Data, 1, true};
    case Op::Reduce:
    case Op::ReduceSeq:
    case Op::PartRed:
        return {K::Reducer, 2, true};
    case Op::Gather:
    case Op::Scatter:
        return {K::Index, 1, true};
    case Op::VectorizeUserFun:
        return {K::ScalarFun, 1, true};
    default:
        return {K::Function, 1, true};
    }
}

std::vector<Role> rolesOf(const egraph::Rule& rule) {
    std::vector<Role> roles(rule.vars.names.size());
    for (const PatNode& n : rule.lhs.nodes) {
        for (size_t i = 0; i < n.children.size(); ++i) {
            const PatNode& c = rule.lhs.nodes[n.children[i]];
            if (c.kind == PatNode::Kind::ClassVar && !roles[c.slot].known) {
                roles[c.slot] = roleAt(rule.lhs, n, i);
            }
        }
    }
    return roles;
}

// Small values that make sense for the size arguments of each pattern.
std::vector<int64_t> sizeChoices(Op op) {
    switch (op) {
    case Op::AsVector:
    case Op::VectorizeUserFun:
        return {2, 4};
    case Op::Iterate:
        return {0, 1, 2, 3};
    case Op::Pad:
    case Op::At:
    case Op::Shift:
        return {0, 1, 2};
    default:
        return {1, 2, 3, 4};
    }
}

class LhsBuilder {
public:
    LhsBuilder(const egraph::Rule& rule, Builder& b) : rule_(rule), b_(b) {}

    void chooseSizes() {
        for (const PatNode& n : rule_.lhs.nodes) {
            for (const arith::Size& s : n.sizes) {
                for (const std::string& v : s.variables()) {
                    if (!v.starts_with('#') || sizes_.count(v)) {
                        continue;
                    }
                    sizes_[v] = arith::Size(pickOf(b_.rng, sizeChoices(n.op)));
                    shown_ += (shown_.empty() ? "" : ", ") + v + "=" + sizes_[v].toString();
                }
            }
        }
    }

    void chooseRecipes() {
        using K = Role::Kind;
        std::vector<Role> roles = rolesOf(rule_);
        for (size_t slot = 0; slot < roles.size(); ++slot) {
            int32_t depth = rule_.vars.depth.at(slot);
            switch (roles[slot].kind) {
            case K::Data:
                recipes_.push_back(randomData(b_, depth));
                break;
            case K::Init:
                recipes_.push_back(neutralElement(b_));
                break;
            case K::Function:
                recipes_.push_back(randomFunction(b_, roles[slot].arity, depth));
                break;
            case K::Reducer:
                recipes_.push_back(randomReducer(b_));
                break;
            case K::Index:
                recipes_.push_back(randomIndexFunction(b_));
                break;
            case K::ScalarFun:
                recipes_.push_back(randomScalarUserFun(b_));
                break;
            }
        }
    }

    NodeId build(PatId id) {
        const PatNode& n = rule_.lhs.nodes[id];
        switch (n.kind) {
        case PatNode::Kind::ClassVar:
            return recipes_.at(n.slot)(b_);
        case PatNode::Kind::BoundVar:
            return b_.env.at(b_.env.size() - 1 - static_cast<size_t>(n.ival));
        case PatNode::Kind::Node:
            break;
        }
        if (n.op == Op::Lambda) {
            return b_.lambda(static_cast<size_t>(n.ival), [&](const std::vector<NodeId>& params) {
                b_.env.insert(b_.env.end(), params.begin(), params.end());
                NodeId body = build(n.children.at(0));
                b_.env.resize(b_.env.size() - params.size());
                return body;
            });
        }
        std::vector<NodeId> children;
        for (PatId c : n.children) {
            children.push_back(build(c));
        }
        if (n.op == Op::Apply) {
            NodeId f = children.front();
            children.erase(children.begin());
            return b_.apply(f, children);
        }
        std::vector<arith::Size> sizes;
        for (const arith::Size& s : n.sizes) {
            sizes.push_back(s.substitute(sizes_));
        }
        return b_.op(n.op, n.ival, children, sizes);
    }

    // Arguments for a left-hand side that is a function.
    std::vector<NodeId> arguments() {
        const PatNode& root = rule_.lhs.nodes[rule_.lhs.root];
        size_t arity = 1;
        if (root.op == Op::Lambda) {
            arity = static_cast<size_t>(root.ival);
        } else if (root.op == Op::Zip || root.op == Op::Tuple) {
            arity = root.ival > 0 ? static_cast<size_t>(root.ival) : 2;
        } else if (root.op == Op::VectorizeUserFun) {
            arity = 1 + pick(b_.rng, 2);
        }
        std::vector<NodeId> args;
        if (isReduction(root.op)) {
            args.push_back(neutralElement(b_)(b_));
        }
        for (size_t i = 0; i < arity; ++i) {
            args.push_back(b_.topParam(b_.randomType()));
        }
        return args;
    }

    const std::string& shownSizes() const { return shown_; }

private:
    const egraph::Rule& rule_;
    Builder& b_;
    std::map<std::string, arith::Size, std::less<>> sizes_;
    std::string shown_;
    std::vector<Recipe> recipes_;
};

} // namespace

// Lengths that a rule's divisibility conditions need beyond the usual small ones (a tiled matrix
// multiplication: multiples of 128 and 32): the largest such divisor becomes the instance's outer
// length and the smallest its inner one, so that instances match at all, at the least cost to
// interpret. A rule about a third or fourth dimension of a given constant length
// (`lengthAtDepth(?x, 2, 1)`: a one-element dimension that transposes move) gets arrays of
// rank 3 and 4 of that length there, which the pool otherwise draws from 2 to 4.
void fitLengths(const egraph::Rule& rule, Builder& b) {
    std::vector<int64_t> large = largeDivisors(rule);
    if (!large.empty()) {
        b.n = *std::max_element(large.begin(), large.end());
        b.m = *std::min_element(large.begin(), large.end());
    }
    for (const egraph::Call& c : rule.conditions) {
        b.sharedOperand = b.sharedOperand || c.name == "readsInMap";
        b.sliceFold = b.sliceFold || c.name == "tileSlices";
        if (c.name == "lengthAtDepth" && c.args.size() == 3 && c.args[1].number >= 2) {
            if (std::optional<int64_t> k = c.args[2].size.constant(); k && *k >= 1) {
                b.k = *k;
            }
        }
    }
}

std::vector<int64_t> largeDivisors(const egraph::Rule& rule) {
    std::vector<int64_t> large;
    for (const egraph::Call& c : rule.conditions) {
        if ((c.name == "divides" || c.name == "innerDivides") && !c.args.empty()) {
            const egraph::CallArg& a = c.args[0];
            int64_t d =
                a.kind == egraph::CallArg::Kind::Number ? a.number : a.size.constant().value_or(0);
            if (d > kLargestSmallLength) {
                large.push_back(d);
            }
        }
    }
    return large;
}

std::optional<Instance> randomInstance(const egraph::Rule& rule, Rng& rng, bool rank4) {
    Builder b(rng);
    b.rank4 = rank4;
    fitLengths(rule, b);
    LhsBuilder lhs(rule, b);
    lhs.chooseSizes();
    lhs.chooseRecipes();
    Instance out;
    NodeId body = lhs.build(rule.lhs.root);
    out.wrapped = rule.lhs.isFunction();
    if (out.wrapped) {
        body = b.apply(body, lhs.arguments());
    }
    b.p.root = b.p.lambda(b.top, body);
    b.p.fileName = "<instance of " + rule.name + ">";
    try {
        lift::typecheck(b.p);
    } catch (const Error&) {
        return std::nullopt;
    }
    out.program = std::move(b.p);
    out.sizes = lhs.shownSizes();
    out.n = b.n;
    out.m = b.m;
    return out;
}

} // namespace egopt::rules::detail
