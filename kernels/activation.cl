// Element-wise activations. `kind` follows bps::ops::Activation: 0 ReLU, 1 LeakyReLU,
// 2 Sigmoid, 3 Tanh. Each tensor argument is a buffer and an element offset.

#include "activation_functions.clh"

__kernel void activation_forward(const int n, const int kind, const float slope,
                                 __global const float* x, const int x_off,
                                 __global float* y, const int y_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + i] = activate(kind, slope, x[x_off + i]);
}

// accumulate != 0 adds to dx (a tensor read by several layers sums their gradients).
__kernel void activation_backward(const int n, const int kind, const float slope,
                                  __global const float* x, const int x_off,
                                  __global const float* y, const int y_off,
                                  __global const float* dy, const int dy_off,
                                  __global float* dx, const int dx_off, const int accumulate) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float value = kind <= 1 ? x[x_off + i] : y[y_off + i];
    const float g = dy[dy_off + i] * activation_slope(kind, slope, value);
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}

// dy = dy * f'(x) in place, computed from y = f(x) (kind never FUSED_NONE): the backward of an
// activation fused into the layer before it, for that layer's kernels that read dy in place.
__kernel void activation_gradient_from_output(const int n, const int kind, const float slope,
                                              __global const float* y, const int y_off,
                                              __global float* dy, const int dy_off) {
    const int i = get_global_id(0);
    if (i < n) dy[dy_off + i] = fused_gradient(kind, slope, y[y_off + i], dy[dy_off + i]);
}
