// Hash-consed candidate terms with an id-independent structural order.
#include "terms.hpp"

#include "egopt/lift/patterns.hpp"

#include <algorithm>
#include <unordered_set>

namespace egopt::extract::detail {

namespace {

// FNV-1a and a mixer: stable across runs and platforms, unlike std::hash.
uint64_t fnv(const std::string& s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) {
        h = (h ^ c) * 1099511628211ull;
    }
    return h;
}

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

} // namespace

TermStore::Bloom TermStore::bit(egraph::ENodeId n) {
    Bloom b{};
    uint64_t h = mix(0, n);
    b[h & 3] |= uint64_t(1) << ((h >> 2) & 63);
    return b;
}

uint64_t TermStore::keyStart(egraph::ENodeId node, size_t children) {
    return mix(node, children);
}

uint64_t TermStore::keyNext(uint64_t key, TermRef child) {
    return mix(key, child);
}

uint64_t TermStore::nodeHash(egraph::ENodeId id) {
    if (id < nodeHashes_.size() && nodeHashes_[id] != 0) {
        return nodeHashes_[id];
    }
    const egraph::ENode& n = g_.node(id);
    uint64_t h = mix(static_cast<uint64_t>(n.op), n.children.size());
    if (n.op == lift::Op::UserFun) {
        const auto& d = g_.userFuns.at(static_cast<size_t>(n.ival));
        h = fnv(d.name + "\n" + d.body, h);
    } else if (n.op == lift::Op::Literal) {
        const auto& l = g_.literals.at(static_cast<size_t>(n.ival));
        h = fnv(g_.types.show(l.type) + ":" + l.text, h);
    } else {
        h = mix(h, static_cast<uint64_t>(static_cast<int64_t>(n.ival)));
    }
    const egraph::Attr& a = g_.attrOf(n);
    for (const arith::Size& s : a.sizes) {
        h = fnv(s.toString(), mix(h, 1));
    }
    for (lift::TypeId t : a.types) {
        h = fnv(t == lift::kNoType ? "?" : g_.types.show(t), mix(h, 2));
    }
    h += h == 0; // 0 marks "not computed"
    if (id >= nodeHashes_.size()) {
        nodeHashes_.resize(std::max<size_t>(id + 1, 2 * nodeHashes_.size()), 0);
    }
    nodeHashes_[id] = h;
    return h;
}

TermRef TermStore::make(egraph::ENodeId node, std::span<const TermRef> children, uint64_t key) {
    uint64_t tag = key & ~uint64_t(0xffffffff);
    size_t mask = slots_.size() - 1;
    size_t i = slotOf(key, slots_.size());
    for (; slots_[i] != kEmpty; i = (i + 1) & mask) {
        if ((slots_[i] & ~uint64_t(0xffffffff)) != tag) {
            continue;
        }
        auto t = static_cast<TermRef>(slots_[i]);
        auto kids = this->children(t);
        if (heads_[t].node == node &&
            std::equal(kids.begin(), kids.end(), children.begin(), children.end())) {
            return t;
        }
    }
    Rec r{bit(node), key};
    uint64_t shash = nodeHash(node);
    for (TermRef c : children) {
        shash = mix(shash, shash_[c]);
        for (size_t j = 0; j < r.nodes.size(); ++j) {
            r.nodes[j] |= recs_[c].nodes[j];
        }
    }
    auto id = static_cast<TermRef>(heads_.size());
    shapes_.push_back(shapeOf(node, children));
    heads_.push_back(
        {node, static_cast<uint32_t>(kids_.size()), static_cast<uint32_t>(children.size())});
    kids_.insert(kids_.end(), children.begin(), children.end());
    recs_.push_back(r);
    shash_.push_back(shash);
    slots_[i] = tag | id;
    if (2 * heads_.size() > slots_.size()) { // at most half full: short probes
        grow();
    }
    return id;
}

namespace {

// Patterns that generate no loop and no store: applied to an argument, they only change how
// the argument is read.
bool isView(lift::Op op) {
    switch (op) {
    case lift::Op::Split:
    case lift::Op::Join:
    case lift::Op::Gather:
    case lift::Op::Scatter:
    case lift::Op::Transpose:
    case lift::Op::TransposeW:
    case lift::Op::AsVector:
    case lift::Op::AsScalar:
    case lift::Op::Id:
        return true;
    default:
        return false;
    }
}

} // namespace

