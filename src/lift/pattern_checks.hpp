// Internal to the pattern rule (pattern_typing.cpp): the checks a rule makes on one application
// and the front end's messages for them, reported through the TypingSite, and the lane types of
// vectorised functions.
#pragma once

#include "egopt/lift/pattern_typing.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace egopt::lift::detail {

inline std::string argName(size_t index) {
    return "argument " + std::to_string(index + 1);
}

inline std::string plural(size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The lane type of a w-wide vector (tuples fieldwise); kNoType if `t` is not one.
inline TypeId devectorize(TypeArena& types, TypeId t, uint32_t width) {
    TypeNode n = types.at(t); // copy: interning below may reallocate
    if (n.kind == TypeKind::Vector) {
        return n.width == width ? types.scalar(n.scalar) : kNoType;
    }
    if (n.kind != TypeKind::Tuple) {
        return kNoType;
    }
    std::vector<TypeId> lanes;
    for (TypeId field : n.elems) {
        lanes.push_back(devectorize(types, field, width));
        if (lanes.back() == kNoType) {
            return kNoType;
        }
    }
    return types.tuple(lanes);
}

// VectorizeUserFun's lanes: vectors (and tuples of them) of width `width` give their lane type,
// numeric scalars are broadcast to every lane (a value the vectorised lambda captures).
// Returns the first argument that fits neither, or args.size().
inline size_t vectorizeLanes(TypeArena& types, std::span<const TypeId> args, uint32_t width,
                             std::vector<TypeId>& lanes, bool& anyVector) {
    anyVector = false;
    for (size_t i = 0; i < args.size(); ++i) {
        TypeId lane = devectorize(types, args[i], width);
        bool broadcast = lane == kNoType && types.kind(args[i]) == TypeKind::Scalar;
        if (lane == kNoType && !broadcast) {
            return i;
        }
        anyVector = anyVector || !broadcast;
        lanes.push_back(broadcast ? args[i] : lane);
    }
    return args.size();
}

inline std::optional<uint32_t> constantWidth(std::span<const arith::Size> sizes) {
    auto w = sizes.empty() ? std::nullopt : sizes[0].constant();
    if (!w || *w <= 0) {
        return std::nullopt;
    }
    return static_cast<uint32_t>(*w);
}

class RuleChecks {
protected:
    RuleChecks(TypingSite& site, const PatternUse& use, std::span<const TypeId> args)
        : site_(site), use_(use), args_(args), types_(site.types()) {}

    [[noreturn]] void fail(const std::string& message) const {
        site_.fail(message);
        throw std::logic_error("TypingSite::fail returned"); // a site that breaks its contract
    }
    std::string show(TypeId t) const { return types_.show(t); }

    void onlyChild() const {
        if (use_.numChildren != 1) {
            fail(site_.describe() + " needs exactly one function argument, found " +
                 std::to_string(use_.numChildren));
        }
    }

    void expectArgCount(size_t expected) const {
        if (args_.size() != expected) {
            fail(site_.describe() + " takes " + plural(expected, "argument") +
                 ", but is applied to " + std::to_string(args_.size()));
        }
    }

    // Zip and Tuple: as many arguments as their ival says.
    void expectArity() const {
        if (use_.ival < 1) {
            fail(site_.describe() + ": invalid arity " + std::to_string(use_.ival));
        }
        expectArgCount(static_cast<size_t>(use_.ival));
    }

    // The argument must be an array; `index` is 0-based (messages count from 1).
    TypeId expectArray(size_t index) const {
        TypeId t = args_[index];
        if (!types_.isArray(t)) {
            fail(argName(index) + " of " + site_.describe() + ": expected an array, found " +
                 show(t));
        }
        return t;
    }

    // An array whose elements are arrays (Join, Transpose).
    TypeId expectNestedArray(size_t index) const {
        TypeId t = expectArray(index);
        if (!types_.isArray(types_.elemOf(t))) {
            fail(argName(index) + " of " + site_.describe() +
                 ": expected an array of arrays, found " + show(t));
        }
        return t;
    }

    // Child `i` applied to `operands` must give a truth value: an Int or a Bool (C's truth).
    void expectCondition(size_t i, std::span<const TypeId> operands, const char* what) const {
        TypeId result = site_.applyChild(i, operands);
        const TypeNode& r = types_.at(result);
        if (r.kind != TypeKind::Scalar ||
            (r.scalar != ScalarKind::Int && r.scalar != ScalarKind::Bool)) {
            fail(std::string("the ") + what + " " + site_.describeChild(i) + " of " +
                 site_.describe() + " must return Int or Bool, found " + show(result));
        }
    }

    void expectEqual(size_t index, TypeId expected, TypeId found) const {
        if (expected != found) {
            fail(argName(index) + " of " + site_.describe() + ": expected " + show(expected) +
                 ", found " + show(found));
        }
    }

    const arith::Size& sizeArg(size_t index, const char* what) const {
        if (index >= use_.sizes.size()) {
            fail(site_.describe() + " is missing its " + what);
        }
        return use_.sizes[index];
    }

    // A size argument that must be a constant (vector widths, Iterate counts).
    int64_t constantSize(size_t index, const char* what) const {
        const arith::Size& s = sizeArg(index, what);
        auto value = s.constant();
        if (!value) {
            fail(site_.describe() + ": the " + what + " must be a constant, found " + s.toString());
        }
        return *value;
    }

    // Fails when `size` is a constant <= 0.
    void expectPositive(const arith::Size& size, const char* what) const {
        auto c = size.constant();
        if (c && *c <= 0 && site_.checksSizeValues()) {
            fail(site_.describe() + ": the " + what + " must be positive, found " +
                 std::to_string(*c));
        }
    }

    // Fails unless `divisor` divides `length` whenever both are constants.
    void checkDivides(const arith::Size& divisor, const arith::Size& length,
                      const char* what) const {
        if (!site_.checksSizeValues()) {
            return;
        }
        auto d = divisor.constant();
        auto n = length.constant();
        if (d && *d <= 0) {
            fail(site_.describe() + ": the " + what + " must be positive, found " +
                 std::to_string(*d));
        }
        if (d && n && *n % *d != 0) {
            fail(site_.describe() + " on an array of length " + std::to_string(*n) + ": " +
                 std::to_string(*d) + " does not divide " + std::to_string(*n));
        }
    }

    // A vector width size argument: a constant 2, 3, 4, 8 or 16.
    uint32_t vectorWidth(size_t index) const {
        int64_t w = constantSize(index, "vector width");
        if (w != 2 && w != 3 && w != 4 && w != 8 && w != 16) {
            fail(site_.describe() + ": vector width must be 2, 3, 4, 8 or 16, found " +
                 std::to_string(w));
        }
        return static_cast<uint32_t>(w);
    }

    // One step of Iterate: [T]n -> [T]m with m a constant multiple or fraction of n (and, where
    // the site types each function once, m = n).
    void checkIterateStep(TypeId in, TypeId out) const {
        bool ok = types_.isArray(out) && types_.elemOf(out) == types_.elemOf(in);
        if (ok && !site_.iterateMayResize()) {
            ok = out == in;
        } else if (ok) {
            const arith::Size& n = types_.lengthOf(in);
            const arith::Size& m = types_.lengthOf(out);
            bool constants = n.isConstant() && m.isConstant();
            ok = constants || exactDiv(m, n).isConstant() || exactDiv(n, m).isConstant();
        }
        if (!ok) {
            fail("the function of " + site_.describe() + " must map " + show(in) +
                 " to an array of " + show(types_.elemOf(in)) +
                 (site_.iterateMayResize() ? " whose length is scaled by a constant factor"
                                           : " of the same length") +
                 ", found " + show(out));
        }
    }

    // The w-wide vector of a lane-wise result (tuples fieldwise); fails for other types.
    TypeId vectorizeResult(TypeId lane, uint32_t width) {
        TypeNode n = types_.at(lane); // copy: interning below may reallocate
        if (n.kind == TypeKind::Scalar) {
            return types_.vector(n.scalar, width);
        }
        if (n.kind != TypeKind::Tuple) {
            fail("the function of " + site_.describe() +
                 " must return a scalar (or a tuple of scalars), found " + show(lane));
        }
        std::vector<TypeId> fields;
        for (TypeId field : n.elems) {
            fields.push_back(vectorizeResult(field, width));
        }
        return types_.tuple(fields);
    }

    TypingSite& site_;
    const PatternUse& use_;
    std::span<const TypeId> args_;
    TypeArena& types_;
};

} // namespace egopt::lift::detail
