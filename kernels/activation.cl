// Element-wise activations. `kind` follows bps::ops::Activation: 0 ReLU, 1 LeakyReLU,
// 2 Sigmoid, 3 Tanh. Each tensor argument is a buffer and an element offset.

float activate(const int kind, const float slope, const float x) {
    switch (kind) {
        case 0: return x > 0.0f ? x : 0.0f;
        case 1: return x > 0.0f ? x : slope * x;
        case 2: return 1.0f / (1.0f + exp(-x));
        default: return tanh(x);
    }
}

// The derivative, from the input x (ReLU family) or the output y (Sigmoid, Tanh): `value`, the
// only one of the two read (the backward is memory-bound).
float activation_slope(const int kind, const float slope, const float value) {
    switch (kind) {
        case 0: return value > 0.0f ? 1.0f : 0.0f;
        case 1: return value > 0.0f ? 1.0f : slope;
        case 2: return value * (1.0f - value);
        default: return 1.0f - value * value;
    }
}

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
