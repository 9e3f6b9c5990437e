// Inserting terms (with type inference for lambda parameters), shifting free variables, and
// extracting the smallest term of a class.
#include "egopt/egraph/egraph.hpp"

#include <algorithm>
#include <unordered_map>

namespace egopt::egraph {

namespace {} // namespace

TermId shiftTerm(const TermArena& in, TermId id, int32_t by, int32_t cutoff, TermArena& out) {
    TermNode n = in.at(id);
    if (n.op == Op::Param && n.eclass == kNoClass && n.ival >= cutoff) {
        n.ival += by;
    }
    int32_t inner = n.op == Op::Lambda ? cutoff + n.ival : cutoff;
    for (TermId& c : n.children) {
        c = shiftTerm(in, c, by, inner, out);
    }
    return out.add(std::move(n));
}

EClassId EGraph::addTerm(const TermArena& terms, TermId root, std::span<const TypeId> argTypes,
                         std::span<const TypeId> freeVarTypes) {
    std::vector<TypeId> env(freeVarTypes.begin(), freeVarTypes.end());
    return addTermRec(terms, root, argTypes, env);
}

EClassId EGraph::addTermRec(const TermArena& t, TermId id, std::span<const TypeId> argTypes,
                            std::vector<TypeId>& env) {
    const TermNode& n = t.at(id);
    if (env.size() > kMaxTermDepth) {
        throw TypeError("term nested too deeply");
    }
    if (n.eclass != kNoClass) {
        return shift(n.eclass, n.shift);
    }
    ENode e;
    e.op = n.op;
    e.ival = n.ival;
    Attr attr{n.sizes, n.types};
    switch (n.op) {
    case Op::Param:
        if (attr.types.empty()) {
            if (n.ival < 0 || static_cast<size_t>(n.ival) >= env.size()) {
                throw TypeError("a variable whose type is unknown");
            }
            attr.types = {env[env.size() - 1 - static_cast<size_t>(n.ival)]};
        }
        break;
    case Op::Lambda: {
        if (attr.types.empty()) {
            attr.types.assign(argTypes.begin(), argTypes.end());
        }
        if (attr.types.size() != static_cast<size_t>(n.ival)) {
            throw TypeError("cannot infer the parameter types of a lambda with " +
                            std::to_string(n.ival) + " parameters applied to " +
                            std::to_string(argTypes.size()) + " arguments");
        }
        env.insert(env.end(), attr.types.begin(), attr.types.end());
        EClassId body = addTermRec(t, n.children.at(0), {}, env);
        env.resize(env.size() - attr.types.size());
        e.children.push_back(body);
        break;
    }
    case Op::Apply: {
        std::vector<TypeId> args;
        std::vector<EClassId> argClasses;
        for (size_t i = 1; i < n.children.size(); ++i) {
            EClassId c = addTermRec(t, n.children[i], {}, env);
            argClasses.push_back(c);
            args.push_back(data(c).type);
        }
        e.children.push_back(addTermRec(t, n.children.at(0), args, env));
        for (EClassId a : argClasses) {
            e.children.push_back(a);
        }
        break;
    }
    default: {
        std::vector<TypeId> childArgs =
            argTypes.empty() ? std::vector<TypeId>{} : childArgTypes(n.op, n.sizes, argTypes);
        for (TermId c : n.children) {
            e.children.push_back(addTermRec(t, c, childArgs, env));
        }
        break;
    }
    }
    e.attr = internAttr(std::move(attr));
    return add(std::move(e));
}

EClassId EGraph::shift(EClassId c, int32_t by, int32_t cutoff) {
    c = find(c);
    const ClassData& d = data(c);
    if (by == 0 || !d.hasFreeVarAtLeast(cutoff)) {
        return c;
    }
    if (by < 0) {
        // The smallest term is what gets shifted: only its variables can escape.
        for (int32_t v : smallestTermFreeVars(c)) {
            if (v >= cutoff && v < cutoff - by) {
                throw ScopeError("a variable would escape its binder");
            }
        }
    }
    TermArena in;
    TermId root = extract(c, in);
    TermArena out;
    TermId shifted = shiftTerm(in, root, by, cutoff, out);
    return addTerm(out, shifted);
}

namespace {

// Folds the smallest term of a class bottom-up: `make(node, results of its children)` once per
// distinct class (memoised). `best(cls)` gives the canonical class and its smallest member.
// Explicit recursion with a depth bound: best members form an acyclic graph (costs strictly
// decrease towards the leaves).
template <class R, class Best, class Make>
R foldSmallest(EClassId root, Best best, Make make) {
    std::unordered_map<EClassId, R> done;
    auto rec = [&](auto& self, EClassId cls, size_t depth) -> R {
        auto [canonical, node] = best(cls);
        if (auto it = done.find(canonical); it != done.end()) {
            return it->second;
        }
        if (depth > kMaxTermDepth) {
            throw TypeError("extraction nested too deeply");
        }
        std::vector<R> kids;
        for (EClassId child : node->children) {
            kids.push_back(self(self, child, depth + 1));
        }
        return done.emplace(canonical, make(*node, std::move(kids))).first->second;
    };
    return rec(rec, root, 0);
}

} // namespace

TermId EGraph::extract(EClassId c, TermArena& out) const {
    return extract(c, out, nullptr);
}

TermId EGraph::extract(EClassId c, TermArena& out, std::vector<EClassId>* visited) const {
    auto best = [this, visited](EClassId cls) {
        cls = findConst(cls);
        if (visited) {
            visited->push_back(cls);
        }
        return std::pair{cls, &originalNode(data(cls).best)};
    };
    return foldSmallest<TermId>(c, best, [&](const ENode& n, std::vector<TermId> kids) {
        TermNode t;
        t.op = n.op;
        t.ival = n.ival;
        t.sizes = attrs_.at(n.attr).sizes;
        t.types = attrs_.at(n.attr).types;
        t.children = std::move(kids);
        return out.add(std::move(t));
    });
}

std::vector<int32_t> EGraph::smallestTermFreeVars(EClassId c) const {
    using Vars = std::vector<int32_t>;
    auto best = [this](EClassId cls) {
        cls = findConst(cls);
        return std::pair{cls, &originalNode(data(cls).best)};
    };
    return foldSmallest<Vars>(c, best, [](const ENode& n, std::vector<Vars> kids) {
        Vars fv;
        if (n.op == Op::Param) {
            fv.push_back(n.ival);
        }
        for (const Vars& k : kids) {
            for (int32_t v : k) {
                // A lambda binds n.ival variables: its body's index v is v - n.ival outside.
                if (n.op != Op::Lambda) {
                    fv.push_back(v);
                } else if (v >= n.ival) {
                    fv.push_back(v - n.ival);
                }
            }
        }
        std::sort(fv.begin(), fv.end());
        fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
        return fv;
    });
}

} // namespace egopt::egraph
