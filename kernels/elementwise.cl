// Element-wise kernels on float32 vectors. One work-item per element; the host rounds the
// global size up to the work-group size, so every kernel checks its bound.

// y = alpha * x + y
__kernel void axpy(const int n, const float alpha, __global const float* x, __global float* y) {
    const int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}

// x = value
__kernel void fill(const int n, const float value, __global float* x) {
    const int i = get_global_id(0);
    if (i < n) x[i] = value;
}
