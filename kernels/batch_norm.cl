// Batch normalisation per channel over N * H * W values. A tensor argument is a buffer and an
// element offset. The training kernels run one work-group per channel (group id = channel); the
// host launches a power-of-two group of at most BN_GROUP_MAX work-items.

#define BN_GROUP_MAX 64

// The sum of every work-item's `value` across the group, returned to all of them. The final
// barrier lets the caller reuse `scratch` at once.
float group_sum(__local float* scratch, const float value) {
    const int lid = get_local_id(0);
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int active = get_local_size(0) / 2; active > 0; active /= 2) {
        if (lid < active) scratch[lid] += scratch[lid + active];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float sum = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum;
}

// Element j (0 <= j < n * plane) of `channel`, in NCHW order.
int bn_index(const int j, const int channels, const int plane, const int channel) {
    return ((j / plane) * channels + channel) * plane + j % plane;
}

__kernel void batch_norm_forward_train(const int n, const int channels, const int plane, const float momentum,
                                       const float epsilon,
                                       __global const float* x, const int x_off,
                                       __global const float* gamma, const int gamma_off,
                                       __global const float* beta, const int beta_off,
                                       __global float* y, const int y_off,
                                       __global float* saved_mean, const int saved_mean_off,
                                       __global float* saved_inv_std, const int saved_inv_std_off,
                                       __global float* running_mean, const int running_mean_off,
                                       __global float* running_var, const int running_var_off) {
    __local float scratch[BN_GROUP_MAX];
    const int channel = get_group_id(0);
    const int lid = get_local_id(0);
    const int size = get_local_size(0);
    const int count = n * plane;

    float sum = 0.0f;
    for (int j = lid; j < count; j += size) sum += x[x_off + bn_index(j, channels, plane, channel)];
    const float mean = group_sum(scratch, sum) / (float)count;

    float squares = 0.0f;
    for (int j = lid; j < count; j += size) {
        const float d = x[x_off + bn_index(j, channels, plane, channel)] - mean;
        squares += d * d;
    }
    const float var = group_sum(scratch, squares) / (float)count;
    const float inv_std = 1.0f / sqrt(var + epsilon);

    if (lid == 0) {
        saved_mean[saved_mean_off + channel] = mean;
        saved_inv_std[saved_inv_std_off + channel] = inv_std;
        const float unbiased = count > 1 ? var * ((float)count / (float)(count - 1)) : var;
        running_mean[running_mean_off + channel] =
            momentum * running_mean[running_mean_off + channel] + (1.0f - momentum) * mean;
        running_var[running_var_off + channel] =
            momentum * running_var[running_var_off + channel] + (1.0f - momentum) * unbiased;
    }

    const float scale = gamma[gamma_off + channel] * inv_std;
    const float shift = beta[beta_off + channel];
    for (int j = lid; j < count; j += size) {
        const int i = bn_index(j, channels, plane, channel);
        y[y_off + i] = scale * (x[x_off + i] - mean) + shift;
    }
}

// One work-item per element.
__kernel void batch_norm_forward_eval(const int total, const int channels, const int plane, const float epsilon,
                                      __global const float* x, const int x_off,
                                      __global const float* gamma, const int gamma_off,
                                      __global const float* beta, const int beta_off,
                                      __global const float* running_mean, const int running_mean_off,
                                      __global const float* running_var, const int running_var_off,
                                      __global float* y, const int y_off) {
    const int i = get_global_id(0);
    if (i >= total) return;
    const int c = (i / plane) % channels;
    const float inv_std = 1.0f / sqrt(running_var[running_var_off + c] + epsilon);
    y[y_off + i] =
        gamma[gamma_off + c] * inv_std * (x[x_off + i] - running_mean[running_mean_off + c]) + beta[beta_off + c];
}

// The input gradient of the evaluation-mode forward, where the statistics are constants:
// dx = dy * gamma / sqrt(running_var + epsilon). accumulate != 0 adds to dx.
__kernel void batch_norm_backward_eval(const int total, const int channels, const int plane, const float epsilon,
                                       __global const float* gamma, const int gamma_off,
                                       __global const float* running_var, const int running_var_off,
                                       __global const float* dy, const int dy_off,
                                       __global float* dx, const int dx_off, const int accumulate) {
    const int i = get_global_id(0);
    if (i >= total) return;
    const int c = (i / plane) % channels;
    const float g = dy[dy_off + i] * gamma[gamma_off + c] / sqrt(running_var[running_var_off + c] + epsilon);
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}

// With xhat = (x - mean) * inv_std: dbeta = sum dy, dgamma = sum dy * xhat, and
// dx = gamma * inv_std * (dy - dbeta / M - xhat * dgamma / M). write_dx == 0: dx is not touched.
__kernel void batch_norm_backward(const int n, const int channels, const int plane,
                                  __global const float* x, const int x_off,
                                  __global const float* gamma, const int gamma_off,
                                  __global const float* saved_mean, const int saved_mean_off,
                                  __global const float* saved_inv_std, const int saved_inv_std_off,
                                  __global const float* dy, const int dy_off,
                                  __global float* dx, const int dx_off, const int write_dx, const int accumulate,
                                  __global float* dgamma, const int dgamma_off,
                                  __global float* dbeta, const int dbeta_off) {
    __local float scratch[BN_GROUP_MAX];
    const int channel = get_group_id(0);
    const int lid = get_local_id(0);
    const int size = get_local_size(0);
    const int count = n * plane;
    const float mean = saved_mean[saved_mean_off + channel];
    const float inv_std = saved_inv_std[saved_inv_std_off + channel];

    float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
    for (int j = lid; j < count; j += size) {
        const int i = bn_index(j, channels, plane, channel);
        const float g = dy[dy_off + i];
        sum_dy += g;
        sum_dy_xhat += g * (x[x_off + i] - mean) * inv_std;
    }
    sum_dy = group_sum(scratch, sum_dy);
    sum_dy_xhat = group_sum(scratch, sum_dy_xhat);
    if (lid == 0) {
        dbeta[dbeta_off + channel] = sum_dy;
        dgamma[dgamma_off + channel] = sum_dy_xhat;
    }
    if (!write_dx) return;

    const float scale = gamma[gamma_off + channel] * inv_std;
    const float mean_dy = sum_dy / (float)count;
    const float mean_dy_xhat = sum_dy_xhat / (float)count;
    for (int j = lid; j < count; j += size) {
        const int i = bn_index(j, channels, plane, channel);
        const float xhat = (x[x_off + i] - mean) * inv_std;
        const float g = scale * (dy[dy_off + i] - mean_dy - xhat * mean_dy_xhat);
        dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
    }
}
