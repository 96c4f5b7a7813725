// Merge layers: Add and Concatenate (along channels). One work-item per element.

// y = a + b
__kernel void add_two(const int n, __global const float* a, const int a_off, __global const float* b, const int b_off,
                      __global float* y, const int y_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + i] = a[a_off + i] + b[b_off + i];
}

// y += x (the third and later inputs of an Add)
__kernel void add_into(const int n, __global const float* x, const int x_off, __global float* y, const int y_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + i] += x[x_off + i];
}

// dx = dy, or dx += dy when accumulate (a tensor read by several layers sums their gradients).
__kernel void pass_gradient(const int n, __global const float* dy, const int dy_off, __global float* dx,
                            const int dx_off, const int accumulate) {
    const int i = get_global_id(0);
    if (i < n) dx[dx_off + i] = accumulate ? dx[dx_off + i] + dy[dy_off + i] : dy[dy_off + i];
}

// Element i of an input with `part` values per sample lands in sample i / part of y (`whole`
// values per sample), `offset` values (its first channel times H*W) into that sample.
__kernel void concat_forward(const int n, const int part, const int whole, const int offset,
                             __global const float* x, const int x_off, __global float* y, const int y_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + (i / part) * whole + offset + i % part] = x[x_off + i];
}

__kernel void concat_backward(const int n, const int part, const int whole, const int offset,
                              __global const float* dy, const int dy_off, __global float* dx, const int dx_off,
                              const int accumulate) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float g = dy[dy_off + (i / part) * whole + offset + i % part];
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}
