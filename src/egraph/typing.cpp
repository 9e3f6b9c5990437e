// Typing of applications inside the e-graph: lambdas and user functions here, patterns by the
// shared rule (lift/pattern_typing.hpp) with the e-class analysis as its TypingSite. Errors are
// TypeErrors: inside the e-graph an ill-typed node can only come from a faulty rule.
#include "egopt/egraph/egraph.hpp"
#include "egopt/lift/pattern_typing.hpp"
#include "egopt/lift/patterns.hpp"

namespace egopt::egraph {

namespace {

using lift::TypeKind;

void need(bool ok, const std::string& what) {
    if (!ok) {
        throw TypeError(what);
    }
}

// A pattern node's children are e-classes: a nested function's result type is the class's
// (resultOf), a value's type its analysis data. Each lambda has one signature here, so Iterate
// must keep its argument's type.
class ClassSite final : public lift::TypingSite {
public:
    ClassSite(EGraph& g, const ENode& fn) : g_(g), fn_(fn) {}

    lift::TypeArena& types() override { return g_.types; }
    TypeId applyChild(size_t i, std::span<const TypeId> args) override {
        return g_.resultOf(fn_.children.at(i), args);
    }
    TypeId childValueType(size_t i) override { return g_.data(fn_.children.at(i)).type; }
    bool childIsFunction(size_t i) const override { return !g_.data(fn_.children.at(i)).isData(); }
    std::string describe() const override {
        return lift::describePattern(fn_.op, fn_.ival, g_.attrOf(fn_).sizes);
    }
    std::string describeChild(size_t i) const override {
        return "in class " + std::to_string(fn_.children.at(i));
    }
    [[noreturn]] void fail(const std::string& message) const override { throw TypeError(message); }
    bool iterateMayResize() const override { return false; }

private:
    EGraph& g_;
    const ENode& fn_;
};

} // namespace

std::vector<TypeId> EGraph::childArgTypes(Op op, std::span<const arith::Size> sizes,
                                          std::span<const TypeId> args) {
    lift::PatternUse use{op, 0, sizes, 1};
    auto nested = lift::nestedArgTypes(types, use, args);
    need(nested.has_value(),
         std::string(lift::opName(op)) + " applied to arguments of other types");
    return *nested;
}

TypeId EGraph::patternResult(const ENode& fn, std::span<const TypeId> args) {
    const Attr& a = attrs_.at(fn.attr);
    switch (fn.op) {
    case Op::Lambda:
        need(std::equal(args.begin(), args.end(), a.types.begin(), a.types.end()),
             "a lambda applied to arguments of other types");
        return shapes_[cls(findConst(fn.children[0])).shape].type;
    case Op::UserFun: {
        const auto& d = userFuns.at(static_cast<size_t>(fn.ival));
        bool tupled = d.paramTypes.size() > 1 && args.size() == 1 &&
                      types.kind(args[0]) == TypeKind::Tuple &&
                      args[0] == types.tuple(d.paramTypes);
        // The message is built only on failure: every new application of a user function
        // (arith's add and mult) is typed here.
        if (!tupled &&
            !std::equal(args.begin(), args.end(), d.paramTypes.begin(), d.paramTypes.end())) {
            need(false, "user function " + d.name + " applied to arguments of other types");
        }
        return d.returnType;
    }
    default: {
        lift::PatternUse use{fn.op, fn.ival, a.sizes, fn.children.size()};
        ClassSite site(*this, fn);
        return lift::typePattern(site, use, args);
    }
    }
}

} // namespace egopt::egraph
