// The parts of a convolution that are not matrix products. The column matrix col has one row per
// (input channel, kernel row, kernel column) and one column per (sample, output row, output
// column): col[(ci*kh + ki)*kw + kj][(n*out_h + oh)*out_w + ow]. "cnhw" is an output-shaped
// tensor with the channel outermost, the layout the GEMM produces and consumes.

#include "activation_functions.clh"
#include "vector_sum.clh"

// The kernels around the GEMM method, the CPU path: one work-item per row or plane, looping over
// it in memory order. A CPU runs each work-item's loop as plain (vectorisable) code; one work-item
// per element, the GPU way, measured several times slower on PoCL.

// The output columns [*first, *last) whose input column ow * stride_w - left lies inside the row
// (left = pad_left - kernel column): im2col copies those and zeroes the rest, col2im adds them back.
void inside_columns(const int left, const int stride_w, const int width, const int out_w, int* first, int* last) {
    *first = left <= 0 ? 0 : min(out_w, (left + stride_w - 1) / stride_w);
    *last = max(*first, min(out_w, (width + left + stride_w - 1) / stride_w));
}

// One work-item per (sample, col row) over a 2-D range: that sample's stretch of the row, reading
// the input rows in order; padding reads as zero. col's rows are col_ld values apart.
__kernel void conv2d_im2col(const int batch, const int channels, const int height, const int width,
                            const int out_h, const int out_w, const int kernel_h, const int kernel_w,
                            const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                            __global const float* x, const int x_off,
                            __global float* col, const int col_off, const int col_ld) {
    const int n = get_global_id(0), row = get_global_id(1);
    if (n >= batch || row >= channels * kernel_h * kernel_w) return;
    const int kj = row % kernel_w, ki = (row / kernel_w) % kernel_h, ci = row / (kernel_w * kernel_h);
    __global float* out = col + col_off + row * col_ld + n * out_h * out_w;
    __global const float* in = x + x_off + (n * channels + ci) * height * width;
    const int left = pad_left - kj;
    int first, last;
    inside_columns(left, stride_w, width, out_w, &first, &last);
    for (int oh = 0; oh < out_h; ++oh, out += out_w) {
        const int ih = oh * stride_h - pad_top + ki;
        if (ih < 0 || ih >= height) {
            for (int ow = 0; ow < out_w; ++ow) out[ow] = 0.0f;
            continue;
        }
        __global const float* in_row = in + ih * width - left;
        for (int ow = 0; ow < first; ++ow) out[ow] = 0.0f;
        for (int ow = first; ow < last; ++ow) out[ow] = in_row[ow * stride_w];
        for (int ow = last; ow < out_w; ++ow) out[ow] = 0.0f;
    }
}

// y (NCHW) = f(cnhw + bias) with f the fused activation (kind FUSED_NONE: none), one work-item
// per (channel, sample) plane; cnhw's rows are cnhw_ld values apart.
__kernel void conv2d_output(const int batch, const int channels, const int plane, const int kind, const float slope,
                            __global const float* cnhw, const int cnhw_off, const int cnhw_ld,
                            __global const float* bias, const int bias_off,
                            __global float* y, const int y_off) {
    const int c = get_global_id(0), n = get_global_id(1);
    if (c >= channels || n >= batch) return;
    __global const float* in = cnhw + cnhw_off + c * cnhw_ld + n * plane;
    __global float* out = y + y_off + (n * channels + c) * plane;
    const float b = bias[bias_off + c];
    for (int p = 0; p < plane; ++p) out[p] = activate_fused(kind, slope, in[p] + b);
}

// The sum of a row: 16 partial sums, one per vector lane, so that a CPU adds a whole vector per
// step instead of one value after another (a scalar sum cannot be reordered by the compiler).
// Measured on cifar's conv2 (32 rows of 65,536): 1.8 ms to 0.2 ms on 2 cores.
float row_sum(__global const float* row, const int length) {
    float16 lanes = 0.0f;
    int j = 0;
    for (; j + 16 <= length; j += 16) lanes += vload16(0, row + j);
    float sum = horizontal_sum(lanes);
    for (; j < length; ++j) sum += row[j];
    return sum;
}

