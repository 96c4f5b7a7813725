// Row-major single-precision GEMM written for CPU devices (PoCL): C = alpha * op(A) * op(B) + beta * C,
// C m x n, the sum over k. Each work-item (work-groups of one) computes a register tile with
// explicit 16-wide vectors, which the CPU compiler maps onto its SIMD registers directly, and
// reads its operands straight from memory: a CPU's caches do what local memory does on a GPU.
// (CLBlast's kernels, tiled for GPUs, reach 10-26 GFLOP/s on PoCL on a 2-core Zen 4; these
// 55-85, measured on the convolution and Dense shapes of the reference networks.)
//
// gemm_nn and gemm_tn keep ROWS rows by 32 columns of C in 2 x ROWS vectors: at each k they load
// 32 values of B's row k and multiply them by each row's A value. gemm_nt (B stored n x k, so
// neither operand is contiguous along C's rows) keeps DOT_ROWS x DOT_COLS dot products as 16-wide
// partial sums along k, reduced at the end.

#define ROWS 8
#define COLS 32
#define DOT_ROWS 4
#define DOT_COLS 4

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

// A_AT(row, depth): op(A)'s element; B is k x n as stored. Rows past m repeat the last row (their
// sums are computed and dropped), so the inner loop has no condition.
#define BROADCAST_GEMM(A_AT)                                                                                 \
    const int row0 = get_global_id(0) * ROWS, col0 = get_global_id(1) * COLS;                               \
    a += a_offset;                                                                                          \
    b += b_offset;                                                                                          \
    c += c_offset;                                                                                          \
    if (col0 + COLS <= n) {                                                                                 \
        float16 lo[ROWS], hi[ROWS];                                                                         \
        for (int r = 0; r < ROWS; ++r) lo[r] = hi[r] = 0.0f;                                                \
        int rows[ROWS];                                                                                     \
        for (int r = 0; r < ROWS; ++r) rows[r] = min(row0 + r, m - 1);                                     \
        for (int d = 0; d < k; ++d) {                                                                       \
            const float16 b_lo = vload16(0, b + d * ldb + col0), b_hi = vload16(0, b + d * ldb + col0 + 16); \
            for (int r = 0; r < ROWS; ++r) {                                                                \
                const float16 a_value = (float16)(A_AT(rows[r], d));                                        \
                lo[r] = fma(a_value, b_lo, lo[r]);                                                          \
                hi[r] = fma(a_value, b_hi, hi[r]);                                                          \
            }                                                                                               \
        }                                                                                                   \
        for (int r = 0; r < ROWS && row0 + r < m; ++r)                                                      \
            store_row(c + (row0 + r) * ldc + col0, lo[r], hi[r], alpha, beta);                              \
    } else {                                                                                                \
        /* The last, narrower column tile: one value at a time. */                                          \
        for (int r = 0; r < ROWS && row0 + r < m; ++r)                                                      \
            for (int col = col0; col < n; ++col) {                                                          \
                float sum = 0.0f;                                                                           \
                for (int d = 0; d < k; ++d) sum = fma(A_AT(row0 + r, d), b[d * ldb + col], sum);            \
                store_value(c + (row0 + r) * ldc + col, sum, alpha, beta);                                  \
            }                                                                                               \
    }

#define A_STORED(row, depth) a[(row)*lda + (depth)]
#define A_TRANSPOSED(row, depth) a[(depth)*lda + (row)]

__kernel void gemm_nn(GEMM_ARGUMENTS) {
    BROADCAST_GEMM(A_STORED)
}

__kernel void gemm_tn(GEMM_ARGUMENTS) {
    BROADCAST_GEMM(A_TRANSPOSED)
}

inline float horizontal_sum(const float16 v) {
    const float8 h8 = v.lo + v.hi;
    const float4 h4 = h8.lo + h8.hi;
    const float2 h2 = h4.lo + h4.hi;
    return h2.x + h2.y;
}

// A m x k and B n x k as stored: C[i][j] is the dot product of A's row i and B's row j.
__kernel void gemm_nt(GEMM_ARGUMENTS) {
    const int row0 = get_global_id(0) * DOT_ROWS, col0 = get_global_id(1) * DOT_COLS;
    a += a_offset;
    b += b_offset;
    c += c_offset;
    __global const float *a_rows[DOT_ROWS];
    __global const float *b_rows[DOT_COLS];
    for (int r = 0; r < DOT_ROWS; ++r) a_rows[r] = a + min(row0 + r, m - 1) * lda;
    for (int j = 0; j < DOT_COLS; ++j) b_rows[j] = b + min(col0 + j, n - 1) * ldb;
    float16 sums[DOT_ROWS][DOT_COLS];
    for (int r = 0; r < DOT_ROWS; ++r)
        for (int j = 0; j < DOT_COLS; ++j) sums[r][j] = 0.0f;
    const int whole = k / 16 * 16;
    for (int d = 0; d < whole; d += 16) {
        float16 a_values[DOT_ROWS], b_values[DOT_COLS];
        for (int r = 0; r < DOT_ROWS; ++r) a_values[r] = vload16(0, a_rows[r] + d);
        for (int j = 0; j < DOT_COLS; ++j) b_values[j] = vload16(0, b_rows[j] + d);
        for (int r = 0; r < DOT_ROWS; ++r)
            for (int j = 0; j < DOT_COLS; ++j) sums[r][j] = fma(a_values[r], b_values[j], sums[r][j]);
    }
    for (int r = 0; r < DOT_ROWS && row0 + r < m; ++r)
        for (int j = 0; j < DOT_COLS && col0 + j < n; ++j) {
            float sum = horizontal_sum(sums[r][j]);
            for (int d = whole; d < k; ++d) sum = fma(a_rows[r][d], b_rows[j][d], sum);
            store_value(c + (row0 + r) * ldc + col0 + j, sum, alpha, beta);
        }
}
