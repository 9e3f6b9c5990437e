// The benchmarked programs and their host references. The references restate what each program
// computes, including the chunk sizes written in the .lift files (asum_gpu's 262144 and 128,
// partial_dot's 128): a change to a program without its reference shows as a failed check.
#include "codegen_programs.hpp"

#include "blas_rows.hpp"

#include <array>
#include <cmath>

namespace egopt::bench {

namespace {

int64_t sizeOf(const arith::Bindings& sizes, const char* name) {
    return sizes.at(name);
}

double copyVec4(const arith::Bindings&, size_t i) {
    return inputValue(0, i);
}

// (xs, alpha): out = alpha * xs.
double scal(const arith::Bindings&, size_t i) {
    return double(kScalarInput) * inputValue(0, i);
}

// scalar_param.lift, (alpha, x, y): out = alpha * x + y.
double saxpy(const arith::Bindings&, size_t i) {
    return double(kScalarInput) * inputValue(0, i) + inputValue(1, i);
}

// Work-groups of 262144 elements, 128 threads each; Gather(ReorderWithStride(128)) then
// Split(2048) gives thread t the elements t + 128 j, j < 2048.
double asumGpu(const arith::Bindings&, size_t i) {
    const size_t group = i / 128, thread = i % 128;
    double sum = 0;
    for (size_t j = 0; j < 2048; ++j) {
        sum += std::abs(double(inputValue(0, group * 262144 + thread + 128 * j)));
    }
    return sum;
}

// One partial sum per chunk of 128 pairs.
double partialDot(const arith::Bindings&, size_t i) {
    double sum = 0;
    for (size_t k = i * 128; k < (i + 1) * 128; ++k) {
        sum += double(inputValue(0, k)) * inputValue(1, k);
    }
    return sum;
}

// (m: M x N, v: N): out[i] = row i of m times v.
double matVec(const arith::Bindings& sizes, size_t i) {
    const auto n = static_cast<size_t>(sizeOf(sizes, "N"));
    double sum = 0;
    for (size_t k = 0; k < n; ++k) {
        sum += double(inputValue(0, i * n + k)) * inputValue(1, k);
    }
    return sum;
}

// The input has N rows of M; the output M rows of N: out[r][c] = a[c][r].
double transpose(const arith::Bindings& sizes, size_t i) {
    const auto m = static_cast<size_t>(sizeOf(sizes, "M"));
    const auto n = static_cast<size_t>(sizeOf(sizes, "N"));
    return inputValue(0, (i % n) * m + i / n);
}

// out[row][col] = sum_j a(row, j) * B[j][col] for B: K x N, out: M x N, where element (row, j)
// of A sits at `aIndex(row, j)` of input 0.
double matMulWith(const arith::Bindings& sizes, size_t i, auto aIndex) {
    const auto k = static_cast<size_t>(sizeOf(sizes, "K"));
    const auto n = static_cast<size_t>(sizeOf(sizes, "N"));
    const size_t row = i / n, col = i % n;
    double sum = 0;
    for (size_t j = 0; j < k; ++j) {
        sum += double(inputValue(0, aIndex(row, j))) * inputValue(1, j * n + col);
    }
    return sum;
}

// A: M x K.
double matMul(const arith::Bindings& sizes, size_t i) {
    const auto k = static_cast<size_t>(sizeOf(sizes, "K"));
    return matMulWith(sizes, i, [k](size_t row, size_t j) { return row * k + j; });
}

// At: K x M (A transposed).
double matMulTransposedA(const arith::Bindings& sizes, size_t i) {
    const auto m = static_cast<size_t>(sizeOf(sizes, "M"));
    return matMulWith(sizes, i, [m](size_t row, size_t j) { return j * m + row; });
}

const std::array<ProgramSpec, 18>& specs() {
    static const std::array<ProgramSpec, 18> table{{
        {"copy_vec4",
         "copy_vec4",
         Shape::Vector,
         Anchor::Copy,
         {{"N", 4096}},
         false,
         "out = xs with float4 loads and stores",
         copyVec4},
        {"scal",
         "scal",
         Shape::Vector,
         Anchor::Scal,
         {{"N", 4096}},
         false,
         "out = alpha xs, out of place (CLBlast's sscal works in place)",
         scal},
        {"saxpy",
         "scalar_param",
         Shape::Vector,
         Anchor::Axpy,
         {{"N", 4096}},
         false,
         "out = alpha x + y, out of place (CLBlast's saxpy updates y in place)",
         saxpy},
        {"asum_gpu",
         "asum_gpu",
         Shape::Vector,
         Anchor::Asum,
         {{"N", 524288}},
         false,
         "first stage only: N/2048 partial sums of |x| (CLBlast's row: the whole sasum, main "
         "and epilogue kernel); bytes N*4 + N/2048*4",
         asumGpu},
        {"partial_dot",
         "partial_dot",
         Shape::Vector,
         Anchor::Dot,
         {{"N", 4096}},
         false,
         "first stage only: N/128 partial sums of x*y in local memory (CLBlast's row: the whole "
         "sdot); bytes 2N*4 + N/128*4",
         partialDot},
        {"mat_vec",
         "mat_vec",
         Shape::MatVec,
         Anchor::Gemv,
         {{"M", 64}, {"N", 96}},
         false,
         "y = A x, one row per work-item; bytes (MN + N + M)*4",
         matVec},
        {"transpose",
         "transpose",
         Shape::Transpose,
         Anchor::Transpose,
         {{"M", 64}, {"N", 48}},
         false,
         "out = A^T, a work-group per output row; bytes 2MN*4",
         transpose},
        {"mm_funcall",
         "mm_funcall",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 32}, {"K", 48}, {"N", 40}},
         true,
         "C = A B, naive: one output per work-item, no tiling; 2MNK flops",
         matMul},
        {"mm_block2d",
         "mm_block2d",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 128}, {"K", 48}, {"N", 192}},
         true,
         "C = A B, 64x64 tiles per work-group, 4x4 register blocks (4 float4 accumulators) per "
         "work-item; 2MNK flops",
         matMul},
        {"mm_block2d_8x4",
         "mm_block2d_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "C = A B, 128x64 tiles per work-group, 8x4 register blocks (8 float4 accumulators) per "
         "work-item; 2MNK flops",
         matMul},
        {"mm_block2d_8x8",
         "mm_block2d_8x8",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 256}},
         true,
         "C = A B, 128x128 tiles per work-group, 8x8 register blocks (8 float8 accumulators) per "
         "work-item; 2MNK flops",
         matMul},
        {"mm_at_8x4",
         "mm_at_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "C = A B from A transposed (K x M), 8x4 register blocks whose 8 elements of A per step "
         "come in two float4; 2MNK flops (the transpose not counted)",
         matMulTransposedA},
        {"mm_tiled_8x4",
         "mm_tiled_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "C = A B, 128x64 tiles per work-group with 128x16 tiles of A (stored transposed) and "
         "16x64 tiles of B in local memory, 8x4 register blocks per work-item; 2MNK flops",
         matMul},
        {"mm_tiled_8x8",
         "mm_tiled_8x8",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 64}, {"N", 256}},
         true,
         "C = A B, 128x128 tiles per work-group with 128x32 tiles of A (stored transposed) and "
         "32x128 tiles of B in local memory, 8x8 register blocks per work-item (two float4 "
         "columns 64 apart); 2MNK flops",
         matMul},
        {"mm_tiled_8x8_f8",
         "mm_tiled_8x8_f8",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 64}, {"N", 256}},
         true,
         "mm_tiled_8x8 with each work-item's 8 columns contiguous (float8 reads of B, a 4-way "
         "local-memory bank conflict); 2MNK flops",
         matMul},
        {"mm_slices_8x4",
         "mm_slices_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "C = A B, 128x64 tiles per work-group as a fold over slices of 16 along K, 8x4 register "
         "blocks per work-item reading both slices from global memory; 2MNK flops",
         matMul},
        {"mm_slices_staged_8x4",
         "mm_slices_staged_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "mm_slices_8x4 with both slices staged in local memory per step (stage-fold-slices' "
         "form: A's slice as stored, read as scalars); 2MNK flops",
         matMul},
        {"mm_slices_staged_bt_8x4",
         "mm_slices_staged_bt_8x4",
         Shape::Cube,
         Anchor::Gemm,
         {{"M", 256}, {"K", 48}, {"N", 128}},
         true,
         "mm_slices_staged_8x4 with B's slice stored transposed (coalesced copy, conflict-free "
         "reads); 2MNK flops",
         matMul},
    }};
    return table;
}

} // namespace

float inputValue(unsigned arrayParam, size_t i) {
    return patternValue(i, 1 + arrayParam);
}

std::span<const ProgramSpec> programSpecs() {
    return specs();
}

std::string anchorName(Anchor anchor) {
    switch (anchor) {
    case Anchor::Copy:
        return "copy";
    case Anchor::Scal:
        return "scal";
    case Anchor::Axpy:
        return "axpy";
    case Anchor::Asum:
        return "asum";
    case Anchor::Dot:
        return "dot";
    case Anchor::Gemv:
        return "gemv";
    case Anchor::Transpose:
        return "transpose";
    case Anchor::Gemm:
        return "sgemm";
    }
    return "?";
}

} // namespace egopt::bench