// The start of the gemm method's backward, one work-item per channel c (launched one per group,
// so that a CPU's threads share the channels): row c of cnhw (rows cnhw_ld values apart) = dy
// (NCHW) * f'(y) for every sample,
// the gradient before the fused activation (kind FUSED_NONE: dy itself), in the GEMMs' layout;
// then dbias[c] = that row's sum, read back while it is still in the cache. One pass and one
// launch where the activation's backward, the layout change and the bias gradient were three.
__kernel void conv2d_gradient_to_cnhw(const int batch, const int channels, const int plane, const int kind,
                                      const float slope,
                                      __global const float* y, const int y_off,
                                      __global const float* dy, const int dy_off,
                                      __global float* cnhw, const int cnhw_off, const int cnhw_ld,
                                      __global float* dbias, const int dbias_off) {
    const int c = get_global_id(0);
    if (c >= channels) return;
    __global float* row = cnhw + cnhw_off + c * cnhw_ld;
    for (int n = 0; n < batch; ++n) {
        const int from = (n * channels + c) * plane;
        __global const float* y_plane = y + y_off + from;
        __global const float* dy_plane = dy + dy_off + from;
        __global float* out = row + n * plane;
        if (kind == FUSED_NONE)  // y is not read (the caller passes dy for it)
            for (int p = 0; p < plane; ++p) out[p] = dy_plane[p];
        else
            for (int p = 0; p < plane; ++p) out[p] = fused_gradient(kind, slope, y_plane[p], dy_plane[p]);
    }
    dbias[dbias_off + c] = row_sum(row, batch * plane);
}

// The own kernels below are tiled matrix products C[M][N] = sum over k of A[k][M] * B[k][N]:
// groups of 8x8 work-items each own a TILE_M x TILE_N output tile, TM x TN neighbouring values
// per work-item, with both operands staged through local memory STEP values of k at a time. M
// is always the channel side (filters or input channels) and N the long side (positions or
// gradient columns); group dimension 0 walks N and dimension 1 walks M. The kernels read the
// convolution's tensors in place, so no column matrix or layout change is ever written.
// TM, TN and STEP come from the device's tuning (device/kernel_tuning.h, -D definitions), which
// also sizes the host's ranges (engine/ops/conv2d.cpp's Layout); these are the source's own,
// the fastest of those measured on the H100 class (docs/performance.md).
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef STEP
#define STEP 16
#endif
#define TILE_M (8 * TM)
#define TILE_N (8 * TN)
// Loading a tile side of STEP values per row, the 64 work-items cover PASS_ROWS rows at a time.
#define PASS_ROWS (64 / STEP)
// Local tiles are STEP rows of float4s with one spare float4 per row: the work-items reading a
// row read whole float4s (one wide local load for 4 values), and the 16 that store one column
// of a tile (16 values of k) spread over the banks.
#define ROW4_M (TILE_M / 4 + 1)
#define ROW4_N (TILE_N / 4 + 1)
// The forward's table of col rows: 64 channels of a 3x3 kernel, in 5 KB of local memory.
#define FORWARD_TABLE_ROWS 640

// One staged step: acc[i][j] += a[k][ty * TM + i] * b[k][tx * TN + j] over the STEP values of k.
inline void multiply_step(__local const float4* a, __local const float4* b, const int tx, const int ty,
                          float acc[TM][TN]) {
    for (int k = 0; k < STEP; ++k) {
        float left[TM], right[TN];
        for (int v = 0; v < TM / 4; ++v) {
            const float4 value = a[k * ROW4_M + ty * (TM / 4) + v];
            left[4 * v] = value.s0, left[4 * v + 1] = value.s1, left[4 * v + 2] = value.s2, left[4 * v + 3] = value.s3;
        }
        for (int v = 0; v < TN / 4; ++v) {
            const float4 value = b[k * ROW4_N + tx * (TN / 4) + v];
            right[4 * v] = value.s0, right[4 * v + 1] = value.s1, right[4 * v + 2] = value.s2,
            right[4 * v + 3] = value.s3;
        }
        for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) acc[i][j] = mad(left[i], right[j], acc[i][j]);
    }
}

