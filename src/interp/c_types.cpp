// Lift types as C types, and OpenCL vector component names.
#include "c_types.hpp"

#include <algorithm>

namespace egopt::interp::c {

namespace {

int laneOf(char c) {
    switch (c) {
    case 'x':
        return 0;
    case 'y':
        return 1;
    case 'z':
        return 2;
    case 'w':
        return 3;
    default:
        return -1;
    }
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

// .lo .hi .even .odd select half of the lanes.
bool halfSwizzle(const std::string& name, int width, Access& acc) {
    int half = width / 2;
    for (int k = 0; k < half; ++k) {
        int lane = name == "lo" ? k : name == "hi" ? half + k : name == "even" ? 2 * k : 2 * k + 1;
        acc.lanes[acc.count++] = static_cast<uint8_t>(lane);
    }
    return name == "lo" || name == "hi" || name == "even" || name == "odd";
}

} // namespace

std::optional<Access> parseSwizzle(const std::string& name, int width) {
    Access acc;
    if (width != 3 && halfSwizzle(name, width, acc)) {
        return acc;
    }
    acc.count = 0;
    bool numbered = name.size() > 1 && (name[0] == 's' || name[0] == 'S');
    for (size_t i = numbered ? 1 : 0; i < name.size(); ++i) {
        int lane = numbered ? hexDigit(name[i]) : laneOf(name[i]);
        if (lane < 0 || lane >= width || acc.count == 16) {
            return std::nullopt;
        }
        acc.lanes[acc.count++] = static_cast<uint8_t>(lane);
    }
    int n = acc.count;
    bool validCount = n == 1 || n == 2 || n == 3 || n == 4 || n == 8 || n == 16;
    return validCount ? std::optional(acc) : std::nullopt;
}

CType fromLift(lift::TypeId id, const lift::TypeArena& types, Ast& ast, const Reporter& rep,
               const std::string& what) {
    const lift::TypeNode& n = types.at(id);
    if (n.kind == lift::TypeKind::Array) {
        rep.fail(0, what + " has an array type, which C user functions do not support");
    }
    if (n.kind == lift::TypeKind::Tuple) {
        std::vector<CType> fields;
        for (lift::TypeId f : n.elems) {
            fields.push_back(fromLift(f, types, ast, rep, what));
        }
        ast.tuples[id] = std::move(fields);
        return CType{.base = Base::Tuple, .width = 1, .tuple = id};
    }
    Base b = Base::Float;
    switch (n.scalar) {
    case lift::ScalarKind::Float:
        b = Base::Float;
        break;
    case lift::ScalarKind::Int:
        b = Base::Int;
        break;
    case lift::ScalarKind::Double:
        b = Base::Double;
        break;
    case lift::ScalarKind::Bool:
        b = Base::Bool;
        break;
    default:
        rep.fail(0, what + " has type " + types.show(id) + ", which is not supported");
    }
    return CType{.base = b,
                 .width = static_cast<uint8_t>(n.kind == lift::TypeKind::Vector ? n.width : 1),
                 .tuple = lift::kNoType};
}

} // namespace egopt::interp::c
