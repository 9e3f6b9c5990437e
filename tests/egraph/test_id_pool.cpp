// The pools behind the e-graph's compact classes: IdPool (member and parent lists) and
// ShapeTable (interned types, signatures and free variables).
#include "egopt/egraph/id_pool.hpp"
#include "egopt/egraph/shape.hpp"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

using namespace egopt::egraph;

namespace {

std::vector<uint32_t> values(const IdPool& pool, const IdList& l) {
    auto v = pool.view(l);
    return {v.begin(), v.end()};
}

std::vector<uint32_t> iota(uint32_t n, uint32_t from = 0) {
    std::vector<uint32_t> out(n);
    std::iota(out.begin(), out.end(), from);
    return out;
}

} // namespace

TEST_CASE("an id list holds two ids itself and more in its pool", "[egraph]") {
    IdPool pool;
    IdList l;
    size_t empty = pool.bytes();
    pool.push_back(l, 7);
    pool.push_back(l, 8);
    CHECK(!l.pooled());
    CHECK(pool.bytes() == empty);
    for (uint32_t v = 9; v < 20; ++v) {
        pool.push_back(l, v);
    }
    CHECK(l.pooled());
    CHECK(values(pool, l) == iota(13, 7));
    CHECK(pool.bytes() > empty);
    pool.truncate(l, 5);
    CHECK(values(pool, l) == iota(5, 7));
    pool.truncate(l, 1);
    CHECK(!l.pooled());
    CHECK(values(pool, l) == std::vector<uint32_t>{7});
    pool.assign(l, iota(3000));
    CHECK(values(pool, l) == iota(3000));
    pool.clear(l);
    CHECK(l.empty());
}

TEST_CASE("growing one list of a pool moves no other", "[egraph]") {
    IdPool pool;
    IdList a;
    pool.assign(a, iota(100));
    const uint32_t* where = pool.view(a).data();
    std::vector<IdList> others(300);
    for (size_t i = 0; i < others.size(); ++i) {
        pool.assign(others[i], iota(static_cast<uint32_t>(i % 40)));
    }
    IdList big; // 5,000 ids: a chunk of its own
    for (uint32_t v = 0; v < 5000; ++v) {
        pool.push_back(big, v);
    }
    pool.append(big, pool.view(a));
    CHECK(pool.view(a).data() == where);
    CHECK(values(pool, a) == iota(100));
    CHECK(values(pool, big).size() == 5100);
    CHECK(values(pool, big).back() == 99);
    for (size_t i = 0; i < others.size(); ++i) {
        CHECK(values(pool, others[i]) == iota(static_cast<uint32_t>(i % 40)));
    }
    size_t withBig = pool.bytes();
    pool.clear(big);
    // Its chunk of 6,144 ids is released (3·2^11: from a chunk up a block is 2^k or 3·2^(k-1)
    // ids, not the 8,192 of the power of two; the bookkeeping may grow by a few bytes).
    CHECK(withBig - pool.bytes() > 6100 * sizeof(uint32_t));
    CHECK(withBig - pool.bytes() <= 6144 * sizeof(uint32_t));
}

TEST_CASE("freed blocks are reused, and repacking gives free chunks back", "[egraph]") {
    IdPool pool;
    std::vector<IdList> lists(2000);
    for (size_t i = 0; i < lists.size(); ++i) {
        pool.assign(lists[i], iota(20, static_cast<uint32_t>(i)));
    }
    size_t full = pool.bytes();
    pool.clear(lists[0]);
    pool.assign(lists[0], iota(17));
    CHECK(pool.bytes() == full); // the freed 32-id block is taken again
    CHECK(!pool.fragmented());
    for (size_t i = 0; i < lists.size(); i += 4) {
        pool.clear(lists[i]);
        pool.clear(lists[i + 1]);
    }
    CHECK(pool.fragmented());
    pool.repack([&](auto visit) {
        for (IdList& l : lists) {
            visit(l);
        }
    });
    CHECK(!pool.fragmented());
    CHECK(2 * pool.bytes() < full + 2 * IdPool::kChunk * sizeof(uint32_t));
    for (size_t i = 0; i < lists.size(); ++i) {
        CHECK(values(pool, lists[i]) ==
              (i % 4 < 2 ? std::vector<uint32_t>{} : iota(20, static_cast<uint32_t>(i))));
    }
}

TEST_CASE("equal shapes are interned once and never move", "[egraph]") {
    ShapeTable shapes;
    Shape data;
    data.type = 3;
    data.freeVars = {0, 2};
    Shape fun;
    fun.fun = {{1, 2, 3, 4, 5}, 6, FunSig::Kind::Mono};
    ShapeId d = shapes.intern(data);
    ShapeId f = shapes.intern(fun);
    const Shape* where = &shapes[d];
    for (TypeId t = 10; t < 2000; ++t) { // past the first chunk and several rehashes
        Shape other = data;
        other.type = t;
        shapes.intern(other);
    }
    CHECK(d != f);
    CHECK(shapes.intern(data) == d);
    CHECK(shapes.intern(fun) == f);
    CHECK(&shapes[d] == where);
    CHECK(shapes[f].fun.params == std::vector<TypeId>{1, 2, 3, 4, 5});
    CHECK(shapes.intern(Shape{}) == 0);
    CHECK(shapes.size() == 2 + 1990 + 1);
}