// PIPELINE: each kernel's loop runs one iteration more than it has steps. Iteration i issues
// the global reads of step i into registers (zeros past the last step), then multiplies step
// i - 1 from local memory while those reads are in flight, then (between two barriers) stores
// step i's registers into the local tiles.

// Element (k, r) of a local tile with rows of `row4` float4s.
#define AT(tile, row4, k, r) ((__local float*)(tile))[(k) * 4 * (row4) + (r)]

// The filter and bias gradients as one split reduction over the long dimension P = batch * out_h *
// out_w (a skinny product: few outputs, each a sum of tens of thousands of terms, which one
// work-group per output tile would walk serially). With dy[Cout][P] read in place from NCHW and
// col[K][P] read from x where im2col would have copied it from:
//   partial[s][m][n] = sum over p in chunk s of dy[m][p] * col[n][p]   (n < K)
//   partial[s][m][K] = sum over p in chunk s of dy[m][p]               (the bias gradient)
// One group per (tile of filters x gradient columns, chunk).
__kernel __attribute__((reqd_work_group_size(8, 8, 1)))
void conv2d_filter_gradient_partial(const int batch, const int channels, const int height, const int width,
                                    const int out_h, const int out_w, const int kernel_h, const int kernel_w,
                                    const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                                    const int filters, const int chunk,
                                    __global const float* x, const int x_off,
                                    __global const float* dy, const int dy_off,
                                    __global float* partial, const int partial_off) {
    __local float4 dy_tile[STEP * ROW4_M];
    __local float4 col_tile[STEP * ROW4_N];
    // Where each gradient column of the tile reads x, relative to an output position's window:
    // (offset, kernel row, kernel column), offset -1 for the bias column and -2 past it.
    __local int4 column_source[TILE_N];
    const int tx = get_local_id(0), ty = get_local_id(1), item = ty * 8 + tx;
    const int n0 = get_group_id(0) * TILE_N, m0 = get_group_id(1) * TILE_M, s = get_group_id(2);
    const int rows = channels * kernel_h * kernel_w, plane = out_h * out_w, length = batch * plane;
    const int begin = s * chunk, end = min(begin + chunk, length);
    for (int r = item; r < TILE_N; r += 64) {
        const int n = n0 + r;
        const int kj = n % kernel_w, ki = (n / kernel_w) % kernel_h, ci = n / (kernel_w * kernel_h);
        column_source[r] = (int4)(n < rows ? (ci * height + ki) * width + kj : n == rows ? -1 : -2, ki, kj, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Each work-item loads the same value of P (k) of tile rows r0, r0 + PASS_ROWS, ... in every step.
    const int k = item % STEP, r0 = item / STEP;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    // Pipelined (see PIPELINE): iteration p0 fetches its step and multiplies the previous one.
    float dy_next[TILE_M / PASS_ROWS], col_next[TILE_N / PASS_ROWS];
    for (int p0 = begin; p0 < end + STEP; p0 += STEP) {
        const int p = p0 + k;
        const bool in_p = p < end;
        const int sample = p / plane, position = p % plane;
        const int top = (position / out_w) * stride_h - pad_top, left = (position % out_w) * stride_w - pad_left;
        const int x_base = x_off + (sample * channels * height + top) * width + left;
        const int dy_base = dy_off + sample * filters * plane + position;
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) {
            const int m = m0 + r0 + PASS_ROWS * t;
            dy_next[t] = in_p && m < filters ? dy[dy_base + m * plane] : 0.0f;
        }
        for (int t = 0; t < TILE_N / PASS_ROWS; ++t) {
            const int4 source = column_source[r0 + PASS_ROWS * t];
            const int ih = top + source.s1, iw = left + source.s2;
            const bool inside = ih >= 0 && ih < height && iw >= 0 && iw < width;
            col_next[t] = !in_p || source.s0 == -2 ? 0.0f
                          : source.s0 == -1        ? 1.0f
                          : inside                 ? x[x_base + source.s0]
                                                   : 0.0f;
        }
        if (p0 > begin) multiply_step(dy_tile, col_tile, tx, ty, acc);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) AT(dy_tile, ROW4_M, k, r0 + PASS_ROWS * t) = dy_next[t];
        for (int t = 0; t < TILE_N / PASS_ROWS; ++t) AT(col_tile, ROW4_N, k, r0 + PASS_ROWS * t) = col_next[t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int columns = rows + 1;
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + ty * TM + i;
        if (m >= filters) continue;
        for (int j = 0; j < TN; ++j) {
            const int n = n0 + tx * TN + j;
            if (n < columns) partial[partial_off + (s * filters + m) * columns + n] = acc[i][j];
        }
    }
}

// The input gradient as an implicit GEMM (a transposed convolution): dx[C][Q] with Q = batch *
// height * width, summed over R = (kernel position, filter):
//   dx[c][q] = sum over (ki, kj, m) of weight[m][c][ki][kj] * dy[m][oh][ow] of q's sample,
// where oh * stride_h = ih + pad_top - ki (and the same for columns): the output position whose
// window put that weight on x[c][ih][iw]; none when that is not a whole position inside dy. The
// summed dimension walks one kernel position at a time, STEP filters per step (the last step of
// each position zero-padded), so the dy position each work-item reads is decoded once per step.
// One group per tile of (input channels x input positions); accumulate != 0 adds to dx.
__kernel __attribute__((reqd_work_group_size(8, 8, 1)))
void conv2d_backward_data_implicit(const int batch, const int channels, const int height, const int width,
                                   const int out_h, const int out_w, const int kernel_h, const int kernel_w,
                                   const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                                   const int filters,
                                   __global const float* weight, const int weight_off,
                                   __global const float* dy, const int dy_off,
                                   __global float* dx, const int dx_off, const int accumulate) {
    __local float4 w_tile[STEP * ROW4_M];
    __local float4 dy_tile[STEP * ROW4_N];
    const int tx = get_local_id(0), ty = get_local_id(1), item = ty * 8 + tx;
    const int q0 = get_group_id(0) * TILE_N, c0 = get_group_id(1) * TILE_M;
    const int image = height * width, columns = batch * image, plane = out_h * out_w;
    const int kernel_area = kernel_h * kernel_w;
    // The input position each work-item loads dy for, decoded once; it loads rows load_k,
    // load_k + 64 / TILE_N, ... of that column.
    const int load_q = item % TILE_N, load_k = item / TILE_N;
    const int q = q0 + load_q;
    const int sample = q / image, ih = (q % image) / width, iw = q % width;
    // The weights: each work-item loads filter w_k of tile rows (channels) w_r0, w_r0 + PASS_ROWS, ...
    const int w_k = item % STEP, w_r0 = item / STEP;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    // Pipelined (see PIPELINE): step `step` is (kernel position kk, filters m0 to m0 + STEP).
    const int filter_steps = (filters + STEP - 1) / STEP, steps = kernel_area * filter_steps;
    float w_next[TILE_M / PASS_ROWS], dy_next[STEP * TILE_N / 64];
    for (int step = 0; step <= steps; ++step) {
        const int kk = step / filter_steps, m0 = (step % filter_steps) * STEP;
        const int ki = kk / kernel_w, kj = kk % kernel_w;
        const int th = ih + pad_top - ki, tw = iw + pad_left - kj;
        const int oh = th / stride_h, ow = tw / stride_w;
        const bool hit = step < steps && q < columns && th >= 0 && tw >= 0 && th % stride_h == 0 &&
                         tw % stride_w == 0 && oh < out_h && ow < out_w;
        const int dy_base = dy_off + sample * filters * plane + oh * out_w + ow;
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) {
            const int c = c0 + w_r0 + PASS_ROWS * t, m = m0 + w_k;
            w_next[t] = step < steps && c < channels && m < filters
                            ? weight[weight_off + (m * channels + c) * kernel_area + kk]
                            : 0.0f;
        }
        for (int t = 0; t < STEP * TILE_N / 64; ++t) {
            const int m = m0 + load_k + t * (64 / TILE_N);
            dy_next[t] = hit && m < filters ? dy[dy_base + m * plane] : 0.0f;
        }
        if (step > 0) multiply_step(w_tile, dy_tile, tx, ty, acc);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) AT(w_tile, ROW4_M, w_k, w_r0 + PASS_ROWS * t) = w_next[t];
        for (int t = 0; t < STEP * TILE_N / 64; ++t)
            AT(dy_tile, ROW4_N, load_k + t * (64 / TILE_N), load_q) = dy_next[t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int j = 0; j < TN; ++j) {
        const int column = q0 + tx * TN + j;
        if (column >= columns) continue;
        const int n = column / image, position = column % image;
        for (int i = 0; i < TM; ++i) {
            const int c = c0 + ty * TM + i;
            if (c >= channels) continue;
            const int index = dx_off + (n * channels + c) * image + position;
            dx[index] = accumulate ? dx[index] + acc[i][j] : acc[i][j];
        }
    }
}

