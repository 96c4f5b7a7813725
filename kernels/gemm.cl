// Row-major single-precision GEMM written for CPU devices (PoCL): C = alpha * op(A) * op(B) + beta * C,
// C m x n, the sum over k. Each work-item (work-groups of one) computes a register tile with
// explicit 16-wide vectors, which the CPU compiler maps onto its SIMD registers directly, and
// reads its operands straight from memory: a CPU's caches do what local memory does on a GPU.
// (CLBlast's kernels, tiled for GPUs, reach 10-26 GFLOP/s on PoCL on a 2-core Zen 4; these
// 90-170, measured on the convolution and Dense shapes of the reference networks.)
//
// gemm_nn and gemm_tn keep ROWS rows by 32 columns of C in 2 x ROWS vectors: at each k they load
// 32 values of B's row k and multiply them by each row's A value. gemm_nt (B stored n x k, so
// neither operand is contiguous along C's rows) keeps DOT_ROWS x DOT_COLS dot products as 16-wide
// partial sums along k, reduced at the end.

#include "activation_functions.clh"
#include "vector_sum.clh"

// ROWS, DOT_ROWS and DOT_COLS come from the device's tuning (device/kernel_tuning.h, -D
// definitions), which also sizes the host's ranges (engine/ops/gemm.cpp); these are the source's own.
#ifndef ROWS
#define ROWS 8
#endif
#define COLS 32
#ifndef DOT_ROWS
#define DOT_ROWS 4
#endif
#ifndef DOT_COLS
#define DOT_COLS 4
#endif

#define GEMM_ARGUMENTS                                                                                    \
    const int m, const int n, const int k, const float alpha, __global const float *a, const int a_offset, \
        const int lda, __global const float *b, const int b_offset, const int ldb, const float beta,       \
        __global float *c, const int c_offset, const int ldc

// beta == 0 never reads C, so whatever it held (NaN included) is overwritten.
inline void store_value(__global float *c, const float value, const float alpha, const float beta) {
    *c = beta == 0.0f ? alpha * value : alpha * value + beta * *c;
}

inline void store_row(__global float *c, const float16 lo, const float16 hi, const float alpha, const float beta) {
    if (beta == 0.0f) {
        vstore16(alpha * lo, 0, c);
        vstore16(alpha * hi, 0, c + 16);
    } else {
        vstore16(alpha * lo + beta * vload16(0, c), 0, c);
        vstore16(alpha * hi + beta * vload16(0, c + 16), 0, c + 16);
    }
}

// The k-long loop of one ROWS x COLS tile: at each depth, 32 values of B's row times each row's A
// value. ROW_OF(r) is the row of A that the tile's row r reads. Every loop over the tile's rows is
// unrolled, so that lo and hi live in registers: left rolled, PoCL's compiler kept them on the
// stack and every multiply-add went through memory (measured: 2 to 3 times slower).
#define TILE_PRODUCT(A_AT, ROW_OF)                                                                            \
    for (int d = 0; d < k; ++d) {                                                                           \
        const float16 b_lo = vload16(0, b + d * ldb + col0), b_hi = vload16(0, b + d * ldb + col0 + 16);    \
        _Pragma("unroll") for (int r = 0; r < ROWS; ++r) {                                                  \
            const float16 a_value = (float16)(A_AT(ROW_OF(r), d));                                          \
            lo[r] = fma(a_value, b_lo, lo[r]);                                                              \
            hi[r] = fma(a_value, b_hi, hi[r]);                                                              \
        }                                                                                                   \
    }

