#include "engine/ops/batch_norm.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/cl/error.h"
#include "engine/ops/shape_check.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/batch_norm.cl), named once.
const KernelId batch_norm_forward_eval_kernel{"batch_norm", "batch_norm_forward_eval"};
const KernelId batch_norm_backward_eval_kernel{"batch_norm", "batch_norm_backward_eval"};
const KernelId batch_norm_forward_train_kernel{"batch_norm", "batch_norm_forward_train"};
const KernelId batch_norm_backward_kernel{"batch_norm", "batch_norm_backward"};

Shape channels_of(const Tensor& x) {
    return {1, x.shape.c, 1, 1};
}

// The kernels' local arrays hold 64 floats (kernels/batch_norm.cl) and the tree reduction halves
// the group, so the group is the largest power of two within 64 and the kernel's limit.
std::size_t group_size(const Runtime& runtime, const cl::Kernel& kernel) {
    const std::size_t limit =
        std::min<std::size_t>({64, runtime.device().max_work_group_size, kernel.max_group_size()});
    std::size_t size = 1;
    while (size * 2 <= limit) size *= 2;
    return size;
}

// One work-group per channel.
template <typename... Args>
void run_per_channel(Runtime& runtime, const KernelId& kernel, int channels, const Args&... args) {
    cl::Kernel& k = runtime.kernel(kernel);
    Runtime::set_arguments(k, args...);
    const std::size_t group = group_size(runtime, k);
    runtime.run_in_groups(k, group * static_cast<std::size_t>(channels), group);
}
}  // namespace

void batch_norm_forward_train(Runtime& runtime, float momentum, float epsilon, const Tensor& x, const Tensor& gamma,
                              const Tensor& beta, const Tensor& y, const Tensor& saved_mean,
                              const Tensor& saved_inv_std, const Tensor& running_mean, const Tensor& running_var) {
    const char* op = "batch norm forward (training)";
    const Shape channels = channels_of(x);
    require_shape(y, x.shape, op, "y");
    require_shape(gamma, channels, op, "gamma");
    require_shape(beta, channels, op, "beta");
    require_shape(saved_mean, channels, op, "saved mean");
    require_shape(saved_inv_std, channels, op, "saved inverse deviation");
    require_shape(running_mean, channels, op, "running mean");
    require_shape(running_var, channels, op, "running variance");
    run_per_channel(runtime, batch_norm_forward_train_kernel, x.shape.c, x.shape.n, x.shape.c,
                    static_cast<int>(x.shape.plane()), momentum, epsilon, x, gamma, beta, y, saved_mean, saved_inv_std,
                    running_mean, running_var);
}

void batch_norm_forward_eval(Runtime& runtime, float epsilon, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             const Tensor& running_mean, const Tensor& running_var, const Tensor& y) {
    const char* op = "batch norm forward (evaluation)";
    const Shape channels = channels_of(x);
    require_shape(y, x.shape, op, "y");
    require_shape(gamma, channels, op, "gamma");
    require_shape(beta, channels, op, "beta");
    require_shape(running_mean, channels, op, "running mean");
    require_shape(running_var, channels, op, "running variance");
    runtime.run(batch_norm_forward_eval_kernel, x.count(), static_cast<int>(x.count()), x.shape.c,
                static_cast<int>(x.shape.plane()), epsilon, x, gamma, beta, running_mean, running_var, y);
}

void batch_norm_backward_eval(Runtime& runtime, float epsilon, const Tensor& gamma, const Tensor& running_var,
                              const Tensor& dy, const Tensor& dx, GradWrite write) {
    const char* op = "batch norm backward (evaluation)";
    const Shape channels = channels_of(dy);
    require_shape(dx, dy.shape, op, "dx");
    require_shape(gamma, channels, op, "gamma");
    require_shape(running_var, channels, op, "running variance");
    runtime.run(batch_norm_backward_eval_kernel, dy.count(), static_cast<int>(dy.count()), dy.shape.c,
                static_cast<int>(dy.shape.plane()), epsilon, gamma, running_var, dy, dx,
                static_cast<int>(write == GradWrite::accumulate));
}

void batch_norm_backward(Runtime& runtime, const Tensor& x, const Tensor& gamma, const Tensor& saved_mean,
                         const Tensor& saved_inv_std, const Tensor& dy, const Tensor& dx, GradWrite write,
                         const Tensor& dgamma, const Tensor& dbeta) {
    const char* op = "batch norm backward";
    const Shape channels = channels_of(x);
    require_shape(dy, x.shape, op, "dy");
    const bool want_dx = dx.buffer != nullptr;
    if (want_dx) require_shape(dx, x.shape, op, "dx");
    require_shape(gamma, channels, op, "gamma");
    require_shape(saved_mean, channels, op, "saved mean");
    require_shape(saved_inv_std, channels, op, "saved inverse deviation");
    require_shape(dgamma, channels, op, "dgamma");
    require_shape(dbeta, channels, op, "dbeta");
    // Without dx the kernel gets dy's buffer in its place and never writes it.
    run_per_channel(runtime, batch_norm_backward_kernel, x.shape.c, x.shape.n, x.shape.c,
                    static_cast<int>(x.shape.plane()), x, gamma, saved_mean, saved_inv_std, dy, want_dx ? dx : dy,
                    static_cast<int>(want_dx), static_cast<int>(write == GradWrite::accumulate), dgamma, dbeta);
}

}  // namespace bps::ops
