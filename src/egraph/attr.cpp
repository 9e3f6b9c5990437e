// Attribute interning, e-node hashing, and the term arena.
#include "egopt/egraph/enode.hpp"
#include "egopt/egraph/term.hpp"
#include "egopt/lift/patterns.hpp"

#include <algorithm>

namespace egopt::egraph {

namespace {

size_t mix(size_t h, size_t v) {
    return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

} // namespace

size_t AttrTable::Hash::operator()(const Attr& a) const noexcept {
    size_t h = a.sizes.size() * 31 + a.types.size();
    for (const auto& s : a.sizes) {
        h = mix(h, s.hash());
    }
    for (TypeId t : a.types) {
        h = mix(h, t);
    }
    return h;
}

AttrTable::AttrTable() {
    intern(Attr{});
}

AttrId AttrTable::intern(Attr attr) {
    auto it = index_.find(attr);
    if (it != index_.end()) {
        return it->second;
    }
    auto id = static_cast<AttrId>(attrs_.size());
    attrs_.push_back(attr);
    index_.emplace(std::move(attr), id);
    return id;
}

std::optional<AttrId> AttrTable::find(const Attr& attr) const {
    auto it = index_.find(attr);
    return it == index_.end() ? std::nullopt : std::optional<AttrId>(it->second);
}

size_t AttrTable::bytes() const {
    return attrs_.capacity() * sizeof(Attr) * 2 + index_.bucket_count() * sizeof(void*);
}

bool isDataOp(Op op) {
    return lift::isExpression(op);
}

bool isIndexFunction(Op op) {
    return lift::isIndexFunctionOp(op);
}

TermId TermArena::add(TermNode node) {
    nodes_.push_back(std::move(node));
    return static_cast<TermId>(nodes_.size() - 1);
}

TermId TermArena::ref(EClassId eclass, int32_t shift) {
    TermNode n;
    n.eclass = eclass;
    n.shift = shift;
    return add(std::move(n));
}

TermId TermArena::var(int32_t index, TypeId type) {
    TermNode n;
    n.op = Op::Param;
    n.ival = index;
    if (type != lift::kNoType) {
        n.types = {type};
    }
    return add(std::move(n));
}

TermId TermArena::apply(TermId fun, std::span<const TermId> args) {
    TermNode n;
    n.op = Op::Apply;
    n.children.push_back(fun);
    n.children.insert(n.children.end(), args.begin(), args.end());
    return add(std::move(n));
}

TermId TermArena::lambda(std::vector<TypeId> paramTypes, int32_t arity, TermId body) {
    TermNode n;
    n.op = Op::Lambda;
    n.ival = arity;
    n.types = std::move(paramTypes);
    n.children = {body};
    return add(std::move(n));
}

} // namespace egopt::egraph
