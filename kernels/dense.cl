// The parts of a dense layer that are not matrix products (those go through ops::gemm). On CPU
// devices gemm.cl's gemm_nt_bias adds the forward's bias itself, and dense_add_bias is not run.

#include "activation_functions.clh"

// y[b][j] = f(y[b][j] + bias[j]) for the n = batch * features elements of y, with f the fused
// activation (kind FUSED_NONE: none).
__kernel void dense_add_bias(const int n, const int features, const int kind, const float slope,
                             __global float* y, const int y_off,
                             __global const float* bias, const int bias_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + i] = activate_fused(kind, slope, y[y_off + i] + bias[bias_off + i % features]);
}

// dbias[j] = sum over the batch of dy[b][j]: one work-item per feature, so no atomics. With a
// fused activation, dy[b][j] first becomes dy[b][j] * f'(y[b][j]) in place, the gradient the
// weight and input gradients then read.
__kernel void dense_bias_gradient(const int batch, const int features, const int kind, const float slope,
                                  __global const float* y, const int y_off,
                                  __global float* dy, const int dy_off,
                                  __global float* dbias, const int dbias_off) {
    const int j = get_global_id(0);
    if (j >= features) return;
    float sum = 0.0f;
    for (int b = 0; b < batch; ++b) {
        const int i = b * features + j;
        float g = dy[dy_off + i];
        if (kind != FUSED_NONE) {
            g = fused_gradient(kind, slope, y[y_off + i], g);
            dy[dy_off + i] = g;
        }
        sum += g;
    }
    dbias[dbias_off + j] = sum;
}