// A_AT(row, depth): op(A)'s element; B is k x n as stored. When A has ROWS rows or more, the last
// row tile is moved up to end at row m - 1 (overlapping the one before it, whose rows it leaves
// alone), so every tile reads rows first..first + ROWS - 1 at fixed offsets; a smaller A repeats
// its last row (computed and dropped). Either way the inner loop has no condition.
#define BROADCAST_GEMM(A_AT)                                                                                 \
    const int row0 = get_global_id(0) * ROWS, col0 = get_global_id(1) * COLS;                               \
    const int first = max(0, min(row0, m - ROWS));                                                          \
    a += a_offset;                                                                                          \
    b += b_offset;                                                                                          \
    c += c_offset;                                                                                          \
    if (col0 + COLS <= n) {                                                                                 \
        float16 lo[ROWS], hi[ROWS];                                                                         \
        _Pragma("unroll") for (int r = 0; r < ROWS; ++r) lo[r] = hi[r] = 0.0f;                              \
        if (m >= ROWS) {                                                                                    \
            TILE_PRODUCT(A_AT, ROW_INSIDE)                                                                  \
        } else {                                                                                            \
            TILE_PRODUCT(A_AT, ROW_CLAMPED)                                                                 \
        }                                                                                                   \
        _Pragma("unroll") for (int r = 0; r < ROWS; ++r) if (first + r >= row0 && first + r < m)            \
            store_row(c + (first + r) * ldc + col0, lo[r], hi[r], alpha, beta);                             \
    } else {                                                                                                \
        /* The last, narrower column tile: one value at a time. */                                          \
        for (int r = 0; r < ROWS && row0 + r < m; ++r)                                                      \
            for (int col = col0; col < n; ++col) {                                                          \
                float sum = 0.0f;                                                                           \
                for (int d = 0; d < k; ++d) sum = fma(A_AT(row0 + r, d), b[d * ldb + col], sum);            \
                store_value(c + (row0 + r) * ldc + col, sum, alpha, beta);                                  \
            }                                                                                               \
    }

#define ROW_INSIDE(r) (first + (r))
#define ROW_CLAMPED(r) min(r, m - 1)
#define A_STORED(row, depth) a[(row)*lda + (depth)]
#define A_TRANSPOSED(row, depth) a[(depth)*lda + (row)]

__kernel void gemm_nn(GEMM_ARGUMENTS) {
    BROADCAST_GEMM(A_STORED)
}

__kernel void gemm_tn(GEMM_ARGUMENTS) {
    BROADCAST_GEMM(A_TRANSPOSED)
}

// The DOT_ROWS x DOT_COLS dot products whose first is (row0, col0), each over depths [begin, end)
// of A's row and B's row (A m x k and B n x k as stored). Rows and columns past m and n repeat the
// last one (computed and dropped), so the inner loop has no condition. Its loops over the tile are
// unrolled, as TILE_PRODUCT's are, to keep the 16 sums in registers.
inline void dot_tile(const int m, const int n, __global const float *a, const int lda, __global const float *b,
                     const int ldb, const int row0, const int col0, const int begin, const int end,
                     float tile[DOT_ROWS][DOT_COLS]) {
    __global const float *a_rows[DOT_ROWS];
    __global const float *b_rows[DOT_COLS];
    for (int r = 0; r < DOT_ROWS; ++r) a_rows[r] = a + min(row0 + r, m - 1) * lda;
    for (int j = 0; j < DOT_COLS; ++j) b_rows[j] = b + min(col0 + j, n - 1) * ldb;
    float16 sums[DOT_ROWS][DOT_COLS];
    for (int r = 0; r < DOT_ROWS; ++r)
        for (int j = 0; j < DOT_COLS; ++j) sums[r][j] = 0.0f;
    const int whole = begin + (end - begin) / 16 * 16;
    for (int d = begin; d < whole; d += 16) {
        float16 a_values[DOT_ROWS], b_values[DOT_COLS];
#pragma unroll
        for (int r = 0; r < DOT_ROWS; ++r) a_values[r] = vload16(0, a_rows[r] + d);
#pragma unroll
        for (int j = 0; j < DOT_COLS; ++j) b_values[j] = vload16(0, b_rows[j] + d);
#pragma unroll
        for (int r = 0; r < DOT_ROWS; ++r)
#pragma unroll
            for (int j = 0; j < DOT_COLS; ++j) sums[r][j] = fma(a_values[r], b_values[j], sums[r][j]);
    }
    for (int r = 0; r < DOT_ROWS; ++r)
        for (int j = 0; j < DOT_COLS; ++j) {
            float sum = horizontal_sum(sums[r][j]);
            for (int d = whole; d < end; ++d) sum = fma(a_rows[r][d], b_rows[j][d], sum);
            tile[r][j] = sum;
        }
}

