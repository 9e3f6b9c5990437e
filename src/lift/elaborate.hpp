// Internal to the front end: elaboration of the surface syntax into the IR.
//
// Elaboration evaluates the syntax tree to semantic values: sizes, types, data expressions (IR
// expression nodes), callables (IR functions, possibly with bound leading arguments such as the
// initial value of Reduce(f, init), or compositions f o g), and the small helper values that
// UserFun declarations are built from. A `val`/`def` binding is re-elaborated at each use, so
// every IR node has a single syntactic occurrence (the type checker relies on this); user
// functions are declared once and shared by name.
#pragma once

#include "egopt/lift/ir.hpp"
#include "syntax.hpp"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace egopt::lift::detail {

struct Env;

// Something that can be applied to data.
struct Callable {
    enum class Kind : uint8_t { Node, Bound, Compose } kind = Kind::Node;
    NodeId node = kNoNode;       // Node and Bound: the IR function
    std::vector<NodeId> bound;   // Bound: leading arguments (Reduce's initial value)
    std::vector<Callable> parts; // Compose: outermost first
};

// The composition of IR functions, outermost first (Lift's f o g o ...).
Callable composeOf(const std::vector<NodeId>& outermostFirst);

struct Val {
    enum class Kind : uint8_t {
        Size,
        Type,
        Expr,
        Fun,
        String,
        List,     // Array(...) / Seq(...) of values (UserFun parameter names and types)
        Boundary, // Pad.Boundary.X
        Partial,  // a pattern awaiting its function: MapGlb(0), Iterate(6), Pad (namespace)
        Macro,    // def f(x, ...) = e: applied by substituting its arguments' values
        Unbound,  // a name defined nowhere: an implicit size variable where a size is expected
    } kind = Kind::Size;
    arith::Size size;
    TypeId type = kNoType;
    NodeId node = kNoNode;
    Callable fun;
    std::string text; // String contents; Partial: the pattern name
    std::vector<Val> list;
    int32_t ival = 0;                 // Boundary; Partial: dimension
    std::vector<arith::Size> sizes;   // Partial: numeric arguments
    SyntaxId syntax = 0;              // Macro: its Lambda syntax
    std::shared_ptr<const Env> scope; // Macro: the environment of its definition
    SourceLoc loc;
};

// Name bindings: an immutable linked list, so closures can keep the environment they saw.
struct Env {
    std::string name;
    // Either a value (lambda parameters) or a deferred val/def (syntax elaborated at each use
    // in the environment of its definition).
    std::optional<Val> value;
    SyntaxId syntax = 0;
    std::shared_ptr<const Env> scope; // the environment of a deferred binding
    std::shared_ptr<const Env> parent;
};
using EnvPtr = std::shared_ptr<const Env>;

class Elaborator {
public:
    Elaborator(const SyntaxFile& file, Program& program);
    Elaborator(const SyntaxFile& file, Program& program, std::string fileName);
    ~Elaborator();
    // Elaborates the program into `program`; the file's bindings are visible to it, and so are
    // Lift's standard user functions (lib/lift/stdlib.lift) that the file does not redefine.
    void run();

    // --- used by the named forms (elaborate_calls.cpp)
    Val eval(SyntaxId id, const EnvPtr& env);
    Val call(SyntaxId callSyntax, const EnvPtr& env);
    [[noreturn]] void fail(SourceLoc loc, const std::string& message) const;
    [[noreturn]] void failAt(SyntaxId id, const std::string& message) const;

private:
    using Args = std::vector<SyntaxId>;
    Val name(SyntaxId id, const EnvPtr& env);
    Val builtinName(SyntaxId id);
    NodeId numberLiteral(std::string text, bool single, SourceLoc loc); // .toFloat
    Val compose(Val outer, Val inner, SourceLoc loc);                   // outer o inner
    Val binary(SyntaxId id, const EnvPtr& env);
    Val field(SyntaxId id, const EnvPtr& env);
    Val negate(SyntaxId id, const EnvPtr& env);
    Val lambdaSyntax(SyntaxId id, const EnvPtr& env, std::span<const TypeId> declared);
    Val block(SyntaxId id, const EnvPtr& env);
    Val applyMacro(const Val& macro, SyntaxId site, const Args& args, const EnvPtr& env);
    Val memberCall(SyntaxId id, const EnvPtr& env, bool& handled);
    std::optional<Val> libraryName(const std::string& name, SourceLoc loc);
    Val foldLiterals(SyntaxId id, const Val& lhs, const Val& rhs);
    std::string zeroText(TypeId t) const;
    Val namedForm(const std::string& name, SyntaxId callSyntax, const Args& args, const EnvPtr& env,
                  bool& handled);
    Val applyValue(const Val& callee, SyntaxId callSyntax, const Args& args, const EnvPtr& env);
    Val completePartial(const Val& partial, SyntaxId callSyntax, const Args& args,
                        const EnvPtr& env);

