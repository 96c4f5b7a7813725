// Losses with their gradient. One work-item per sample walks its row of K values: K is the
// number of classes or outputs (small), and a row reduction needs no synchronisation.

// The index of a row's largest value (the first on ties): the predicted class, and the shift
// that keeps every exp of the softmax at or below 1.
int row_argmax(__global const float* row, const int k) {
    int best = 0;
    for (int j = 1; j < k; ++j)
        if (row[j] > row[best]) best = j;
    return best;
}

float sum_exp_shifted(__global const float* row, const int k, const float top) {
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) sum += exp(row[j] - top);
    return sum;
}

// Cross-entropy from logits, stable for any magnitude: every exp sees z - max <= 0, so none
// overflows and at least one term of the sum is 1. A label outside 0..k-1 is never used as an
// index; its sample gets NaN loss and gradient and counts as wrong.
__kernel void softmax_cross_entropy(const int n, const int k, const float inv_n,
                                    __global const float* z, const int z_off,
                                    __global const int* labels, const int labels_off,
                                    __global float* dz, const int dz_off,
                                    __global float* loss, const int loss_off,
                                    __global float* correct, const int correct_off) {
    const int s = get_global_id(0);
    if (s >= n) return;
    __global const float* row = z + z_off + s * k;
    __global float* grad = dz + dz_off + s * k;
    const int best = row_argmax(row, k);
    const float top = row[best];
    const float sum = sum_exp_shifted(row, k, top);
    const int label = labels[labels_off + s];
    const int valid = label >= 0 && label < k;
    loss[loss_off + s] = valid ? log(sum) - (row[valid ? label : 0] - top) : NAN;
    correct[correct_off + s] = valid && best == label ? 1.0f : 0.0f;
    for (int j = 0; j < k; ++j) {
        const float p = exp(row[j] - top) / sum;
        grad[j] = valid ? (p - (j == label ? 1.0f : 0.0f)) * inv_n : NAN;
    }
}

__kernel void softmax(const int n, const int k,
                      __global const float* z, const int z_off,
                      __global float* p, const int p_off) {
    const int s = get_global_id(0);
    if (s >= n) return;
    __global const float* row = z + z_off + s * k;
    __global float* out = p + p_off + s * k;
    const float top = row[row_argmax(row, k)];
    const float sum = sum_exp_shifted(row, k, top);
    for (int j = 0; j < k; ++j) out[j] = exp(row[j] - top) / sum;
}

// scale = 2 / (n * k): the gradient of the batch mean of the per-sample means.
__kernel void mean_squared_error(const int n, const int k, const float scale,
                                 __global const float* p, const int p_off,
                                 __global const float* t, const int t_off,
                                 __global float* dp, const int dp_off,
                                 __global float* loss, const int loss_off) {
    const int s = get_global_id(0);
    if (s >= n) return;
    const int first = s * k;
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) {
        const float d = p[p_off + first + j] - t[t_off + first + j];
        sum += d * d;
        dp[dp_off + first + j] = scale * d;
    }
    loss[loss_off + s] = sum / k;
}
