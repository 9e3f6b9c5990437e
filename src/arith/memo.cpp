// The memo of simplify() results (size.hpp): sharded hash maps keyed by expression and facts.
#include "node.hpp"

#include <mutex>
#include <unordered_map>

namespace egopt::arith {

namespace {

constexpr size_t kShards = 64;

} // namespace

struct SimplifyMemo::Shard {
    struct Key {
        Size e;
        std::shared_ptr<const RangeEnv::Facts> facts;
        bool operator==(const Key& o) const {
            return e == o.e && (facts == o.facts || *facts == *o.facts);
        }
    };

    struct KeyHash {
        size_t operator()(const Key& k) const { return hashMix(k.e.hash(), k.facts->hash); }
    };

    mutable std::mutex mutex;
    std::unordered_map<Key, Size, KeyHash> results;
};

SimplifyMemo::SimplifyMemo(size_t capacity)
    : shards_(std::make_unique<Shard[]>(kShards)), capacity_(capacity) {}

SimplifyMemo::~SimplifyMemo() = default;

std::optional<Size> SimplifyMemo::find(const Size& e, const RangeEnv& env) const {
    Shard::Key key{e, env.facts()};
    size_t h = Shard::KeyHash{}(key);
    const Shard& s = shards_[h % kShards];
    std::lock_guard lock(s.mutex);
    if (auto it = s.results.find(key); it != s.results.end()) {
        return it->second;
    }
    return std::nullopt;
}

void SimplifyMemo::insert(const Size& e, const RangeEnv& env, const Size& simplified) {
    Shard::Key key{e, env.facts()};
    size_t h = Shard::KeyHash{}(key);
    Shard& s = shards_[h % kShards];
    std::lock_guard lock(s.mutex);
    if (s.results.size() < capacity_ / kShards) {
        s.results.emplace(std::move(key), simplified);
    }
}

size_t SimplifyMemo::size() const {
    size_t n = 0;
    for (size_t i = 0; i < kShards; ++i) {
        std::lock_guard lock(shards_[i].mutex);
        n += shards_[i].results.size();
    }
    return n;
}

} // namespace egopt::arith
