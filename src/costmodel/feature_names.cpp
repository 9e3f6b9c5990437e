// The features' names and their order in KernelFeatures::values() (the learned model's columns
// and the records' keys; docs/cost-models.md, "Features").
#include "egopt/costmodel/costmodel.hpp"

#include <iterator>

namespace egopt::costmodel {

const std::vector<std::string>& featureNames() {
    static const std::vector<std::string> names{"global_read_coalesced",
                                                "global_read_strided",
                                                "global_write_coalesced",
                                                "global_write_strided",
                                                "local_bytes",
                                                "private_statements",
                                                "arith_ops",
                                                "user_fun_calls",
                                                "work_items",
                                                "work_groups",
                                                "work_group_size",
                                                "work_per_item",
                                                "barriers",
                                                "loop_trips",
                                                "launches",
                                                "cached_read_coalesced",
                                                "cached_read_strided",
                                                "global_transactions",
                                                "reads_per_item",
                                                "local_conflict_bytes"};
    return names;
}

std::vector<double> KernelFeatures::values() const {
    return {globalReadCoalesced,
            globalReadStrided,
            globalWriteCoalesced,
            globalWriteStrided,
            localBytes,
            privateAccesses,
            arithOps,
            userFunCalls,
            workItems,
            workGroups,
            workGroupSize,
            workPerItem,
            barriers,
            loopTrips,
            launches,
            cachedReadCoalesced,
            cachedReadStrided,
            globalTransactions,
            readsPerItem,
            localConflictBytes};
}

void KernelFeatures::setValues(const std::vector<double>& v) {
    double* fields[] = {&globalReadCoalesced,
                        &globalReadStrided,
                        &globalWriteCoalesced,
                        &globalWriteStrided,
                        &localBytes,
                        &privateAccesses,
                        &arithOps,
                        &userFunCalls,
                        &workItems,
                        &workGroups,
                        &workGroupSize,
                        &workPerItem,
                        &barriers,
                        &loopTrips,
                        &launches,
                        &cachedReadCoalesced,
                        &cachedReadStrided,
                        &globalTransactions,
                        &readsPerItem,
                        &localConflictBytes};
    for (size_t i = 0; i < std::size(fields) && i < v.size(); ++i) {
        *fields[i] = v[i];
    }
}

} // namespace egopt::costmodel
