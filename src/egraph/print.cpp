// Printing terms in a Lift-like syntax, naming De Bruijn variables after their binders.
#include "egopt/egraph/egraph.hpp"

namespace egopt::egraph {

namespace {

class Printer {
public:
    Printer(const EGraph& g, const TermArena& t, const std::vector<std::string>& freeNames)
        : g_(g), t_(t), free_(freeNames) {}

    std::string term(TermId id) {
        const TermNode& n = t_.at(id);
        if (n.eclass != kNoClass) {
            return "<class " + std::to_string(n.eclass) + ">";
        }
        switch (n.op) {
        case Op::Param:
            return var(n.ival);
        case Op::Literal:
            return literal(g_.literals.at(static_cast<size_t>(n.ival)));
        case Op::UserFun:
            return g_.userFuns.at(static_cast<size_t>(n.ival)).name;
        case Op::Lambda:
            return lambda(n);
        case Op::Apply:
            return apply(n);
        default:
            return pattern(n);
        }
    }

private:
    // A tuple's or array's value text ("0.0f, 0.0f") printed bare would read as several
    // arguments, so such literals print as Lift writes them.
    std::string literal(const lift::LiteralDecl& lit) const {
        if (lit.text.find(',') == std::string::npos) {
            return lit.text;
        }
        return "Value(\"" + lit.text + "\", " + g_.types.show(lit.type) + ")";
    }

    std::string var(int32_t index) const {
        auto i = static_cast<size_t>(index);
        if (i < names_.size()) {
            return names_[names_.size() - 1 - i];
        }
        size_t freeIndex = i - names_.size();
        if (freeIndex < free_.size()) {
            return free_[free_.size() - 1 - freeIndex];
        }
        return "free" + std::to_string(freeIndex);
    }

    std::string lambda(const TermNode& n) {
        std::string params;
        for (int32_t i = 0; i < n.ival; ++i) {
            names_.push_back("x" + std::to_string(++counter_));
            params += (i ? ", " : "") + names_.back();
        }
        std::string body = term(n.children.at(0));
        names_.resize(names_.size() - static_cast<size_t>(n.ival));
        return "fun(" + (n.ival == 1 ? params : "(" + params + ")") + " => " + body + ")";
    }

    std::string apply(const TermNode& n) {
        std::string fun = term(n.children.at(0));
        if (t_.at(n.children[0]).op == Op::Lambda) {
            fun = "(" + fun + ")";
        }
        if (n.children.size() == 2) {
            std::string arg = term(n.children[1]);
            bool paren =
                t_.at(n.children[1]).op == Op::Apply && t_.at(n.children[1]).eclass == kNoClass;
            return fun + " $ " + (paren ? "(" + arg + ")" : arg);
        }
        std::string args;
        for (size_t i = 1; i < n.children.size(); ++i) {
            args += (i > 1 ? ", " : "") + term(n.children[i]);
        }
        return fun + " $ (" + args + ")";
    }

    std::string pattern(const TermNode& n) {
        std::string inside;
        bool showIval = n.op == Op::MapGlb || n.op == Op::MapWrg || n.op == Op::MapLcl ||
                        n.op == Op::Get || n.op == Op::Pad;
        auto add = [&](const std::string& s) { inside += (inside.empty() ? "" : ", ") + s; };
        for (TermId c : n.children) {
            add(term(c));
        }
        for (const auto& s : n.sizes) {
            add(s.toString());
        }
        if (showIval) {
            add(std::to_string(n.ival));
        }
        std::string name(lift::opName(n.op));
        if ((n.op == Op::MapSeq || n.op == Op::ReduceSeq) && n.ival == lift::kUnrolled) {
            name += "Unroll";
        }
        return inside.empty() ? name : name + "(" + inside + ")";
    }

    const EGraph& g_;
    const TermArena& t_;
    const std::vector<std::string>& free_;
    std::vector<std::string> names_;
    int counter_ = 0;
};

} // namespace

std::string showTerm(const EGraph& g, const TermArena& terms, TermId root,
                     const std::vector<std::string>& freeNames) {
    return Printer(g, terms, freeNames).term(root);
}

std::string EGraph::show(EClassId c) const {
    TermArena t;
    TermId root = extract(c, t);
    return showTerm(*this, t, root);
}

} // namespace egopt::egraph
