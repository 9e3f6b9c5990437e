// The byte format of device jobs sent to other processes (docs/distributed.md, "Messages"):
// fixed-width little-endian integers and doubles, length-prefixed strings, and the structures
// built from them (size expressions, bindings, whole Lift programs). Nothing is parsed from
// report text: a program travels as its node, type and declaration tables, and decodes to a
// program whose ids are the sender's.
#pragma once

#include "egopt/arith/size.hpp"
#include "egopt/lift/ir.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace egopt::pipeline::wire {

class Writer {
public:
    void u8(uint8_t v) { bytes(&v, 1); }
    void u32(uint32_t v) { bytes(&v, sizeof v); }
    void u64(uint64_t v) { bytes(&v, sizeof v); }
    void i64(int64_t v) { bytes(&v, sizeof v); }
    void f64(double v) { bytes(&v, sizeof v); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void str(std::string_view s);
    void size(const arith::Size& s); // as its Lift text, checked to read back equal
    void bindings(const arith::Bindings& b);
    void program(const lift::Program& p);
    const std::string& data() const { return out_; }
    std::string take() { return std::move(out_); }

private:
    void bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
    std::string out_;
};

// Reads what a Writer wrote, in the same order. Throws egopt::Error (Internal) on a truncated
// or malformed message.
class Reader {
public:
    explicit Reader(std::string_view data) : in_(data) {}
    uint8_t u8() { return get<uint8_t>(); }
    uint32_t u32() { return get<uint32_t>(); }
    uint64_t u64() { return get<uint64_t>(); }
    int64_t i64() { return get<int64_t>(); }
    double f64() { return get<double>(); }
    bool boolean() { return u8() != 0; }
    std::string str();
    arith::Size size();
    arith::Bindings bindings();
    lift::Program program();
    bool done() const { return pos_ == in_.size(); }

private:
    template <class T>
    T get() {
        T v;
        need(sizeof v);
        __builtin_memcpy(&v, in_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    void need(size_t n) const;
    std::string_view in_;
    size_t pos_ = 0;
};

// A size expression from its Lift text (arith::Size::toString): sums, products, /, /^, %,
// pow(a,b), unary minus, parentheses, integers and names. Throws egopt::Error (Internal) on
// anything else.
arith::Size parseSize(std::string_view text);

} // namespace egopt::pipeline::wire
