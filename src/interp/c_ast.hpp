// The C subset of user functions as an arena of expressions and statements referred to by
// uint32_t ids (no pointer web): the parser fills it, the checker annotates types and slots, the
// evaluator walks it once per call.
#pragma once

#include "egopt/lift/type.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace egopt::interp::c {

inline constexpr uint32_t kNone = UINT32_MAX;

// Element kinds ordered by C conversion rank, so that max() gives the usual arithmetic
// conversion of two promoted scalars (the kinds below int promote to int first).
// uint (32 bits) ranks between int and long: int and uint meet in uint, uint and long in long,
// long and ulong in ulong.
enum class Base : uint8_t {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
    Tuple,
    Void
};

// Eight bytes, passed and compared in one register: the evaluators copy and compare types on
// every operation.
struct CType {
    Base base = Base::Void;
    uint8_t width = 1; // lanes of a vector; 1 for a scalar
    // A local array of `count` elements of the type below (0: not an array); of two dimensions,
    // `count` arrays of `inner` elements.
    uint8_t count = 0;
    uint8_t inner = 0;
    lift::TypeId tuple = lift::kNoType; // Tuple: the Lift tuple type (kNoType: "the result type")

    bool isNumeric() const { return base <= Base::Double && count == 0; }
    bool isArray() const { return count > 0; }
    bool isScalar() const { return isNumeric() && width == 1; }
    bool isVector() const { return isNumeric() && width > 1; }
    bool isInteger() const { return base <= Base::ULong; }
    bool isFloating() const { return base == Base::Float || base == Base::Double; }
    CType elem() const { return CType{.base = base, .width = 1, .tuple = lift::kNoType}; }
    CType element() const {
        return CType{.base = base, .width = width, .count = inner, .tuple = tuple};
    } // of an array
    // All eight bytes at once (the fields leave no padding).
    friend bool operator==(const CType& a, const CType& b) {
        return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
    }
};
static_assert(sizeof(CType) == 8 && std::has_unique_object_representations_v<CType>);

inline CType scalarType(Base b) {
    return CType{.base = b, .width = 1, .tuple = lift::kNoType};
}
std::string typeName(const CType& t);

enum class Op : uint8_t {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    LogAnd,
    LogOr,
    Neg,
    Plus,
    Not,
    BitNot,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
    Assign // plain assignment; compound assignment carries its arithmetic operator
};

enum class ExprKind : uint8_t {
    IntLit,
    FloatLit,
    Var,
    Unary,
    Binary,
    Assign,
    Ternary,
    Call,
    Member,
    Cast,
    InitList,
    Comma,
    Index // a[b]: an element of a local array
};

// Cast.inum of OpenCL's convert_T(x), which converts vectors lane by lane, and of as_T(x), which
// reads the bits of each lane as the other type.
inline constexpr int64_t kLaneConversion = 1;
inline constexpr int64_t kReinterpret = 2;

struct Expr {
    ExprKind kind = ExprKind::IntLit;
    Op op = Op::Assign;
    uint32_t line = 0; // 0-based line within the body
    uint32_t a = kNone, b = kNone, c = kNone;
    uint32_t listBegin = 0, listCount = 0; // Call arguments, InitList elements (in Ast::lists)
    std::string name{};                    // Var, Call, Member
    double fnum = 0;
    int64_t inum = 0;
    CType type{};         // literals and casts: from the parser; everything else: the checker
    uint32_t aux = kNone; // checker: Var slot, Call builtin id, Member access id
};

enum class StmtKind : uint8_t {
    Block,
    Decls,
    Decl,
    Expr,
    If,
    For,
    While,
    DoWhile,
    Break,
    Continue,
    Return,
    Empty,
    Switch,
    Case // a `case` (value) or `default` (a == kNone) label directly inside a switch's block
};

struct Stmt {
    StmtKind kind = StmtKind::Empty;
    uint32_t line = 0;
    // Decl: a = initialiser. If: a cond, b then, c else. For: a init, b cond, c step, d body.
    // While: a cond, b body. DoWhile: a body, b cond. Return, Expr: a. Switch: a value, b the
    // block. Case: a the label's expression (kNone for default).
    uint32_t a = kNone, b = kNone, c = kNone, d = kNone;
    uint32_t listBegin = 0, listCount = 0; // Block, Decls: statements
    std::string name{};                    // Decl
    CType type{};                          // Decl
    bool isConst = false;                  // Decl
    uint32_t slot = kNone;                 // Decl: assigned by the checker
    int64_t value = 0;                     // Case: the label's value
};

// A member access: a tuple field (_0) or a swizzle (.xyz, .s01, .lo).
struct Access {
    bool field = false;
    uint8_t count = 0;
    std::array<uint8_t, 16> lanes{};
};

struct Ast {
    std::vector<Expr> exprs;
    std::vector<Stmt> stmts;
    std::vector<uint32_t> lists;
    std::vector<Access> accesses;
    std::vector<CType> slotTypes;
    std::vector<std::string> slotNames;
    // Field types of every Tuple type the body meets, filled by the checker so that evaluation
    // does not need the TypeArena.
    std::map<lift::TypeId, std::vector<CType>> tuples;
    uint32_t root = kNone;

    uint32_t addExpr(Expr e);
    uint32_t addStmt(Stmt s);
    uint32_t addList(const std::vector<uint32_t>& ids); // returns listBegin
    const uint32_t* list(uint32_t begin) const { return lists.data() + begin; }
};

} // namespace egopt::interp::c
