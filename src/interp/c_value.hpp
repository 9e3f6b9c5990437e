// Runtime values of the C interpreter: up to 16 lanes of one element kind, or tuple fields.
// Float lanes hold float values (every float operation rounds to float, as on a device);
// integer lanes are kept wrapped to their C width.
#pragma once

#include "c_ast.hpp"
#include "c_error.hpp"

#include <cstring>
#include <optional>

namespace egopt::interp::c {

union Lane {
    double f;
    int64_t i;
};

// A value's 16 lanes, not cleared on construction: every operation reads only the lanes of its
// operands' widths, and clearing all 16 on every temporary cost more than the arithmetic.
// Copies copy the bytes, set or not.
class Lanes {
public:
    Lanes() {} // NOLINT(modernize-use-equals-default): `= default` would clear on value-init
    Lanes(const Lanes& o) { std::memcpy(lanes_, o.lanes_, sizeof lanes_); }
    Lanes& operator=(const Lanes& o) {
        std::memcpy(lanes_, o.lanes_, sizeof lanes_);
        return *this;
    }
    Lane& operator[](size_t k) { return lanes_[k]; }
    const Lane& operator[](size_t k) const { return lanes_[k]; }
    Lane* begin() { return lanes_; }
    Lane* end() { return lanes_ + 16; }

private:
    Lane lanes_[16];
};

struct CVal {
    CType type;
    Lanes lanes;
    std::vector<CVal> fields; // Tuple

    bool truthy() const { return type.isFloating() ? lanes[0].f != 0 : lanes[0].i != 0; }
    double laneDouble(int k) const {
        return type.isFloating()          ? lanes[k].f
               : type.base == Base::ULong ? static_cast<double>(static_cast<uint64_t>(lanes[k].i))
                                          : static_cast<double>(lanes[k].i);
    }
};

// Where a runtime fault is reported.
struct Where {
    const Reporter& rep;
    uint32_t line;
    [[noreturn]] void fail(const std::string& msg) const { rep.fail(line, msg); }
};

CVal scalarInt(int64_t v, Base b = Base::Int);
CVal scalarFloat(double v, Base b = Base::Float);
// The value a declared but unassigned variable holds (zeros; tuples get their fields).
CVal zeroOf(CType t, const Ast& ast);

// Bool and char promote to int in arithmetic.
CType promote(CType t);
// The usual arithmetic conversions, extended to vectors as OpenCL does (a scalar operand is
// broadcast to the vector's type); nullopt where OpenCL C rejects the mix.
std::optional<CType> commonType(CType a, CType b);
// Whether a value of `from` can be assigned to `to` (with C's implicit conversions).
bool assignable(CType from, CType to);

// Converts (and broadcasts a scalar to a vector); float to int truncates as C does, and a value
// out of the integer's range is a fault rather than a silent wrong number.
CVal convert(const CVal& v, CType to, const Where& w);

// The bytes of one lane of kind b (bool: 1).
int laneBytes(Base b);
// as_T(v): the bits of each lane of v read as a lane of `to` (of as many bytes).
CVal reinterpret(const CVal& v, CType to);

// a op b for arithmetic, bitwise and comparison operators (not && ||).
CVal binary(Op op, const CVal& a, const CVal& b, const Where& w);
// -a, +a, ~a, !a.
CVal unary(Op op, const CVal& a, const Where& w);

// The operations above lane by lane, shared by the evaluator of scalar functions (c_scalar.hpp)
// so that both give the same numbers.
// One lane converted between element kinds, as convert does.
Lane convertScalar(Lane x, Base from, Base to, const Where& w);
// Whether a lane of type t is true in a condition.
bool truthy(Lane l, CType t);
// The type of a op b for operands of the common type ct.
CType binaryResult(Op op, CType ct);
// One lane of a op b, x and y of the common type ct.
Lane binaryLane(Op op, Lane x, Lane y, CType ct, const Where& w);
// One lane of -a, +a or ~a, l of the promoted type t.
Lane unaryLane(Op op, Lane l, CType t, const Where& w);

} // namespace egopt::interp::c