// A m x k and B n x k as stored: C[i][j] is the dot product of A's row i and B's row j.
__kernel void gemm_nt(GEMM_ARGUMENTS) {
    const int row0 = get_global_id(0) * DOT_ROWS, col0 = get_global_id(1) * DOT_COLS;
    float tile[DOT_ROWS][DOT_COLS];
    dot_tile(m, n, a + a_offset, lda, b + b_offset, ldb, row0, col0, 0, k, tile);
    c += c_offset;
    for (int r = 0; r < DOT_ROWS && row0 + r < m; ++r)
        for (int j = 0; j < DOT_COLS && col0 + j < n; ++j)
            store_value(c + (row0 + r) * ldc + col0 + j, tile[r][j], alpha, beta);
}

// C = f(A x B^T + bias[column]) with A m x k and B n x k as stored: a Dense layer's forward, its
// bias and fused activation (kind FUSED_NONE: none) applied as each value is stored, in the same
// order of operations as gemm_nt followed by dense.cl's dense_add_bias.
__kernel void gemm_nt_bias(const int m, const int n, const int k, __global const float *a, const int a_offset,
                           const int lda, __global const float *b, const int b_offset, const int ldb, __global float *c,
                           const int c_offset, const int ldc, __global const float *bias, const int bias_offset,
                           const int kind, const float slope) {
    const int row0 = get_global_id(0) * DOT_ROWS, col0 = get_global_id(1) * DOT_COLS;
    float tile[DOT_ROWS][DOT_COLS];
    dot_tile(m, n, a + a_offset, lda, b + b_offset, ldb, row0, col0, 0, k, tile);
    c += c_offset;
    bias += bias_offset;
    for (int r = 0; r < DOT_ROWS && row0 + r < m; ++r)
        for (int j = 0; j < DOT_COLS && col0 + j < n; ++j)
            c[(row0 + r) * ldc + col0 + j] = activate_fused(kind, slope, tile[r][j] + bias[col0 + j]);
}

// The same product with k split into chunks of `chunk` depths (dimension 2 of the range), for a
// few outputs that are each a long sum (a convolution's filter gradient): every chunk's dot
// products go to its own m x n slab of `partials`, which gemm_nt_sum adds up. Each work-item then
// streams chunk-long runs of rows that its neighbours (the same chunk, the next tile) read again
// from the core's cache, rather than whole rows of k values from memory.
__kernel void gemm_nt_partial(const int m, const int n, const int k, const int chunk, __global const float *a,
                              const int a_offset, const int lda, __global const float *b, const int b_offset,
                              const int ldb, __global float *partials, const int partials_offset) {
    const int row0 = get_global_id(0) * DOT_ROWS, col0 = get_global_id(1) * DOT_COLS, part = get_global_id(2);
    const int begin = part * chunk, end = min(k, begin + chunk);
    float tile[DOT_ROWS][DOT_COLS];
    dot_tile(m, n, a + a_offset, lda, b + b_offset, ldb, row0, col0, begin, end, tile);
    partials += partials_offset + part * m * n;
    for (int r = 0; r < DOT_ROWS && row0 + r < m; ++r)
        for (int j = 0; j < DOT_COLS && col0 + j < n; ++j) partials[(row0 + r) * n + col0 + j] = tile[r][j];
}

// C = alpha * (the sum of the `parts` m x n slabs of partials, in order) + beta * C; one work-item
// per row of C, 16 columns at a time.
__kernel void gemm_nt_sum(const int m, const int n, const int parts, const float alpha, __global const float *partials,
                          const int partials_offset, const float beta, __global float *c, const int c_offset,
                          const int ldc) {
    const int row = get_global_id(0);
    if (row >= m) return;
    partials += partials_offset + row * n;
    c += c_offset + row * ldc;
    const int slab = m * n, whole = n / 16 * 16;
    for (int col = 0; col < whole; col += 16) {
        float16 sum = vload16(0, partials + col);
        for (int part = 1; part < parts; ++part) sum += vload16(0, partials + part * slab + col);
        vstore16(beta == 0.0f ? alpha * sum : alpha * sum + beta * vload16(0, c + col), 0, c + col);
    }
    for (int col = whole; col < n; ++col) {
        float sum = partials[col];
        for (int part = 1; part < parts; ++part) sum += partials[part * slab + col];
        store_value(c + col, sum, alpha, beta);
    }
}
