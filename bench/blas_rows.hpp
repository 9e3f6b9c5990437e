// The anchor rows: a hand-written float4 copy kernel (the bandwidth limit) and CLBlast routines,
// called through CLBlast's C API on the Session's own queue.
#pragma once

#include "harness.hpp"

#include <cstddef>
#include <string>
#include <vector>

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

// A buffer of n pattern values (patternValue(i, seed)).
runtime::Buffer uploadPattern(runtime::Session& session, size_t n, unsigned seed);
// "ok" when the first n floats of `buffer` are patternValue(i, seed), else the first mismatch.
std::string checkPattern(runtime::Session& session, const runtime::Buffer& buffer, size_t n,
                         unsigned seed);

// out = x with the float4 copy kernel, in work-groups of 256 (N a multiple of 1024). Moves 2N*4
// bytes; checked in full.
Row copyKernel(Timer& timer, const VectorData& data);
// CLBlastScopy, y = x, into a buffer of its own. Moves 2N*4 bytes; checked in full.
Row blasCopy(Timer& timer, const VectorData& data);

// x = 1 * x; alpha 1 keeps the data unchanged over the runs. Moves 2N*4 bytes (read + write x).
Row blasScal(Timer& timer, const VectorData& data);
// sum |x_i|. Moves N*4 bytes.
Row blasAsum(Timer& timer, const VectorData& data);
// sum x_i * y_i. Moves 2N*4 bytes.
Row blasDot(Timer& timer, const VectorData& data);
// y = 1 * x + y on a copy of y (the routine works in place, so y grows over the runs and is not
// checked). Moves 3N*4 bytes.
Row blasAxpy(Timer& timer, const VectorData& data);
// y = A x, A row-major n x n, beta 0. Moves (MN + M + N)*4 bytes.
Row blasGemv(Timer& timer, size_t n);
// C = A B, all row-major n x n, beta 0. Computes 2MNK flops.
Row blasGemm(Timer& timer, size_t n);
// C = A B with A: m x k and B: k x n, row-major.
Row blasGemm(Timer& timer, size_t m, size_t n, size_t k);
// B = A^T with CLBlastSomatcopy, n x n row-major. Moves 2N^2*4 bytes; checked in full.
Row blasTranspose(Timer& timer, size_t n);

} // namespace egopt::bench
