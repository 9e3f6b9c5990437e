// The data-layout patterns of the reference interpreter (ICFP'15 §3 semantics).
#include "patterns.hpp"

#include <algorithm>

namespace egopt::interp::detail {

namespace {

[[noreturn]] void fault(const Site& where, const std::string& msg) {
    badInput(where.text() + ": " + msg);
}

const std::vector<Value>& elementsOf(const Value& v, const Site& where) {
    if (v.kind() != Value::Kind::Array) {
        fault(where, "expected an array");
    }
    return v.elems();
}

} // namespace

std::string Site::text() const {
    SourceLoc l = program.node(node).loc;
    return std::string(lift::opName(program.op(node))) +
           (l.known() ? " at " + std::to_string(l.line) + ":" + std::to_string(l.col) : "");
}

Value split(const Value& xs, int64_t k, const Site& where) {
    const auto& e = elementsOf(xs, where);
    int64_t n = static_cast<int64_t>(e.size());
    if (k <= 0 || n % k != 0) {
        fault(where, "split factor " + std::to_string(k) + " does not divide the length " +
                         std::to_string(n));
    }
    std::vector<Value> chunks;
    chunks.reserve(static_cast<size_t>(n / k));
    for (int64_t i = 0; i < n; i += k) {
        chunks.push_back(Value::array(std::vector<Value>(e.begin() + i, e.begin() + i + k)));
    }
    return Value::array(std::move(chunks));
}

Value join(const Value& xs, const Site& where) {
    const auto& rows = elementsOf(xs, where);
    size_t total = 0;
    for (const Value& row : rows) {
        total += elementsOf(row, where).size();
    }
    std::vector<Value> out;
    out.reserve(total);
    for (const Value& row : rows) {
        const auto& r = elementsOf(row, where);
        out.insert(out.end(), r.begin(), r.end());
    }
    return Value::array(std::move(out));
}

Value transpose(const Value& xs, const Site& where) {
    const auto& rows = elementsOf(xs, where);
    size_t cols = rows.empty() ? 0 : elementsOf(rows[0], where).size();
    std::vector<std::vector<Value>> out(cols);
    for (auto& col : out) {
        col.reserve(rows.size());
    }
    for (const Value& row : rows) {
        const auto& r = elementsOf(row, where);
        if (r.size() != cols) {
            fault(where, "rows of different lengths");
        }
        for (size_t c = 0; c < cols; ++c) {
            out[c].push_back(r[c]);
        }
    }
    std::vector<Value> result;
    result.reserve(cols);
    for (auto& col : out) {
        result.push_back(Value::array(std::move(col)));
    }
    return Value::array(std::move(result));
}

size_t zipLength(std::span<const Value> arrays, const Site& where) {
    if (arrays.empty()) {
        fault(where, "expected at least one array");
    }
    size_t n = elementsOf(arrays[0], where).size();
    for (const Value& a : arrays) {
        if (elementsOf(a, where).size() != n) {
            fault(where, "arrays of different lengths");
        }
    }
    return n;
}

Value zip(std::span<const Value> arrays, const Site& where) {
    size_t n = zipLength(arrays, where);
    std::vector<Value> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        std::vector<Value> fields;
        fields.reserve(arrays.size());
        for (const Value& a : arrays) {
            fields.push_back(a[i]);
        }
        out.push_back(Value::tuple(std::move(fields)));
    }
    return Value::array(std::move(out));
}

Value unzip(const Value& xs, const Site& where) {
    const auto& e = elementsOf(xs, where);
    if (e.empty()) {
        fault(where, "cannot unzip an empty array");
    }
    size_t arity = e[0].size();
    std::vector<std::vector<Value>> cols(arity);
    for (auto& c : cols) {
        c.reserve(e.size());
    }
    for (const Value& t : e) {
        for (size_t f = 0; f < arity; ++f) {
            cols[f].push_back(t[f]);
        }
    }
    std::vector<Value> fields;
    for (auto& c : cols) {
        fields.push_back(Value::array(std::move(c)));
    }
    return Value::tuple(std::move(fields));
}

Value asVector(const Value& xs, int64_t width, const Site& where) {
    const auto& e = elementsOf(xs, where);
    if (width <= 0 || e.size() % static_cast<size_t>(width) != 0) {
        fault(where, "vector width " + std::to_string(width) + " does not divide the length " +
                         std::to_string(e.size()));
    }
    std::vector<Value> out;
    out.reserve(e.size() / static_cast<size_t>(width));
    for (size_t i = 0; i < e.size(); i += static_cast<size_t>(width)) {
        out.push_back(Value::vector(std::vector<Value>(
            e.begin() + static_cast<ptrdiff_t>(i), e.begin() + static_cast<ptrdiff_t>(i) + width)));
    }
    return Value::array(std::move(out));
}

Value asScalar(const Value& xs, const Site& where) {
    std::vector<Value> out;
    for (const Value& v : elementsOf(xs, where)) {
        if (v.kind() != Value::Kind::Vector) {
            fault(where, "expected an array of vectors");
        }
        out.insert(out.end(), v.elems().begin(), v.elems().end());
    }
    return Value::array(std::move(out));
}

