// Benchmark rows for CLBlast routines, through CLBlast's C API on the Session's own queue.
#pragma once

#include "harness.hpp"

#include <cstddef>

namespace egopt::bench {

// Deterministic test data in [-1, 1]; `seed` tells the inputs of one routine apart.
float patternValue(size_t i, unsigned seed);
std::vector<float> patternVector(size_t n, unsigned seed);

// The two input vectors shared by the copy, scal, asum and dot rows, with the host reference
// results (computed in double) that the rows check against.
struct VectorData {
    size_t n = 0;
    runtime::Buffer x;
    runtime::Buffer y;
    double asum = 0;
    double dot = 0;
};

VectorData makeVectors(runtime::Session& session, size_t n);

// x = 1 * x; alpha 1 keeps the data unchanged over the runs. Moves 2N*4 bytes (read + write x).
Row blasScal(Timer& timer, const VectorData& data);
// sum |x_i|. Moves N*4 bytes.
Row blasAsum(Timer& timer, const VectorData& data);
// sum x_i * y_i. Moves 2N*4 bytes.
Row blasDot(Timer& timer, const VectorData& data);
// y = A x, A row-major n x n, beta 0. Moves (MN + M + N)*4 bytes.
Row blasGemv(Timer& timer, size_t n);
// C = A B, all row-major n x n, beta 0. Computes 2MNK flops.
Row blasGemm(Timer& timer, size_t n);

} // namespace egopt::bench
