// Program::show: Lift-style text of IR nodes. Chains of single-argument applications print as
// compositions (`Reduce(add, 0.0f) o Map(abs) $ xs`), as people write them.
#include "egopt/lift/ir.hpp"
#include "egopt/lift/patterns.hpp"

namespace egopt::lift {

namespace {

class Printer {
public:
    explicit Printer(const Program& p) : p_(p) {}

    std::string expr(NodeId id) const {
        const Node& n = p_.node(id);
        switch (n.op) {
        case Op::Param:
            return p_.params.at(static_cast<size_t>(n.ival)).name;
        case Op::Literal:
            return literal(p_.literals.at(static_cast<size_t>(n.ival)));
        case Op::Apply:
            return application(id);
        case Op::Generate:
            return generator(id);
        default:
            return fun(id);
        }
    }

    std::string generator(NodeId id) const {
        const Node& n = p_.node(id);
        auto sizes = p_.sizes(id);
        const UserFunDecl& f = p_.userFuns.at(static_cast<size_t>(p_.node(p_.child(id, 0)).ival));
        std::string type = p_.types.show(f.returnType);
        for (size_t d = sizes.size(); d-- > 0;) {
            type = "ArrayType(" + type + ", " + sizes[d].toString() + ")";
        }
        std::string prefix = n.ival == 1 ? "" : "Array" + std::to_string(n.ival) + "D";
        std::string name = n.ival == 1 ? "ArrayFromUserFunGenerator" : "FromUserFunGenerator";
        return prefix + name + "(" + f.name + ", " + type + ")";
    }

    std::string fun(NodeId id) const {
        const Node& n = p_.node(id);
        auto sizes = p_.sizes(id);
        auto children = p_.children(id);
        std::string name(opName(n.op));
        switch (n.op) {
        case Op::Param:
        case Op::Literal:
        case Op::Apply:
        case Op::Generate:
            return expr(id);
        case Op::Lambda:
            return lambda(id);
        case Op::UserFun:
            return p_.userFuns.at(static_cast<size_t>(n.ival)).name;
        case Op::Pad:
            if (!children.empty()) {
                return "PadConstant(" + sizeList(sizes) + ", " + expr(children[0]) + ")";
            }
            return "Pad(" + sizeList(sizes) + ", Pad.Boundary." + boundary(n.ival) + ")";
        default:
            break;
        }
        switch (patternInfo(n.op).print) {
        case PrintForm::DimensionThenFunction:
            return name + "(" + std::to_string(n.ival) + ")(" + fun(children[0]) + ")";
        case PrintForm::SizesThenFunction:
            return name + "(" + sizeList(sizes) + ")(" + fun(children[0]) + ")";
        case PrintForm::SizesCommaFunction:
            return name + "(" + sizeList(sizes) + ", " + fun(children[0]) + ")";
        case PrintForm::NameOnly:
            return name;
        case PrintForm::IvalOnly:
            return name + "(" + std::to_string(n.ival) + ")";
        case PrintForm::UnrollSuffix:
            name += n.ival == kUnrolled ? "Unroll" : "";
            break;
        default:
            break;
        }
        std::string args;
        for (NodeId c : children) {
            args += (args.empty() ? "" : ", ") + fun(c);
        }
        std::string s = sizeList(sizes);
        if (!s.empty()) {
            args += (args.empty() ? "" : ", ") + s;
        }
        return name + "(" + args + ")";
    }

private:
    static const char* boundary(int32_t b) {
        switch (static_cast<PadBoundary>(b)) {
        case PadBoundary::Mirror:
            return "Mirror";
        case PadBoundary::Wrap:
            return "Wrap";
        default:
            return "Clamp";
        }
    }

    static std::string sizeList(std::span<const arith::Size> sizes) {
        std::string out;
        for (const auto& s : sizes) {
            out += (out.empty() ? "" : ", ") + s.toString();
        }
        return out;
    }

