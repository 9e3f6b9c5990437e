// The table of patterns (lift/patterns.hpp): one row per Op, and what the front end, the
// printer and the type rule read from it.
#include "egopt/lift/patterns.hpp"
#include "lift_test_util.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace egopt;
using lift::Op;
using lift::PatternKind;
using lift::Semantics;

TEST_CASE("the pattern table has one row per Op with a distinct name", "[lift]") {
    std::set<std::string_view> names;
    size_t index = 0;
    for (const lift::PatternInfo& row : lift::patternTable()) {
        CHECK(static_cast<size_t>(row.op) == index++);
        CHECK(lift::opName(row.op) == row.name);
        CHECK(names.insert(row.name).second);
    }
    CHECK(index == static_cast<size_t>(Op::InsertionSortSeq) + 1);
}

TEST_CASE("the pattern table's facts agree with one another", "[lift]") {
    for (const lift::PatternInfo& row : lift::patternTable()) {
        INFO(row.name);
        bool pattern = row.kind != PatternKind::Expression && row.kind != PatternKind::Function;
        // Only patterns have a meaning of their own; computations nest exactly one function,
        // ReduceWhileSeq two (the operator and the predicate).
        CHECK(pattern == (row.semantics != Semantics::None));
        if (row.kind == PatternKind::Computation) {
            CHECK(row.children == (row.semantics == Semantics::ReduceWhile ? 2 : 1));
        }
        // Lowering facts belong to computations: a view has no loop and no memory of its own.
        if (row.kind != PatternKind::Computation) {
            CHECK(row.loop == lift::Loop::None);
            CHECK(row.memory == lift::Memory::None);
            CHECK_FALSE(row.lowLevel);
        }
        // A thread map names its dimension, and only thread maps do.
        CHECK(lift::isThreadMap(row.op) == (row.ival == lift::IvalMeaning::Dimension));
    }
    CHECK(lift::isLoweredMap(Op::MapSeq));
    CHECK(lift::isLoweredMap(Op::MapLcl));
    CHECK_FALSE(lift::isLoweredMap(Op::Map));
    CHECK_FALSE(lift::isLoweredMap(Op::MapVec));
}

TEST_CASE("a lowered map types as the high-level map it implements", "[lift]") {
    const std::string program = R"(
        val N = SizeVar("N")
        fun(ArrayType(ArrayType(Float, 4), N), xs => MAP(fun(row => Reduce(add, 0.0f) $ row)) $ xs)
    )";
    auto with = [&](const std::string& map) {
        std::string s = program;
        s.replace(s.find("MAP"), 3, map);
        return test::signatureOf(s);
    };
    std::string expected =
        "(ArrayType(ArrayType(Float, 4), N)) -> ArrayType(ArrayType(Float, 1), N)";
    CHECK(with("Map") == expected);
    for (const char* lowered : {"MapSeq", "MapGlb(0)", "MapWrg(1)", "MapLcl(2)"}) {
        INFO(lowered);
        CHECK(with(lowered) == expected);
    }
}

TEST_CASE("the printer prints each pattern in its table form", "[lift]") {
    lift::Program p;
    lift::UserFunDecl abs;
    abs.name = "abs";
    abs.paramNames = {"x"};
    abs.paramTypes = {p.types.floatType()};
    abs.returnType = p.types.floatType();
    abs.body = "{ return x; }";
    lift::NodeId f = p.addUserFun(abs);
    std::array<lift::NodeId, 1> kids{f};
    std::array<arith::Size, 1> four{arith::Size(4)};
    CHECK(p.show(p.add(Op::MapGlb, 1, kids)) == "MapGlb(1)(abs)");
    CHECK(p.show(p.add(Op::MapSeq, lift::kUnrolled, kids)) == "MapSeqUnroll(abs)");
    CHECK(p.show(p.add(Op::ReduceSeq, 0, kids)) == "ReduceSeq(abs)");
    CHECK(p.show(p.add(Op::Iterate, 0, kids, four)) == "Iterate(4)(abs)");
    CHECK(p.show(p.add(Op::VectorizeUserFun, 0, kids, four)) == "VectorizeUserFun(4, abs)");
    CHECK(p.show(p.add(Op::PartRed, 0, kids, four)) == "PartRed(abs, 4)");
    CHECK(p.show(p.add(Op::Split, 0, {}, four)) == "Split(4)");
    CHECK(p.show(p.add(Op::Get, 1, {})) == "Get(1)");
    CHECK(p.show(p.add(Op::Zip, 3, {})) == "Zip(3)");
    CHECK(p.show(p.add(Op::Reverse, 0, {})) == "reverse");
    CHECK(p.show(p.add(Op::ScanSeq, 0, kids)) == "ScanSeq(abs)");
    std::array<lift::NodeId, 2> two{f, f};
    CHECK(p.show(p.add(Op::ReduceWhileSeq, 0, two)) == "ReduceWhileSeq(abs, abs)");
    CHECK(p.show(p.add(Op::InsertionSortSeq, 0, kids)) == "InsertionSortSeq(abs)");
}
