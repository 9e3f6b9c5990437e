#include "c_value.hpp"

#include <bit>
#include <cmath>

namespace egopt::interp::c {

namespace {

// Integer lanes hold their value wrapped to the kind's width. The unsigned kinds narrower than
// 64 bits hold their value (0 to 2^n - 1: int64 comparison, / % and >> are unsigned); a ulong
// holds its bits, and its comparisons, / % >> and conversions read them as unsigned.
int64_t wrap(Base b, int64_t v) {
    auto u = static_cast<uint64_t>(v);
    switch (b) {
    case Base::Bool:
        return v != 0;
    case Base::Char:
        return static_cast<int8_t>(static_cast<uint8_t>(u));
    case Base::UChar:
        return static_cast<uint8_t>(u);
    case Base::Short:
        return static_cast<int16_t>(static_cast<uint16_t>(u));
    case Base::UShort:
        return static_cast<uint16_t>(u);
    case Base::Int:
        return static_cast<int32_t>(static_cast<uint32_t>(u));
    case Base::UInt:
        return static_cast<uint32_t>(u);
    default:
        return v;
    }
}

// The range of an integer kind as doubles (ulong's upper end exclusive: 2^64).
std::pair<double, double> rangeOf(Base b) {
    switch (b) {
    case Base::Char:
        return {-128.0, 127.0};
    case Base::UChar:
        return {0.0, 255.0};
    case Base::Short:
        return {-32768.0, 32767.0};
    case Base::UShort:
        return {0.0, 65535.0};
    case Base::Int:
        return {-2147483648.0, 2147483647.0};
    case Base::UInt:
        return {0.0, 4294967295.0};
    case Base::ULong:
        return {0.0, 1.8446744073709550e19};
    default:
        return {-9.223372036854775808e18, 9.223372036854775e18};
    }
}

// Float to integer is undefined in C outside the target's range; report it instead.
int64_t truncate(double d, Base to, const Where& w) {
    double t = std::trunc(d);
    auto [lo, hi] = rangeOf(to);
    if (!(t >= lo && t <= hi)) {
        w.fail("converting " + std::to_string(d) + " to " + typeName(scalarType(to)) +
               " is out of range");
    }
    return to == Base::ULong ? static_cast<int64_t>(static_cast<uint64_t>(t))
                             : static_cast<int64_t>(t);
}

Lane convertLane(Lane x, Base from, Base to, const Where& w) {
    bool fromFloat = from == Base::Float || from == Base::Double;
    Lane r{};
    if (to == Base::Float && from == Base::ULong) { // rounded once, from the unsigned value
        r.f = static_cast<double>(static_cast<float>(static_cast<uint64_t>(x.i)));
    } else if (to == Base::Float || to == Base::Double) {
        double d = fromFloat             ? x.f
                   : from == Base::ULong ? static_cast<double>(static_cast<uint64_t>(x.i))
                                         : static_cast<double>(x.i);
        r.f = to == Base::Float ? static_cast<double>(static_cast<float>(d)) : d;
    } else if (to == Base::Bool) {
        r.i = fromFloat ? x.f != 0 : x.i != 0;
    } else {
        r.i = fromFloat ? truncate(x.f, to, w) : wrap(to, x.i);
    }
    return r;
}

bool isComparison(Op op) {
    return op >= Op::Lt && op <= Op::Ne;
}

bool compare(Op op, double x, double y) {
    switch (op) {
    case Op::Lt:
        return x < y;
    case Op::Gt:
        return x > y;
    case Op::Le:
        return x <= y;
    case Op::Ge:
        return x >= y;
    case Op::Eq:
        return x == y;
    default:
        return x != y;
    }
}

template <class T>
bool compareInt(Op op, T x, T y) {
    switch (op) {
    case Op::Lt:
        return x < y;
    case Op::Gt:
        return x > y;
    case Op::Le:
        return x <= y;
    case Op::Ge:
        return x >= y;
    case Op::Eq:
        return x == y;
    default:
        return x != y;
    }
}

// Float lanes compute in float so that results round as on a device.
double floatOp(Op op, double x, double y, bool single, const Where& w) {
    if (single) {
        float a = static_cast<float>(x), b = static_cast<float>(y);
        switch (op) {
        case Op::Add:
            return a + b;
        case Op::Sub:
            return a - b;
        case Op::Mul:
            return a * b;
        case Op::Div:
            return a / b;
        default:
            break;
        }
    } else {
        switch (op) {
        case Op::Add:
            return x + y;
        case Op::Sub:
            return x - y;
        case Op::Mul:
            return x * y;
        case Op::Div:
            return x / y;
        default:
            break;
        }
    }
    w.fail("this operator needs integer operands");
}

// Signed overflow wraps (two's complement, as devices do); division faults are reported.
// Scalars arrive promoted (int at least); vectors of narrow kinds compute in their width.
int64_t intOp(Op op, int64_t x, int64_t y, Base b, const Where& w) {
    auto ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    bool ulong = b == Base::ULong;
    int bits = 8 * laneBytes(b);
    switch (op) {
    case Op::Add:
        return wrap(b, static_cast<int64_t>(ux + uy));
    case Op::Sub:
        return wrap(b, static_cast<int64_t>(ux - uy));
    case Op::Mul:
        return wrap(b, static_cast<int64_t>(ux * uy));
    case Op::BitAnd:
        return x & y;
    case Op::BitOr:
        return x | y;
    case Op::BitXor:
        return x ^ y;
    case Op::Shl:
    case Op::Shr:
        if (y < 0 || y >= bits) {
            w.fail("shift by " + std::to_string(y) + " is out of range");
        }
        if (op == Op::Shl) {
            return wrap(b, static_cast<int64_t>(ux << y));
        }
        return ulong ? static_cast<int64_t>(ux >> y) : x >> y;
    default:
        break;
    }
    if (y == 0) {
        w.fail("integer division by zero");
    }
    if (ulong) {
        return static_cast<int64_t>(op == Op::Div ? ux / uy : ux % uy);
    }
    if (y == -1 && x == (b == Base::Long    ? INT64_MIN
                         : b == Base::Int   ? INT32_MIN
                         : b == Base::Short ? INT16_MIN
                                            : INT8_MIN)) {
        w.fail("integer division overflows");
    }
    return op == Op::Div ? x / y : x % y; // C truncates toward zero, as C++ does
}

} // namespace

CVal scalarInt(int64_t v, Base b) {
    CVal r;
    r.type = scalarType(b);
    r.lanes[0].i = wrap(b, v);
    return r;
}

CVal scalarFloat(double v, Base b) {
    CVal r;
    r.type = scalarType(b);
    r.lanes[0].f = b == Base::Float ? static_cast<double>(static_cast<float>(v)) : v;
    return r;
}

CVal zeroOf(CType t, const Ast& ast) {
    CVal r;
    r.type = t;
    if (t.isArray()) {
        r.fields.assign(t.count, zeroOf(t.element(), ast));
    } else if (t.base == Base::Tuple) {
        for (CType f : ast.tuples.at(t.tuple)) {
            r.fields.push_back(zeroOf(f, ast));
        }
    } else {
        for (auto& l : r.lanes) {
            if (t.isFloating()) {
                l.f = 0;
            } else {
                l.i = 0;
            }
        }
    }
    return r;
}

CType promote(CType t) {
    if (t.base < Base::Int) { // bool, char, uchar, short, ushort
        t.base = Base::Int;
    }
    return t;
}

std::optional<CType> commonType(CType a, CType b) {
    if (a == b && a.width == 1 && a.base >= Base::Int && a.isNumeric() &&
        a.tuple == lift::kNoType) {
        return a; // the usual case, and what the rules below give for it
    }
    if (!a.isNumeric() || !b.isNumeric()) {
        return std::nullopt;
    }
    if (a.width == 1 && b.width == 1) {
        return scalarType(std::max(promote(a).base, promote(b).base));
    }
    if (a.width > 1 && b.width > 1) {
        return a == b ? std::optional(a) : std::nullopt;
    }
    CType vec = a.width > 1 ? a : b;
    CType sca = a.width > 1 ? b : a;
    // OpenCL converts the scalar to the vector's element type, but not a float into an int
    // vector.
    if (vec.isInteger() && sca.isFloating()) {
        return std::nullopt;
    }
    return vec;
}

bool assignable(CType from, CType to) {
    // An array only from its brace initialiser (the checker rejects arrays anywhere else).
    if (from.base == Base::Tuple || to.base == Base::Tuple || from.isArray() || to.isArray()) {
        return from == to;
    }
    if (!from.isNumeric() || !to.isNumeric()) {
        return false;
    }
    return from.width == 1 || from == to;
}

CVal convert(const CVal& v, CType to, const Where& w) {
    if (v.type == to) {
        return v;
    }
    bool laneWise = v.type.isNumeric() && to.isNumeric() && v.type.width == to.width;
    if (!assignable(v.type, to) && !laneWise) { // convert_T converts vectors lane by lane
        w.fail("cannot convert " + typeName(v.type) + " to " + typeName(to));
    }
    CVal r;
    r.type = to;
    for (int k = 0; k < to.width; ++k) {
        r.lanes[k] = convertLane(v.lanes[v.type.width == 1 ? 0 : k], v.type.base, to.base, w);
    }
    return r;
}

int laneBytes(Base b) {
    switch (b) {
    case Base::Bool:
    case Base::Char:
    case Base::UChar:
        return 1;
    case Base::Short:
    case Base::UShort:
        return 2;
    case Base::Int:
    case Base::UInt:
    case Base::Float:
        return 4;
    default:
        return 8;
    }
}

namespace {

// A lane's bits as an unsigned integer of its size, and back.
uint64_t bitsOf(Lane l, Base b) {
    switch (b) {
    case Base::Float:
        return std::bit_cast<uint32_t>(static_cast<float>(l.f));
    case Base::Double:
        return std::bit_cast<uint64_t>(l.f);
    case Base::Char:
    case Base::UChar:
        return static_cast<uint8_t>(l.i);
    case Base::Short:
    case Base::UShort:
        return static_cast<uint16_t>(l.i);
    case Base::Int:
    case Base::UInt:
        return static_cast<uint32_t>(l.i);
    default:
        return static_cast<uint64_t>(l.i);
    }
}

Lane fromBits(uint64_t bits, Base b) {
    Lane l;
    if (b == Base::Float) {
        l.f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    } else if (b == Base::Double) {
        l.f = std::bit_cast<double>(bits);
    } else {
        l.i = wrap(b, static_cast<int64_t>(bits));
    }
    return l;
}

} // namespace

CVal reinterpret(const CVal& v, CType to) {
    CVal r;
    r.type = to;
    for (int k = 0; k < to.width; ++k) {
        r.lanes[k] = fromBits(bitsOf(v.lanes[k], v.type.base), to.base);
    }
    return r;
}

Lane convertScalar(Lane x, Base from, Base to, const Where& w) {
    return convertLane(x, from, to, w);
}

bool truthy(Lane l, CType t) {
    return t.isFloating() ? l.f != 0 : l.i != 0;
}

Lane binaryLane(Op op, Lane x, Lane y, CType ct, const Where& w) {
    Lane r;
    if (isComparison(op)) {
        bool t = ct.isFloating() ? compare(op, x.f, y.f)
                 : ct.base == Base::ULong
                     ? compareInt(op, static_cast<uint64_t>(x.i), static_cast<uint64_t>(y.i))
                     : compareInt(op, x.i, y.i);
        int64_t yes = ct.width > 1 ? -1 : 1; // OpenCL vector comparisons give -1 for true
        r.i = t ? yes : 0;
    } else if (ct.isFloating()) {
        r.f = floatOp(op, x.f, y.f, ct.base == Base::Float, w);
    } else {
        r.i = intOp(op, x.i, y.i, ct.base, w);
    }
    return r;
}

CType binaryResult(Op op, CType ct) {
    return isComparison(op) ? CType{.base = Base::Int, .width = ct.width, .tuple = lift::kNoType}
                            : ct;
}

Lane unaryLane(Op op, Lane l, CType t, const Where& w) {
    if (op == Op::Neg) {
        if (t.isFloating()) {
            l.f = -l.f;
        } else {
            l.i = wrap(t.base, static_cast<int64_t>(0 - static_cast<uint64_t>(l.i)));
        }
    } else if (op == Op::BitNot) {
        if (t.isFloating()) {
            w.fail("'~' needs an integer operand");
        }
        l.i = wrap(t.base, ~l.i);
    }
    return l;
}

CVal binary(Op op, const CVal& a, const CVal& b, const Where& w) {
    auto ct = commonType(a.type, b.type);
    if (!ct) {
        w.fail("operands of types " + typeName(a.type) + " and " + typeName(b.type) +
               " do not match");
    }
    // Operands already of the common type (the usual case) are not copied.
    CVal xc, yc;
    const CVal& x = a.type == *ct ? a : (xc = convert(a, *ct, w));
    const CVal& y = b.type == *ct ? b : (yc = convert(b, *ct, w));
    CVal r;
    r.type = binaryResult(op, *ct);
    for (int k = 0; k < ct->width; ++k) {
        r.lanes[k] = binaryLane(op, x.lanes[k], y.lanes[k], *ct, w);
    }
    return r;
}

CVal unary(Op op, const CVal& a, const Where& w) {
    if (op == Op::Not) {
        if (a.type.width != 1 || !a.type.isNumeric()) {
            w.fail("'!' needs a scalar operand");
        }
        return scalarInt(a.truthy() ? 0 : 1);
    }
    CVal r = convert(a, promote(a.type), w);
    for (int k = 0; k < r.type.width; ++k) {
        r.lanes[k] = unaryLane(op, r.lanes[k], r.type, w);
    }
    return r;
}

} // namespace egopt::interp::c
