// The matches a search task stores and the apply phase reads back (Runner::Matches): the class
// and the slot classes of every match in one array, in task order.
#include "egopt/egraph/runner.hpp"

namespace egopt::egraph {

void Runner::Matches::add(EClassId c, const Subst& s) {
    // Not through a row on the stack: its copy compiled to `rep movsq`, slow for a few bytes.
    classes.push_back(c);
    classes.insert(classes.end(), s.classes.begin(), s.classes.end());
    unchanged.push_back(s.unchanged);
    if (!s.sizes.empty()) {
        sizes.emplace_back(count, s.sizes);
    }
    ++count;
    ++found;
}

void Runner::Matches::defer(EClassId root, std::span<const uint32_t> path, uint32_t lo,
                            uint32_t hi) {
    classes.push_back(root);
    classes.insert(classes.end(), width, kNoClass);
    unchanged.push_back(true);
    Deferred d{static_cast<uint32_t>(paths.size()), static_cast<uint32_t>(path.size()), lo, hi};
    paths.insert(paths.end(), path.begin(), path.end());
    deferred.emplace_back(count, d);
    ++count;
}

const Runner::Matches::Deferred* Runner::Matches::at(size_t i, size_t& nextSizes,
                                                     size_t& nextDeferred, Match& out) const {
    const EClassId* row = classes.data() + i * (width + 1);
    out.eclass = row[0];
    // A few ids: copied in a loop into the reused vector, not through a memmove call.
    out.subst.classes.resize(width);
    for (size_t k = 0; k < width; ++k) {
        out.subst.classes[k] = row[1 + k];
    }
    out.subst.unchanged = unchanged[i];
    if (!out.subst.sizes.empty()) {
        out.subst.sizes.clear();
    }
    if (nextSizes < sizes.size() && sizes[nextSizes].first == i) {
        out.subst.sizes = sizes[nextSizes++].second;
    }
    if (nextDeferred < deferred.size() && deferred[nextDeferred].first == i) {
        return &deferred[nextDeferred++].second;
    }
    return nullptr;
}

} // namespace egopt::egraph
