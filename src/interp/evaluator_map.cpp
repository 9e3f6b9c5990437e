// Map: every element through f, on several threads when the array is large. Each thread
// evaluates a range of elements with its own copy of the evaluator and writes only its own
// results, so the result is the one a sequential evaluation gives, bit for bit.
#include "evaluator.hpp"
#include "small_vec.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace egopt::interp::detail {

using lift::NodeId;

namespace {

// The scalars in a value, counting an array's first element for all (the elements of an array
// share one type).
size_t scalarsIn(const Value& v) {
    if (v.isScalar()) {
        return 1;
    }
    if (v.kind() == Value::Kind::Array) {
        return v.size() == 0 ? 0 : v.size() * scalarsIn(v[0]);
    }
    size_t n = 0;
    for (const Value& f : v.elems()) {
        n += scalarsIn(f);
    }
    return n;
}

// The first failure in index order among elements evaluated on several threads: the error a
// sequential evaluation, which stops there, reports.
class FirstFailure {
public:
    explicit FirstFailure(size_t none) : index_(none) {}
    // Whether element i is past a failure already seen (its result no longer matters).
    bool skips(size_t i) const { return i > index_.load(std::memory_order_relaxed); }
    void record(size_t i, std::exception_ptr e) {
        std::lock_guard lock(mutex_);
        if (i < index_.load(std::memory_order_relaxed)) {
            index_.store(i, std::memory_order_relaxed);
            error_ = std::move(e);
        }
    }
    void rethrow() const {
        if (error_) {
            std::rethrow_exception(error_);
        }
    }

private:
    std::atomic<size_t> index_;
    std::mutex mutex_;
    std::exception_ptr error_;
};

} // namespace

bool Evaluator::worthParallel(size_t n, size_t scalarsPerElement) const {
    const InterpreterOptions& o = s_.options;
    if (!o.parallel || n < 2) {
        return false;
    }
    auto atLeast = [](size_t x, int64_t min) { return min <= 0 || x >= static_cast<size_t>(min); };
    return atLeast(n, o.parallelMinElements) ||
           (scalarsPerElement > 0 && atLeast(n * scalarsPerElement, o.parallelMinScalars));
}

template <class Element>
Value Evaluator::mapIndices(size_t n, size_t scalarsPerElement, const Element& element) {
    std::vector<Value> out(n);
    if (!worthParallel(n, scalarsPerElement)) {
        for (size_t i = 0; i < n; ++i) {
            out[i] = element(*this, i);
        }
        return Value::array(std::move(out));
    }
    FirstFailure failure(n);
    auto range = [&](const tbb::blocked_range<size_t>& r) {
        if (failure.skips(r.begin())) {
            return;
        }
        Evaluator local(*this);
        for (size_t i = r.begin(); i < r.end() && !failure.skips(i); ++i) {
            try {
                out[i] = element(local, i);
            } catch (...) {
                failure.record(i, std::current_exception());
                return;
            }
        }
    };
    // Isolated: a thread waiting for this loop's ranges takes no outer Map's range meanwhile,
    // which would nest a second evaluation on its stack.
    tbb::this_task_arena::isolate(
        [&] { tbb::parallel_for(tbb::blocked_range<size_t>(0, n), range); });
    failure.rethrow();
    return Value::array(std::move(out));
}

Value Evaluator::map(NodeId fun, const Value& xs) {
    if (xs.kind() != Value::Kind::Array) {
        fail(fun, "expected an array");
    }
    const auto& elems = xs.elems();
    NodeId f = p_.child(fun, 0);
    return mapIndices(elems.size(), elems.empty() ? 0 : scalarsIn(elems[0]),
                      [&](Evaluator& ev, size_t i) {
                          Value arg[] = {elems[i]};
                          return ev.apply(f, arg);
                      });
}

// The nesting depth at each step is that of apply(Map, {eval(Apply(Zip, arrays...))}), so that
// the depth limit stops the same programs.
Value Evaluator::mapZipped(NodeId fun, NodeId zipApply) {
    NodeId zip = p_.child(zipApply, 0);
    SmallVec<Value, 4> arrays;
    size_t n = 0;
    {
        Guard applyZip(*this, zipApply);
        auto c = p_.children(zipApply);
        for (size_t i = 1; i < c.size(); ++i) {
            arrays.push_back(eval(c[i]));
        }
        Guard zipping(*this, zip);
        n = zipLength(arrays.span(), site(zip));
    }
    Guard applyMap(*this, fun);
    size_t scalars = 0;
    for (const Value& a : arrays) {
        scalars += n == 0 ? 0 : scalarsIn(a[0]);
    }
    NodeId f = p_.child(fun, 0);
    return mapIndices(n, scalars, [&](Evaluator& ev, size_t i) {
        std::vector<Value> fields;
        fields.reserve(arrays.size());
        for (const Value& a : arrays) {
            fields.push_back(a[i]);
        }
        Value arg[] = {Value::tuple(std::move(fields))};
        return ev.apply(f, arg);
    });
}

} // namespace egopt::interp::detail