// The forward as an implicit GEMM, with no column matrix: y[Cout][P] = f(weight[Cout][K] x
// col[K][P] + bias) with f the fused activation (kind FUSED_NONE: none), where each col value is read from x where im2col would have copied it from,
// and each result goes straight to its NCHW place. One group per tile of (filters x output
// positions).
__kernel __attribute__((reqd_work_group_size(8, 8, 1)))
void conv2d_forward_implicit(const int batch, const int channels, const int height, const int width,
                             const int out_h, const int out_w, const int kernel_h, const int kernel_w,
                             const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                             const int filters,
                             __global const float* x, const int x_off,
                             __global const float* weight, const int weight_off,
                             __global const float* bias, const int bias_off,
                             __global float* y, const int y_off, const int kind, const float slope) {
    __local float4 w_tile[STEP * ROW4_M];
    __local float4 x_tile[STEP * ROW4_N];
    // Where each col row reads x, relative to an output position's window: (offset, kernel row
    // << 16 | kernel column), decoded once per group instead of with three divisions per value
    // loaded; layers with more rows than the table holds decode as they load.
    __local int2 row_source[FORWARD_TABLE_ROWS];
    const int tx = get_local_id(0), ty = get_local_id(1), item = ty * 8 + tx;
    const int q0 = get_group_id(0) * TILE_N, m0 = get_group_id(1) * TILE_M;
    const int rows = channels * kernel_h * kernel_w, plane = out_h * out_w, columns = batch * plane;
    const bool tabled = rows <= FORWARD_TABLE_ROWS;
    if (tabled) {
        for (int row = item; row < rows; row += 64) {
            const int kj = row % kernel_w, ki = (row / kernel_w) % kernel_h, ci = row / (kernel_w * kernel_h);
            row_source[row] = (int2)((ci * height + ki) * width + kj, ki << 16 | kj);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // The column each work-item loads in every step (rows load_k, load_k + 64 / TILE_N, ...):
    // its sample and output position, decoded once.
    const int load_n = item % TILE_N, load_k = item / TILE_N;
    const int q = q0 + load_n;
    const int sample = q / plane, position = q % plane;
    const int top = (position / out_w) * stride_h - pad_top, left = (position % out_w) * stride_w - pad_left;
    const int x_base = x_off + (sample * channels * height + top) * width + left;
    const int w_k = item % STEP, w_r0 = item / STEP;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    // Pipelined (see PIPELINE): iteration k0 fetches its step and multiplies the previous one.
    float w_next[TILE_M / PASS_ROWS], x_next[STEP * TILE_N / 64];
    for (int k0 = 0; k0 < rows + STEP; k0 += STEP) {
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) {  // weight: K fastest, for coalesced reads
            const int m = m0 + w_r0 + PASS_ROWS * t;
            w_next[t] = m < filters && k0 + w_k < rows ? weight[weight_off + m * rows + k0 + w_k] : 0.0f;
        }
        for (int t = 0; t < STEP * TILE_N / 64; ++t) {  // x: neighbouring positions side by side
            const int row = k0 + load_k + t * (64 / TILE_N);
            float value = 0.0f;
            if (q < columns && row < rows) {
                int offset, ki, kj;
                if (tabled) {
                    const int2 source = row_source[row];
                    offset = source.s0, ki = source.s1 >> 16, kj = source.s1 & 0xffff;
                } else {
                    kj = row % kernel_w, ki = (row / kernel_w) % kernel_h;
                    offset = ((row / (kernel_w * kernel_h)) * height + ki) * width + kj;
                }
                const int ih = top + ki, iw = left + kj;
                if (ih >= 0 && ih < height && iw >= 0 && iw < width) value = x[x_base + offset];
            }
            x_next[t] = value;
        }
        if (k0 > 0) multiply_step(w_tile, x_tile, tx, ty, acc);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = 0; t < TILE_M / PASS_ROWS; ++t) AT(w_tile, ROW4_M, w_k, w_r0 + PASS_ROWS * t) = w_next[t];
        for (int t = 0; t < STEP * TILE_N / 64; ++t)
            AT(x_tile, ROW4_N, load_k + t * (64 / TILE_N), load_n) = x_next[t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int j = 0; j < TN; ++j) {
        const int column = q0 + tx * TN + j;
        if (column >= columns) continue;
        const int n = column / plane, p = column % plane;
        for (int i = 0; i < TM; ++i) {
            const int m = m0 + ty * TM + i;
            if (m < filters)
                y[y_off + (n * filters + m) * plane + p] = activate_fused(kind, slope, acc[i][j] + bias[bias_off + m]);
        }
    }
}

// dweight[m][n] = sum over chunks of partial[s][m][n], dbias[m] the same of column K: one
// work-item per (filter, column), summing the chunks in order so results do not depend on timing.
__kernel void conv2d_filter_gradient_sum(const int filters, const int rows, const int chunks,
                                         __global const float* partial, const int partial_off,
                                         __global float* dweight, const int dweight_off,
                                         __global float* dbias, const int dbias_off) {
    const int n = get_global_id(0), m = get_global_id(1);
    const int columns = rows + 1;
    if (n >= columns || m >= filters) return;
    float sum = 0.0f;
    for (int s = 0; s < chunks; ++s) sum += partial[partial_off + (s * filters + m) * columns + n];
    if (n < rows)
        dweight[dweight_off + m * rows + n] = sum;
    else
        dbias[dbias_off + m] = sum;
}

// col2im: one work-item per (sample, channel) plane of dx adds every col entry im2col copied from
// it, walking col's rows (col_ld values apart) in order; no two work-items write the same plane.
// accumulate != 0 adds to dx.
__kernel void conv2d_col2im(const int batch, const int channels, const int height, const int width,
                            const int out_h, const int out_w, const int kernel_h, const int kernel_w,
                            const int stride_h, const int stride_w, const int pad_top, const int pad_left,
                            __global const float* col, const int col_off, const int col_ld,
                            __global float* dx, const int dx_off, const int accumulate) {
    const int plane = get_global_id(0);
    if (plane >= batch * channels) return;
    const int ci = plane % channels, n = plane / channels;
    __global float* out = dx + dx_off + plane * height * width;
    if (!accumulate)
        for (int i = 0; i < height * width; ++i) out[i] = 0.0f;
    for (int ki = 0; ki < kernel_h; ++ki)
        for (int kj = 0; kj < kernel_w; ++kj) {
            __global const float* in =
                col + col_off + ((ci * kernel_h + ki) * kernel_w + kj) * col_ld + n * out_h * out_w;
            const int left = pad_left - kj;
            int first, last;
            inside_columns(left, stride_w, width, out_w, &first, &last);
            for (int oh = 0; oh < out_h; ++oh, in += out_w) {
                const int ih = oh * stride_h - pad_top + ki;
                if (ih < 0 || ih >= height) continue;
                __global float* out_row = out + ih * width - left;
                for (int ow = first; ow < last; ++ow) out_row[ow * stride_w] += in[ow];
            }
        }
}
