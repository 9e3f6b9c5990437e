// The table of patterns (patterns.hpp): one row per Op, in Op's order.
#include "egopt/lift/patterns.hpp"

#include <array>
#include <stdexcept>

namespace egopt::lift {

namespace {

using K = PatternKind;
using S = Semantics;
using L = Loop;
using M = Memory;
using I = IvalMeaning;
using P = PrintForm;

constexpr int8_t kAny = kAnyArity;

// clang-format off
constexpr std::array kPatterns = {
//            op                    name                         kind            semantics           arity kids sizes ival           loop           memory      low    print
PatternInfo{Op::Param,            "Param",                     K::Expression,  S::None,            0,    0,   0,    I::Index,      L::None,       M::None,    false, P::Special},
PatternInfo{Op::Literal,          "Literal",                   K::Expression,  S::None,            0,    0,   0,    I::Index,      L::None,       M::None,    false, P::Special},
PatternInfo{Op::Apply,            "FunCall",                   K::Expression,  S::None,            0,    0,   0,    I::None,       L::None,       M::None,    false, P::Special},
PatternInfo{Op::Generate,         "ArrayFromUserFunGenerator", K::Expression,  S::None,            0,    1,   0,    I::Dimensions, L::None,       M::None,    false, P::Special},
PatternInfo{Op::Lambda,           "fun",                       K::Function,    S::None,            kAny, 0,   0,    I::None,       L::None,       M::None,    false, P::Special},
PatternInfo{Op::UserFun,          "UserFun",                   K::Function,    S::None,            kAny, 0,   0,    I::Index,      L::None,       M::None,    false, P::Special},
PatternInfo{Op::Map,              "Map",                       K::Computation, S::Map,             1,    1,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::MapSeq,           "MapSeq",                    K::Computation, S::Map,             1,    1,   0,    I::Unrolled,   L::Sequential, M::None,    true,  P::UnrollSuffix},
PatternInfo{Op::MapGlb,           "MapGlb",                    K::Computation, S::Map,             1,    1,   0,    I::Dimension,  L::Global,     M::None,    true,  P::DimensionThenFunction},
PatternInfo{Op::MapWrg,           "MapWrg",                    K::Computation, S::Map,             1,    1,   0,    I::Dimension,  L::WorkGroup,  M::None,    true,  P::DimensionThenFunction},
PatternInfo{Op::MapLcl,           "MapLcl",                    K::Computation, S::Map,             1,    1,   0,    I::Dimension,  L::Local,      M::None,    true,  P::DimensionThenFunction},
PatternInfo{Op::MapVec,           "MapVec",                    K::Computation, S::MapLanes,        1,    1,   0,    I::None,       L::Lanes,      M::None,    true,  P::Arguments},
PatternInfo{Op::Reduce,           "Reduce",                    K::Computation, S::Reduce,          2,    1,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::ReduceSeq,        "ReduceSeq",                 K::Computation, S::Reduce,          2,    1,   0,    I::Unrolled,   L::Sequential, M::None,    true,  P::UnrollSuffix},
PatternInfo{Op::PartRed,          "PartRed",                   K::Computation, S::PartialReduce,   2,    1,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Iterate,          "Iterate",                   K::Computation, S::Iterate,         1,    1,   1,    I::None,       L::Sequential, M::None,    false, P::SizesThenFunction},
PatternInfo{Op::ToGlobal,         "toGlobal",                  K::Computation, S::Place,           kAny, 1,   0,    I::None,       L::None,       M::Global,  true,  P::Arguments},
PatternInfo{Op::ToLocal,          "toLocal",                   K::Computation, S::Place,           kAny, 1,   0,    I::None,       L::None,       M::Local,   true,  P::Arguments},
PatternInfo{Op::ToPrivate,        "toPrivate",                 K::Computation, S::Place,           kAny, 1,   0,    I::None,       L::None,       M::Private, true,  P::Arguments},
PatternInfo{Op::Gather,           "Gather",                    K::Layout,      S::Gather,          1,    1,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Scatter,          "Scatter",                   K::Layout,      S::Scatter,         1,    1,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::VectorizeUserFun, "VectorizeUserFun",          K::Computation, S::VectorizeFun,    kAny, 1,   1,    I::None,       L::Lanes,      M::None,    false, P::SizesCommaFunction},
PatternInfo{Op::ReorderStride,    "ReorderWithStride",         K::IndexFunction, S::IndexFunction, 0,    0,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Reverse,          "reverse",                   K::IndexFunction, S::IndexFunction, 0,    0,   0,    I::None,       L::None,       M::None,    false, P::NameOnly},
PatternInfo{Op::Shift,            "shift",                     K::IndexFunction, S::IndexFunction, 0,    0,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Split,            "Split",                     K::Layout,      S::Split,           1,    0,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Join,             "Join",                      K::Layout,      S::Join,            1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Transpose,        "Transpose",                 K::Layout,      S::Transpose,       1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::TransposeW,       "TransposeW",                K::Layout,      S::Transpose,       1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Zip,              "Zip",                       K::Layout,      S::Zip,             kAny, 0,   0,    I::Arity,      L::None,       M::None,    false, P::IvalOnly},
PatternInfo{Op::Unzip,            "Unzip",                     K::Layout,      S::Unzip,           1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Tuple,            "Tuple",                     K::Layout,      S::Tuple,           kAny, 0,   0,    I::Arity,      L::None,       M::None,    false, P::IvalOnly},
PatternInfo{Op::Get,              "Get",                       K::Layout,      S::Get,             1,    0,   0,    I::Field,      L::None,       M::None,    false, P::IvalOnly},
PatternInfo{Op::AsVector,         "asVector",                  K::Layout,      S::AsVector,        1,    0,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::AsScalar,         "asScalar",                  K::Layout,      S::AsScalar,        1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Slide,            "Slide",                     K::Layout,      S::Slide,           1,    0,   2,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Pad,              "Pad",                       K::Layout,      S::Pad,             1,    0,   2,    I::Boundary,   L::None,       M::None,    false, P::Special},
PatternInfo{Op::At,               "At",                        K::Layout,      S::At,              1,    0,   1,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Filter,           "Filter",                    K::Layout,      S::Filter,          2,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Id,               "id",                        K::Layout,      S::Identity,        1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::Reorder,          "Reorder",                   K::Layout,      S::Reorder,         1,    0,   0,    I::None,       L::None,       M::None,    false, P::Arguments},
PatternInfo{Op::ScanSeq,          "ScanSeq",                   K::Computation, S::Scan,            2,    1,   0,    I::None,       L::Sequential, M::None,    true,  P::Arguments},
PatternInfo{Op::ReduceWhileSeq,   "ReduceWhileSeq",            K::Computation, S::ReduceWhile,     2,    2,   0,    I::None,       L::Sequential, M::None,    true,  P::Arguments},
PatternInfo{Op::InsertionSortSeq, "InsertionSortSeq",          K::Computation, S::Sort,            1,    1,   0,    I::None,       L::Sequential, M::None,    true,  P::Arguments},
};
// clang-format on

// The rows are in Op's order, so a row is found by its index; checked at compile time.
constexpr bool inOpOrder() {
    for (size_t i = 0; i < kPatterns.size(); ++i) {
        if (static_cast<size_t>(kPatterns[i].op) != i) {
            return false;
        }
    }
    return true;
}
static_assert(inOpOrder(), "kPatterns must list every Op in the order of the enum");
static_assert(kPatterns.size() == static_cast<size_t>(Op::InsertionSortSeq) + 1,
              "kPatterns must have a row for every Op");

} // namespace

const PatternInfo& patternInfo(Op op) {
    auto index = static_cast<size_t>(op);
    if (index >= kPatterns.size()) {
        throw std::logic_error("patternInfo: an Op outside the table");
    }
    return kPatterns[index];
}

std::span<const PatternInfo> patternTable() {
    return kPatterns;
}

std::string describePattern(Op op, int32_t ival, std::span<const arith::Size> sizes) {
    const PatternInfo& info = patternInfo(op);
    std::string name(info.name);
    bool showIval = info.ival == IvalMeaning::Dimension || info.ival == IvalMeaning::Field;
    if (sizes.empty() && !showIval) {
        return name;
    }
    std::string inside = showIval ? std::to_string(ival) : "";
    for (const arith::Size& s : sizes) {
        inside += (inside.empty() ? "" : ", ") + s.toString();
    }
    return name + "(" + inside + ")";
}

} // namespace egopt::lift
