#include "egopt/interp/value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace egopt::interp {

Value Value::ofInt(int32_t v) {
    Value r;
    r.kind_ = Kind::Int;
    r.i_ = v;
    return r;
}

Value Value::ofDouble(double v) {
    Value r;
    r.kind_ = Kind::Double;
    r.d_ = v;
    return r;
}

Value Value::ofBool(bool v) {
    Value r;
    r.kind_ = Kind::Bool;
    r.b_ = v;
    return r;
}

Value Value::vector(std::vector<Value> lanes) {
    Value r;
    r.kind_ = Kind::Vector;
    r.elems_ = std::make_shared<const std::vector<Value>>(std::move(lanes));
    return r;
}

Value Value::tuple(std::vector<Value> fields) {
    Value r;
    r.kind_ = Kind::Tuple;
    r.elems_ = std::make_shared<const std::vector<Value>>(std::move(fields));
    return r;
}

Value Value::array(std::vector<Value> elements) {
    Value r;
    r.kind_ = Kind::Array;
    r.elems_ = std::make_shared<const std::vector<Value>>(std::move(elements));
    return r;
}

double Value::toDouble() const {
    switch (kind_) {
    case Kind::Float:
        return f_;
    case Kind::Int:
        return i_;
    case Kind::Double:
        return d_;
    case Kind::Bool:
        return b_ ? 1.0 : 0.0;
    default:
        throw std::logic_error("Value::toDouble on a non-scalar");
    }
}

const std::vector<Value>& Value::elems() const {
    if (!elems_) {
        throw std::logic_error("Value::elems on a scalar");
    }
    return *elems_;
}

namespace {

void appendNumber(std::string& out, double v, bool single) {
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "Infinity" : "-Infinity";
        return;
    }
    char buf[64];
    char* end = buf;
    // Shortest %g text that reads back as the same float (or double). std::to_chars with a
    // precision writes what printf's %.*g writes, several times faster.
    for (int precision = single ? 6 : 15; precision <= 17; ++precision) {
        end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision).ptr;
        double back = 0;
        std::from_chars(buf, end, back);
        if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) {
            break;
        }
    }
    out.append(buf, end);
}

void appendJson(std::string& out, const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Float:
        appendNumber(out, v.asFloat(), true);
        return;
    case Value::Kind::Double:
        appendNumber(out, v.asDouble(), false);
        return;
    case Value::Kind::Int:
        out += std::to_string(v.asInt());
        return;
    case Value::Kind::Bool:
        out += v.asBool() ? "true" : "false";
        return;
    default:
        break;
    }
    out += '[';
    const auto& es = v.elems();
    for (size_t i = 0; i < es.size(); ++i) {
        if (i) {
            out += ',';
        }
        appendJson(out, es[i]);
    }
    out += ']';
}

} // namespace

std::string Value::toJson() const {
    std::string out;
    appendJson(out, *this);
    return out;
}

} // namespace egopt::interp

#include "egopt/interp/flatten.hpp"

namespace egopt::interp {

void flattenScalars(const Value& v, std::vector<double>& out) {
    if (v.isScalar()) {
        out.push_back(v.toDouble());
        return;
    }
    for (const Value& e : v.elems()) {
        flattenScalars(e, out);
    }
}

} // namespace egopt::interp