bool TermStore::appliesView(TermRef function) const {
    const egraph::ENode& f = g_.node(heads_[function].node);
    if (isView(f.op)) {
        return true;
    }
    auto kids = children(function); // a thread-less Map of a view is a view
    if (f.op == lift::Op::Map && kids.size() == 1) {
        return appliesView(kids[0]);
    }
    // The identity function `fun(x => x)`.
    return f.op == lift::Op::Lambda && f.ival == 1 && kids.size() == 1 &&
           g_.node(heads_[kids[0]].node).op == lift::Op::Param &&
           g_.node(heads_[kids[0]].node).ival == 0;
}

uint32_t TermStore::shapeOf(egraph::ENodeId node, std::span<const TermRef> children) {
    const egraph::ENode& n = g_.node(node);
    if (n.op == lift::Op::Apply && children.size() == 2 && appliesView(children[0])) {
        return shapes_[children[1]];
    }
    // A thread map's dimension aside: which dimension a 1-D kernel uses changes nothing, and
    // the cost function ranks a 2-D nest's dimension choices in their context.
    uint64_t h = lift::isThreadMap(n.op) ? mix(static_cast<uint64_t>(n.op), n.children.size())
                                         : nodeHash(node);
    for (TermRef c : children) {
        h = mix(h, shapes_[c]);
    }
    return shapeIds_.emplace(h, static_cast<uint32_t>(shapeIds_.size())).first->second;
}

void TermStore::grow() {
    std::vector<uint64_t> slots(2 * slots_.size(), kEmpty);
    size_t mask = slots.size() - 1;
    for (uint64_t slot : slots_) {
        if (slot == kEmpty) {
            continue;
        }
        size_t i = slotOf(recs_[static_cast<TermRef>(slot)].key, slots.size());
        while (slots[i] != kEmpty) {
            i = (i + 1) & mask;
        }
        slots[i] = slot;
    }
    slots_ = std::move(slots);
}

bool TermStore::contains(std::span<const TermRef> terms, egraph::ENodeId n) const {
    Bloom b = bit(n);
    auto maybe = [&](TermRef t) {
        bool hit = false;
        for (size_t i = 0; i < b.size(); ++i) {
            hit = hit || (b[i] & recs_[t].nodes[i]) != 0;
        }
        return hit;
    };
    std::vector<TermRef>& stack = walk_;
    stack.clear();
    for (TermRef t : terms) {
        if (maybe(t)) {
            stack.push_back(t);
        }
    }
    if (stack.empty()) {
        return false;
    }
    if (visited_.size() < heads_.size()) {
        visited_.resize(heads_.size() + heads_.size() / 2, 0);
    }
    if (++visit_ == 0) { // the stamps wrapped around: forget them all
        std::fill(visited_.begin(), visited_.end(), 0);
        visit_ = 1;
    }
    while (!stack.empty()) { // exact check on a bloom hit
        TermRef t = stack.back();
        stack.pop_back();
        if (visited_[t] == visit_) {
            continue;
        }
        visited_[t] = visit_;
        if (heads_[t].node == n) {
            return true;
        }
        for (TermRef c : children(t)) {
            if (maybe(c)) {
                stack.push_back(c);
            }
        }
    }
    return false;
}

bool TermStore::structurallyLess(TermRef a, TermRef b) const {
    if (a == b) {
        return false;
    }
    if (shash_[a] != shash_[b]) {
        return shash_[a] < shash_[b];
    }
    return a < b; // a hash collision of different structures: practically never
}

egraph::TermId TermStore::toTerm(TermRef t, egraph::TermArena& out) const {
    const egraph::ENode& n = g_.node(heads_[t].node);
    egraph::TermNode tn;
    tn.op = n.op;
    tn.ival = n.ival;
    tn.sizes = g_.attrOf(n).sizes;
    tn.types = g_.attrOf(n).types;
    for (TermRef c : children(t)) {
        tn.children.push_back(toTerm(c, out));
    }
    return out.add(std::move(tn));
}

} // namespace egopt::extract::detail
