// Comparison of interpreter results: shapes and non-float scalars exactly; floats bit-for-bit
// (NaN equal to NaN) for rules that only move data, or within a relative tolerance for rules
// that may reorder floating-point reductions.
#include "soundness_detail.hpp"

#include <cmath>
#include <limits>

namespace egopt::rules::detail {

namespace {

using interp::Value;

bool isFloat(const Value& v) {
    return v.kind() == Value::Kind::Float || v.kind() == Value::Kind::Double;
}

// The difference of two floats relative to their magnitude (at least 1): 0 when equal, infinity
// when one is NaN and the other not.
double relativeDifference(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<double>::infinity();
    }
    if (a == b) {
        return 0;
    }
    if (std::isinf(a) || std::isinf(b)) {
        return std::numeric_limits<double>::infinity();
    }
    return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

class Comparer {
public:
    explicit Comparer(double tolerance) : tolerance_(tolerance) {}

    void compare(const Value& a, const Value& b, const std::string& path) {
        if (!result_.equal && result_.largest == std::numeric_limits<double>::infinity()) {
            return; // a shape mismatch was found: nothing more to say
        }
        if (a.kind() != b.kind()) {
            mismatch(path);
            return;
        }
        if (isFloat(a)) {
            scalar(a.toDouble(), b.toDouble(), path);
            return;
        }
        if (a.isScalar()) {
            if (a.toDouble() != b.toDouble()) {
                mismatch(path);
            }
            return;
        }
        if (a.size() != b.size()) {
            mismatch(path);
            return;
        }
        for (size_t i = 0; i < a.size(); ++i) {
            compare(a[i], b[i], path + "[" + std::to_string(i) + "]");
        }
    }

    Difference result() const { return result_; }

private:
    void scalar(double a, double b, const std::string& path) {
        double d = relativeDifference(a, b);
        bool ok = tolerance_ > 0 ? d <= tolerance_ : d == 0;
        if (d > result_.largest || (!ok && result_.equal)) {
            result_.largest = std::max(result_.largest, d);
            result_.where = path.empty() ? "the result" : path;
        }
        result_.equal = result_.equal && ok;
    }

    void mismatch(const std::string& path) {
        result_.equal = false;
        result_.largest = std::numeric_limits<double>::infinity();
        result_.where = (path.empty() ? "the result" : path) + " (different shapes or values)";
    }

    double tolerance_;
    Difference result_;
};

} // namespace

Difference compareValues(const interp::Value& a, const interp::Value& b, double tolerance) {
    Comparer c(tolerance);
    c.compare(a, b, "");
    return c.result();
}

} // namespace egopt::rules::detail
