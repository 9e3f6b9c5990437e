// The hashcons table (NodeTable): lookups after growing, erasing (backward shifts), remapping
// and deferred inserts; and the interning of variable-type lists (VarTypeTable), looked up without
// interning.
#include "egopt/egraph/node_table.hpp"
#include "egopt/egraph/var_types.hpp"

#include <catch2/catch.hpp>

using namespace egopt::egraph;

namespace {

ENode literal(int32_t i) {
    ENode n;
    n.op = Op::Literal;
    n.ival = i;
    n.children.push_back(static_cast<EClassId>(i % 7));
    return n;
}

// Inserts `count` distinct nodes (the table grows many times), erases every third one, and
// checks every lookup against what was kept.
void fillEraseAndFind(uint32_t count) {
    NodeTable::Nodes nodes;
    NodeTable table;
    for (uint32_t i = 0; i < count; ++i) {
        nodes.push_back({literal(static_cast<int32_t>(i)), i});
        table.insert(i, nodes);
    }
    REQUIRE(table.size() == count);
    for (uint32_t i = 0; i < count; ++i) {
        REQUIRE(table.find(nodes[i].node, nodes) == i);
    }
    for (uint32_t i = 0; i < count; i += 3) {
        table.erase(i, nodes);
    }
    table.shrink(); // a third fewer: no shrinking, but the entries stay findable either way
    for (uint32_t i = 0; i < count; ++i) {
        REQUIRE(table.find(nodes[i].node, nodes) == (i % 3 == 0 ? NodeTable::kNone : i));
    }
    CHECK(table.find(literal(-1), nodes) == NodeTable::kNone);
    // Remapping moves every node: the entries follow.
    std::vector<uint32_t> moved(count);
    NodeTable::Nodes reversed;
    for (uint32_t i = 0; i < count; ++i) {
        moved[i] = count - 1 - i;
    }
    for (uint32_t i = 0; i < count; ++i) {
        reversed.push_back(nodes[count - 1 - i]);
    }
    table.remap(moved);
    for (uint32_t i = 0; i < count; ++i) {
        REQUIRE(table.find(nodes[i].node, reversed) == (i % 3 == 0 ? NodeTable::kNone : moved[i]));
    }
}

} // namespace

TEST_CASE("the hashcons table finds what it holds after growing, erasing and remapping",
          "[egraph]") {
    SECTION("small") {
        fillEraseAndFind(1000);
    }
    SECTION("large") {
        fillEraseAndFind(200'000);
    }
}

TEST_CASE("the variable-type table finds what it interned and only that", "[egraph]") {
    // EGraph::settleVarTypes looks lists up on every thread and interns the missing ones after,
    // in order: find must agree with intern and never insert.
    VarTypeTable table;
    std::vector<std::vector<VarType>> lists;
    for (int32_t i = 0; i < 3000; ++i) { // enough to grow the table several times
        lists.push_back({{0, static_cast<TypeId>(i)}, {i % 5 + 1, static_cast<TypeId>(i % 3)}});
    }
    std::vector<VarTypesId> ids;
    for (size_t i = 0; i < lists.size(); i += 2) {
        REQUIRE(table.find(lists[i]) == VarTypeTable::kNotInterned);
        ids.push_back(table.intern(lists[i]));
    }
    size_t interned = table.size();
    for (size_t i = 0; i < lists.size(); ++i) {
        if (i % 2 == 0) {
            CHECK(table.find(lists[i]) == ids[i / 2]);
            CHECK(table.intern(lists[i]) == ids[i / 2]);
        } else {
            CHECK(table.find(lists[i]) == VarTypeTable::kNotInterned);
        }
    }
    CHECK(table.size() == interned);                // finding added nothing
    CHECK(table.find(std::vector<VarType>{}) == 0); // id 0 is the empty list
}

TEST_CASE("the hashcons grows through sizes of 2^k and 3·2^(k-1) slots, and shrinks", "[egraph]") {
    NodeTable::Nodes nodes;
    NodeTable table;
    // 1,100 entries need more than 1,024 slots at most 13/16 full: 1,536, not 2,048.
    for (uint32_t i = 0; i < 1100; ++i) {
        nodes.push_back({literal(static_cast<int32_t>(i)), i});
        table.insert(i, nodes);
    }
    CHECK(table.bytes() == 1536 * 8);
    for (uint32_t i = 0; i < 1100; ++i) {
        REQUIRE(table.find(nodes[i].node, nodes) == i);
    }
    // Erasing all but 100 steps the table down while the smaller size would be at most 25/32
    // used: 1,536 to 128 (100 of 96 slots would be more).
    for (uint32_t i = 100; i < 1100; ++i) {
        table.erase(i, nodes);
    }
    table.shrink();
    CHECK(table.bytes() == 128 * 8);
    for (uint32_t i = 0; i < 1100; ++i) {
        REQUIRE(table.find(nodes[i].node, nodes) == (i < 100 ? i : NodeTable::kNone));
    }
}

TEST_CASE("deferred inserts are found at once and keep the table's size and capacity", "[egraph]") {
    // At every step the deferring table must hold what the one inserting one by one holds, with
    // the same size and bytes (the memory limit reads them), and find every node, deferred or
    // placed by a batch.
    constexpr uint32_t kCount = 30'000;
    NodeTable::Nodes nodes;
    NodeTable deferring, reference;
    deferring.deferInserts(true);
    for (uint32_t i = 0; i < kCount; ++i) {
        nodes.push_back({literal(static_cast<int32_t>(i)), i});
        deferring.insert(i, nodes);
        reference.insert(i, nodes);
        REQUIRE(deferring.size() == reference.size());
        REQUIRE(deferring.bytes() == reference.bytes());
        // The node just inserted and one inserted a while ago (placed by a batch by then).
        REQUIRE(deferring.find(nodes[i].node, nodes) == i);
        REQUIRE(deferring.find(nodes[i / 2].node, nodes) == i / 2);
        if (i == kCount / 2) {
            deferring.deferInserts(false); // flushes; inserts go straight in again
            deferring.deferInserts(true);
        }
    }
    deferring.deferInserts(false);
    for (uint32_t i = 0; i < kCount; ++i) {
        REQUIRE(deferring.find(nodes[i].node, nodes) == i);
    }
    CHECK(deferring.find(literal(-1), nodes) == NodeTable::kNone);
    // Erasing (backward shifts) and shrinking keep the rest findable.
    for (uint32_t i = 0; i < kCount; i += 2) {
        deferring.erase(i, nodes);
    }
    deferring.shrink();
    for (uint32_t i = 0; i < kCount; ++i) {
        REQUIRE(deferring.find(nodes[i].node, nodes) == (i % 2 == 0 ? NodeTable::kNone : i));
    }
}