Value slide(const Value& xs, int64_t size, int64_t step, const Site& where) {
    const auto& e = elementsOf(xs, where);
    int64_t n = static_cast<int64_t>(e.size());
    if (size <= 0 || step <= 0) {
        fault(where, "slide size and step must be positive");
    }
    std::vector<Value> out;
    for (int64_t start = 0; start + size <= n; start += step) {
        out.push_back(
            Value::array(std::vector<Value>(e.begin() + start, e.begin() + start + size)));
    }
    return Value::array(std::move(out));
}

namespace {

// A value shaped like `like` (the same nested arrays) with every innermost element `fill`.
Value filledLike(const Value& like, const Value& fill) {
    if (like.kind() != Value::Kind::Array) {
        return fill;
    }
    std::vector<Value> out;
    out.reserve(like.size());
    for (size_t i = 0; i < like.size(); ++i) {
        out.push_back(filledLike(like[i], fill));
    }
    return Value::array(std::move(out));
}

} // namespace

Value pad(const Value& xs, int64_t left, int64_t right, lift::PadBoundary b, const Value* constant,
          const Site& where) {
    const auto& e = elementsOf(xs, where);
    int64_t n = static_cast<int64_t>(e.size());
    if (n == 0 || left < 0 || right < 0) {
        fault(where, "cannot pad an empty array or by a negative amount");
    }
    if (b == lift::PadBoundary::Constant) {
        if (constant == nullptr) {
            fault(where, "a constant padding without its value");
        }
        Value fill = filledLike(e[0], *constant);
        std::vector<Value> out(static_cast<size_t>(left), fill);
        out.insert(out.end(), e.begin(), e.end());
        out.insert(out.end(), static_cast<size_t>(right), fill);
        return Value::array(std::move(out));
    }
    auto source = [&](int64_t i) -> int64_t {
        switch (b) {
        case lift::PadBoundary::Clamp:
            return std::clamp<int64_t>(i, 0, n - 1);
        case lift::PadBoundary::Wrap:
            return ((i % n) + n) % n;
        case lift::PadBoundary::Mirror: {
            int64_t period = 2 * n;
            int64_t m = ((i % period) + period) % period;
            return m < n ? m : period - 1 - m;
        }
        case lift::PadBoundary::Constant:
            break;
        }
        return 0;
    };
    std::vector<Value> out;
    out.reserve(static_cast<size_t>(n + left + right));
    for (int64_t i = -left; i < n + right; ++i) {
        out.push_back(e[static_cast<size_t>(source(i))]);
    }
    return Value::array(std::move(out));
}

Value at(const Value& xs, int64_t i, const Site& where) {
    const auto& e = elementsOf(xs, where);
    if (i < 0 || i >= static_cast<int64_t>(e.size())) {
        fault(where, "index " + std::to_string(i) + " out of range for length " +
                         std::to_string(e.size()));
    }
    return e[static_cast<size_t>(i)];
}

Value filter(const Value& xs, const Value& ids, const Site& where) {
    const auto& indices = elementsOf(ids, where);
    std::vector<Value> out;
    out.reserve(indices.size());
    for (const Value& id : indices) {
        out.push_back(at(xs, static_cast<int64_t>(id.toDouble()), where));
    }
    return Value::array(std::move(out));
}

int64_t reorderIndex(lift::Op f, int64_t param, int64_t i, int64_t n, const Site& where) {
    switch (f) {
    case lift::Op::ReorderStride: {
        if (param <= 0 || n % param != 0) {
            fault(where, "stride " + std::to_string(param) + " does not divide the length " +
                             std::to_string(n));
        }
        int64_t chunk = n / param;
        return i / chunk + param * (i % chunk);
    }
    case lift::Op::Reverse:
        return n - 1 - i;
    case lift::Op::Shift:
        return (((i + param) % n) + n) % n;
    default:
        fault(where, "expected an index function");
    }
}

Value gather(const Value& xs, lift::Op f, int64_t param, const Site& where) {
    const auto& e = elementsOf(xs, where);
    int64_t n = static_cast<int64_t>(e.size());
    std::vector<Value> out;
    out.reserve(e.size());
    for (int64_t i = 0; i < n; ++i) {
        out.push_back(e[static_cast<size_t>(reorderIndex(f, param, i, n, where))]);
    }
    return Value::array(std::move(out));
}

Value scatter(const Value& xs, lift::Op f, int64_t param, const Site& where) {
    const auto& e = elementsOf(xs, where);
    int64_t n = static_cast<int64_t>(e.size());
    std::vector<Value> out(e.size());
    for (int64_t i = 0; i < n; ++i) {
        out[static_cast<size_t>(reorderIndex(f, param, i, n, where))] = e[static_cast<size_t>(i)];
    }
    return Value::array(std::move(out));
}

} // namespace egopt::interp::detail
