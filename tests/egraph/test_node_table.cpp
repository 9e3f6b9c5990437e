// The hashcons table (NodeTable): lookups after growing, erasing (backward shifts) and
// remapping.
#include "egopt/egraph/node_table.hpp"

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
