// Configuration spaces of tuning variables (tuner.hpp).
#include "egopt/pipeline/tuner.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace egopt::pipeline {

namespace {

std::vector<int64_t> divisorsOf(int64_t n) {
    std::vector<int64_t> small, large;
    for (int64_t d = 1; d * d <= n; ++d) {
        if (n % d == 0) {
            small.push_back(d);
            if (d != n / d) {
                large.push_back(n / d);
            }
        }
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

} // namespace

Space::Space(std::vector<extract::TuningVar> vars, arith::Bindings sizes)
    : vars_(std::move(vars)), sizes_(std::move(sizes)) {}

std::vector<int64_t> Space::domain(size_t i, const arith::Bindings& earlier) const {
    arith::Bindings env = sizes_;
    env.insert(earlier.begin(), earlier.end());
    int64_t g = 0;
    for (const arith::Size& len : vars_.at(i).divides) {
        std::optional<int64_t> v = len.evaluate(env);
        if (!v || *v < 1) {
            return {1}; // not evaluable (or empty): only the neutral split is safe
        }
        g = std::gcd(g, *v);
    }
    return g == 0 ? std::vector<int64_t>{1} : divisorsOf(g);
}

bool Space::valid(const arith::Bindings& values) const {
    arith::Bindings earlier;
    for (size_t i = 0; i < vars_.size(); ++i) {
        auto it = values.find(vars_[i].name);
        if (it == values.end()) {
            return false;
        }
        auto dom = domain(i, earlier);
        if (!std::binary_search(dom.begin(), dom.end(), it->second)) {
            return false;
        }
        earlier[it->first] = it->second;
    }
    return true;
}

arith::Bindings Space::repair(const arith::Bindings& values) const {
    arith::Bindings out;
    for (size_t i = 0; i < vars_.size(); ++i) {
        auto dom = domain(i, out);
        auto it = values.find(vars_[i].name);
        int64_t want = it == values.end() ? dom.front() : it->second;
        auto pos = std::upper_bound(dom.begin(), dom.end(), want);
        out[vars_[i].name] = pos == dom.begin() ? dom.front() : *std::prev(pos);
    }
    return out;
}

arith::Bindings Space::initial(int64_t target) const {
    arith::Bindings want;
    for (const auto& v : vars_) {
        want[v.name] = target;
    }
    return repair(want);
}

std::vector<arith::Bindings> Space::neighbours(const arith::Bindings& values) const {
    std::vector<arith::Bindings> out;
    arith::Bindings earlier;
    for (size_t i = 0; i < vars_.size(); ++i) {
        const std::string& name = vars_[i].name;
        auto dom = domain(i, earlier);
        auto pos = std::lower_bound(dom.begin(), dom.end(), values.at(name));
        for (int step : {-1, +1}) {
            auto at = pos - dom.begin() + step;
            if (at < 0 || at >= static_cast<std::ptrdiff_t>(dom.size())) {
                continue;
            }
            arith::Bindings n = values;
            n[name] = dom[static_cast<size_t>(at)];
            out.push_back(repair(n));
        }
        earlier[name] = values.at(name);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    std::erase(out, values);
    return out;
}

std::vector<arith::Bindings> Space::pairNeighbours(const arith::Bindings& values) const {
    std::vector<arith::Bindings> near = neighbours(values);
    std::vector<arith::Bindings> out;
    for (const auto& n : near) {
        for (auto& m : neighbours(n)) {
            out.push_back(std::move(m));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    std::erase_if(out, [&](const arith::Bindings& m) {
        return m == values || std::binary_search(near.begin(), near.end(), m);
    });
    return out;
}

arith::Bindings Space::random(std::mt19937_64& rng) const {
    arith::Bindings out;
    for (size_t i = 0; i < vars_.size(); ++i) {
        auto dom = domain(i, out);
        std::uniform_int_distribution<size_t> pick(0, dom.size() - 1);
        out[vars_[i].name] = dom[pick(rng)];
    }
    return out;
}

size_t Space::count(size_t cap) const {
    // Depth-first over the (dependent) domains, stopping at the cap.
    size_t total = 0;
    std::function<void(size_t, arith::Bindings&)> walk = [&](size_t i, arith::Bindings& env) {
        if (total >= cap) {
            return;
        }
        if (i == vars_.size()) {
            ++total;
            return;
        }
        for (int64_t v : domain(i, env)) {
            env[vars_[i].name] = v;
            walk(i + 1, env);
            if (total >= cap) {
                break;
            }
        }
        env.erase(vars_[i].name);
    };
    arith::Bindings env;
    walk(0, env);
    return total;
}

} // namespace egopt::pipeline
