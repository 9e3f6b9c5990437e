// Runtime values of the C interpreter: up to 16 lanes of one element kind, or tuple fields.
// Float lanes hold float values (every float operation rounds to float, as on a device);
// integer lanes are kept wrapped to their C width.
#pragma once

#include "c_ast.hpp"
#include "c_error.hpp"

#include <optional>

namespace egopt::interp::c {

union Lane {
    double f;
    int64_t i;
};

struct CVal {
    CType type;
    std::array<Lane, 16> lanes{};
    std::vector<CVal> fields; // Tuple

    bool truthy() const { return type.isFloating() ? lanes[0].f != 0 : lanes[0].i != 0; }
    double laneDouble(int k) const {
        return type.isFloating() ? lanes[k].f : static_cast<double>(lanes[k].i);
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

// a op b for arithmetic, bitwise and comparison operators (not && ||).
CVal binary(Op op, const CVal& a, const CVal& b, const Where& w);
// -a, +a, ~a, !a.
CVal unary(Op op, const CVal& a, const Where& w);

} // namespace egopt::interp::c