    // Named forms, grouped (elaborate_calls.cpp, elaborate_patterns.cpp).
    std::optional<Val> typeOrSizeForm(const std::string& name, SyntaxId site, const Args& args,
                                      const EnvPtr& env);
    std::optional<Val> patternForm(const std::string& name, SyntaxId site, const Args& args,
                                   const EnvPtr& env);
    std::optional<Val> dataForm(const std::string& name, SyntaxId site, const Args& args,
                                const EnvPtr& env);
    // ScanSeq, ReduceWhileSeq and InsertionSortSeq (elaborate_sequential.cpp).
    std::optional<Val> sequentialForm(const std::string& name, SyntaxId site, const Args& args,
                                      const EnvPtr& env);
    // Head, Tail, MapSeqSlide and PrintType, expanded (elaborate_derived.cpp).
    std::optional<Val> derivedForm(const std::string& name, SyntaxId site, const Args& args,
                                   const EnvPtr& env);
    Val arrayAccess(const Val& index, SourceLoc loc); // UnsafeArrayAccess(index)
    // LSearch(f, init) and BSearch(f, init)
    Val search(const std::string& name, SyntaxId site, const Args& args, const EnvPtr& env);
    NodeId searchStep(TypeId element, SourceLoc loc);
    // CheckedArrayAccess(index, default)
    Val checkedAccess(const Val& index, SyntaxId defaultArg, const EnvPtr& env, SourceLoc loc);
    // Scala's limits of a scalar type as literals: Float.MaxValue, Int.MinValue, ...
    std::optional<Val> scalarLimit(TypeId type, const std::string& name, SourceLoc loc);
    Val userFunForm(SyntaxId site, const Args& args, const EnvPtr& env);
    Val lambdaForm(SyntaxId site, const Args& args, const EnvPtr& env);
    Val slide2D(SyntaxId site, const Args& args, const EnvPtr& env);
    Val slide3D(SyntaxId site, const Args& args, const EnvPtr& env);
    // Pad, Pad2D, Pad3D and (constant = true) PadConstant, PadConstant2D, PadConstant3D.
    struct Padding {
        int32_t boundary = 0;   // a PadBoundary
        NodeId value = kNoNode; // PadBoundary::Constant: the Literal padding value
    };
    Padding paddingArg(SyntaxId arg, bool constant, const EnvPtr& env);
    NodeId padNode(const Padding& p, const arith::Size& left, const arith::Size& right,
                   SourceLoc loc);
    Val pad1D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant);
    Val pad2D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant);
    Val pad3D(SyntaxId site, const Args& args, const EnvPtr& env, bool constant);
    Val zipND(SyntaxId site, const Args& args, const EnvPtr& env, int dims);
    std::vector<arith::Size> sizeArgs(const Args& args, size_t count, const char* what,
                                      const EnvPtr& env);

public:
    // --- conversions with "expected ..." errors
    arith::Size asSize(const Val& v, SourceLoc loc, const char* what) const;
    int64_t asConstant(const Val& v, SourceLoc loc, const char* what) const;
    TypeId asType(const Val& v, SourceLoc loc, const char* what) const;
    NodeId asExpr(const Val& v, SourceLoc loc, const char* what);
    NodeId asFunction(const Val& given, SourceLoc loc, const char* what);
    // A def used as a function value (Map(fivePoint)) becomes a lambda over fresh parameters.
    Val asFunctionValue(const Val& v);
    [[noreturn]] void failUnknownName(const Val& v) const;
    const std::string& asString(const Val& v, SourceLoc loc, const char* what) const;

    // --- building
    NodeId materialize(const Callable& c, SourceLoc loc);
    NodeId applyCallable(const Callable& c, std::vector<NodeId> args, SourceLoc loc);
    Val funVal(NodeId node, SourceLoc loc) const;
    Val flatTranspose(bool gather, const std::vector<arith::Size>& sizes, SourceLoc loc);
    Val exprVal(NodeId node, SourceLoc loc) const;
    Val sizeVal(arith::Size s, SourceLoc loc) const;
    Val typeVal(TypeId t, SourceLoc loc) const;
    arith::Size sizeVariable(const std::string& name);
    NodeId node(Op op, int32_t ival, std::vector<NodeId> children, std::vector<arith::Size> sizes,
                SourceLoc loc);
    void expectArgs(SyntaxId site, const Args& args, size_t min, size_t max,
                    const std::string& what) const;
    SourceLoc locOf(SyntaxId id) const { return file_.at(id).loc; }
    const SyntaxFile& file() const { return file_; }
    Program& program() { return program_; }

private:
    const SyntaxFile& file_;
    Program& program_;
    std::map<SyntaxId, uint32_t> userFunBySyntax_;
    std::map<std::string, uint32_t, std::less<>> userFunByName_;
    // Size variables in use, with where each first appeared (implicit ones are found during
    // elaboration, the declared ones by the parser).
    mutable std::set<std::string, std::less<>> usedSizeVars_;
    mutable std::map<std::string, SourceLoc, std::less<>> implicitSizeVars_;
    std::string fileName_;
    std::unique_ptr<Elaborator> library_; // elaborates lib/lift/stdlib.lift on demand
    std::shared_ptr<const Env> topLevel_; // this file's bindings
    uint32_t depth_ = 0;

    friend struct DepthScope;
};

bool envHas(const EnvPtr& env, const std::string& name);

// The parsed text of lib/lift/stdlib.lift (Lift's standard user functions), parsed once.
const SyntaxFile& stdlibSyntax();
inline constexpr const char* kStdlibFileName = "lib/lift/stdlib.lift";

// Scalar and vector type names (Float, Int, Float4, ...): the type, or kNoType.
TypeId namedType(const std::string& name, TypeArena& types);

} // namespace egopt::lift::detail