    std::string literal(const LiteralDecl& lit) const {
        if (p_.types.kind(lit.type) == TypeKind::Scalar &&
            p_.types.at(lit.type).scalar == ScalarKind::Float && !lit.text.empty() &&
            (std::isdigit(static_cast<unsigned char>(lit.text[0])) || lit.text[0] == '-')) {
            return lit.text;
        }
        return "Value(\"" + lit.text + "\", " + p_.types.show(lit.type) + ")";
    }

    std::string lambda(NodeId id) const {
        std::string params;
        auto ps = p_.lambdaParams(id);
        for (NodeId q : ps) {
            params += (params.empty() ? "" : ", ") + expr(q);
        }
        if (ps.size() != 1) {
            params = "(" + params + ")";
        }
        return "fun(" + params + " => " + expr(p_.lambdaBody(id)) + ")";
    }

    // Is this application printed as `callee $ data` (one data argument)? Folds print with
    // their initial value bound: Reduce(f, init) $ xs, ReduceWhileSeq(f, init, p) $ xs.
    bool chainable(NodeId apply, std::string& callee, NodeId& data) const {
        auto c = p_.children(apply);
        Op op = p_.op(c[0]);
        Semantics meaning = semantics(op);
        bool fold = meaning == Semantics::Reduce || meaning == Semantics::PartialReduce ||
                    meaning == Semantics::Scan || meaning == Semantics::ReduceWhile;
        if (fold && c.size() == 3) {
            std::string f = fun(p_.child(c[0], 0));
            std::string extra;
            for (const auto& s : p_.sizes(c[0])) {
                extra += ", " + s.toString();
            }
            if (meaning == Semantics::ReduceWhile && p_.children(c[0]).size() == 2) {
                extra += ", " + fun(p_.child(c[0], 1));
            }
            callee = std::string(opName(op)) + "(" + f + ", " + expr(c[1]) + extra + ")";
            data = c[2];
            return true;
        }
        if (c.size() == 2 && op != Op::Get && op != Op::At && op != Op::UserFun) {
            callee = fun(c[0]);
            data = c[1];
            return true;
        }
        return false;
    }

    std::string application(NodeId id) const {
        std::string callee;
        NodeId data = kNoNode;
        if (chainable(id, callee, data)) {
            std::string chain = callee;
            while (p_.op(data) == Op::Apply && chainable(data, callee, data)) {
                chain += " o " + callee;
            }
            return chain + " $ " + expr(data);
        }
        auto c = p_.children(id);
        const Node& f = p_.node(c[0]);
        if (f.op == Op::Get) {
            return atom(c[1]) + "._" + std::to_string(f.ival);
        }
        if (f.op == Op::At) {
            return atom(c[1]) + ".at(" + sizeList(p_.sizes(c[0])) + ")";
        }
        std::string head = f.op == Op::Zip || f.op == Op::Tuple ? std::string(opName(f.op))
                           : f.op == Op::Filter                 ? "Filter"
                                                                : fun(c[0]);
        std::string args;
        for (size_t i = 1; i < c.size(); ++i) {
            args += (i == 1 ? "" : ", ") + expr(c[i]);
        }
        return head + "(" + args + ")";
    }

    // An expression that can be followed by ._0 or .at(i) without parentheses.
    std::string atom(NodeId id) const {
        std::string s = expr(id);
        bool simple = p_.op(id) != Op::Apply || s.find(" $ ") == std::string::npos;
        return simple ? s : "(" + s + ")";
    }

    const Program& p_;
};

} // namespace

std::string Program::show(NodeId id) const {
    if (id == root && id != kNoNode && op(id) == Op::Lambda) {
        std::string out = "fun(";
        for (NodeId p : lambdaParams(id)) {
            TypeId t = params.at(static_cast<size_t>(node(p).ival)).declaredType;
            if (t != kNoType) {
                out += types.show(t) + ", ";
            }
        }
        std::string body = Printer(*this).fun(id);
        return out + body.substr(4); // reuse the lambda's "(params => body)"
    }
    return Printer(*this).expr(id);
}

} // namespace egopt::lift
