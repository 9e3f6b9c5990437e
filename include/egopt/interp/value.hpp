// Runtime values of the reference interpreter and of C user functions.
//
// Scalars are stored inline; vectors, tuples and arrays share an immutable element list, so
// copying a Value is cheap and data-layout patterns (Split, Join, Zip, ...) build new lists of
// shared elements without copying the data below them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace egopt::interp {

class Value {
public:
    enum class Kind : uint8_t { Float, Int, Double, Bool, Vector, Tuple, Array };

    Value() : Value(0.0f) {}
    static Value ofFloat(float v) { return Value(v); }
    static Value ofInt(int32_t v);
    static Value ofDouble(double v);
    static Value ofBool(bool v);
    // Lanes of a vector are scalars of one kind (Float for float4).
    static Value vector(std::vector<Value> lanes);
    static Value tuple(std::vector<Value> fields);
    static Value array(std::vector<Value> elements);

    Kind kind() const { return kind_; }
    bool isScalar() const { return kind_ <= Kind::Bool; }

    float asFloat() const { return f_; }
    int32_t asInt() const { return i_; }
    double asDouble() const { return d_; }
    bool asBool() const { return b_; }
    // Any numeric scalar as double (for comparisons and JSON output).
    double toDouble() const;

    // Vector lanes, tuple fields or array elements.
    const std::vector<Value>& elems() const;
    size_t size() const { return elems().size(); }
    const Value& operator[](size_t i) const { return elems()[i]; }

    // JSON text: numbers, arrays as lists, tuples and vectors as lists too.
    std::string toJson() const;

private:
    explicit Value(float v) : kind_(Kind::Float), f_(v) {}
    Kind kind_;
    union {
        float f_;
        int32_t i_;
        double d_;
        bool b_;
    };
    std::shared_ptr<const std::vector<Value>> elems_;
};

} // namespace egopt::interp
