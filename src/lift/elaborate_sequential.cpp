// Elaboration of Lift's sequential patterns with data-dependent control flow: ScanSeq,
// ReduceWhileSeq and InsertionSortSeq (their meaning: patterns.hpp, docs/lift-format.md).
#include "elaborate.hpp"

namespace egopt::lift::detail {

// ScanSeq(f, init), ReduceWhileSeq(f, init, p) and InsertionSortSeq(compare) are functions of the
// array, like ReduceSeq(f, init); the forms without the initial value, ScanSeq(f) and
// ReduceWhileSeq(f, p) (Lift's printed form), take (init, xs).
std::optional<Val> Elaborator::sequentialForm(const std::string& name, SyntaxId site,
                                              const Args& args, const EnvPtr& env) {
    SourceLoc loc = locOf(site);
    auto function = [&](SyntaxId arg, const std::string& what) {
        Val f = eval(arg, env);
        return asFunction(f, f.loc, (what + " of " + name).c_str());
    };
    if (name == "InsertionSortSeq") {
        expectArgs(site, args, 1, 1, "InsertionSortSeq(compare)");
        NodeId cmp = function(args[0], "as the comparison");
        return funVal(node(Op::InsertionSortSeq, 0, {cmp}, {}, loc), loc);
    }
    bool scan = name == "ScanSeq";
    if (!scan && name != "ReduceWhileSeq") {
        return std::nullopt;
    }
    const char* usage = scan ? "ScanSeq(f, init)" : "ReduceWhileSeq(f, init, p)";
    expectArgs(site, args, scan ? 1 : 2, scan ? 2 : 3, usage);
    std::vector<NodeId> children{function(args[0], "as the operator")};
    std::optional<NodeId> init;
    if (args.size() == (scan ? 2u : 3u)) {
        Val v = eval(args[1], env);
        init = asExpr(v, v.loc, ("as the initial value of " + name).c_str());
    }
    if (!scan) {
        SyntaxId p = args.back();
        Val v = eval(p, env);
        if (v.kind == Val::Kind::Expr) {
            failAt(p, std::string("expected a predicate function, found a value: ") + usage);
        }
        children.push_back(asFunction(v, v.loc, "as the predicate of ReduceWhileSeq"));
    }
    Val fn = funVal(node(scan ? Op::ScanSeq : Op::ReduceWhileSeq, 0, children, {}, loc), loc);
    if (init) {
        fn.fun.kind = Callable::Kind::Bound;
        fn.fun.bound = {*init};
    }
    return fn;
}

} // namespace egopt::lift::detail
