// The parts of a dense layer that are not matrix products (those go through CLBlast).

// y[b][j] += bias[j] for the n = batch * features elements of y.
__kernel void dense_add_bias(const int n, const int features,
                             __global float* y, const int y_off,
                             __global const float* bias, const int bias_off) {
    const int i = get_global_id(0);
    if (i < n) y[y_off + i] += bias[bias_off + i % features];
}

// dbias[j] = sum over the batch of dy[b][j]: one work-item per feature, so no atomics.
__kernel void dense_bias_gradient(const int batch, const int features,
                                  __global const float* dy, const int dy_off,
                                  __global float* dbias, const int dbias_off) {
    const int j = get_global_id(0);
    if (j >= features) return;
    float sum = 0.0f;
    for (int b = 0; b < batch; ++b) sum += dy[dy_off + b * features + j];
    dbias[dbias_off + j] = sum;
}
