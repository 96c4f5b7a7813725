#include "engine/ops/dense.h"

#include <stdexcept>
#include <string>

#include "engine/ops/gemm.h"
#include "engine/ops/shape_check.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/dense.cl), named once.
const KernelId dense_add_bias_kernel{"dense", "dense_add_bias"};
const KernelId dense_bias_gradient_kernel{"dense", "dense_bias_gradient"};

struct DenseSizes {
    int batch;
    int in;
    int out;
};

// The sizes every tensor is checked against: the input fixes N and `in`, the weight `out`.
DenseSizes sizes_of(const Tensor& x, const Tensor& weight, const Tensor& bias, const char* op, const char* bias_name) {
    const DenseSizes s{x.shape.n, static_cast<int>(x.shape.per_sample()), weight.shape.n};
    require_shape(weight, Shape{s.out, s.in, 1, 1}, op, "weight", x.shape);
    require_shape(bias, Shape{1, s.out, 1, 1}, op, bias_name, x.shape);
    return s;
}
}  // namespace

void dense_forward(Runtime& runtime, const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y,
                   const std::optional<FusedActivation>& activation) {
    const DenseSizes s = sizes_of(x, weight, bias, "Dense forward", "bias");
    require_shape(y, Shape{s.batch, s.out, 1, 1}, "Dense forward", "y", x.shape);
    require_fusable(activation, y, y, "Dense forward");
    // y[N, out] = f(x[N, in] * weight[out, in]^T + bias): one command where the own GEMM kernels
    // run the product, else the product, then the bias and activation.
    const GemmOperand x_rows{x, std::size_t(s.in)}, weight_rows{weight, std::size_t(s.in), true};
    if (gemm_nt_bias_activation(runtime, s.batch, s.out, s.in, x_rows, weight_rows, bias, activation, y, s.out,
                                "Dense forward"))
        return;
    // beta 0 never reads y's previous contents.
    gemm(runtime, s.batch, s.out, s.in, 1.0f, x_rows, weight_rows, 0.0f, y, s.out, "Dense forward");
    runtime.run(dense_add_bias_kernel, y.count(), static_cast<int>(y.count()), s.out,
                FusedActivation::kernel_kind(activation), FusedActivation::kernel_slope(activation), y, bias);
}

void dense_backward(Runtime& runtime, const Tensor& x, const Tensor& weight, const Tensor& dy, const Tensor& dx,
                    GradWrite dx_write, const Tensor& dweight, const Tensor& dbias,
                    const std::optional<FusedActivation>& activation, const Tensor& y) {
    const DenseSizes s = sizes_of(x, weight, dbias, "Dense backward", "dbias");
    require_shape(dy, Shape{s.batch, s.out, 1, 1}, "Dense backward", "dy", x.shape);
    require_shape(dweight, weight.shape, "Dense backward", "dweight", x.shape);
    if (dx.buffer != nullptr && (dx.shape.n != s.batch || dx.shape.per_sample() != std::size_t(s.in)))
        throw std::invalid_argument("Dense backward: dx is " + dx.shape.to_string() + ", expected " +
                                    std::to_string(s.batch) + " samples of " + std::to_string(s.in) + " values for a " +
                                    x.shape.to_string() + " input");
    require_fusable(activation, y, dy, "Dense backward");

    // First, as the products read dy: with a fused activation this also turns dy into the
    // gradient before the activation (y is not read without one: dy stands in for it).
    runtime.run(dense_bias_gradient_kernel, std::size_t(s.out), s.batch, s.out,
                FusedActivation::kernel_kind(activation), FusedActivation::kernel_slope(activation),
                activation ? y : dy, dy, dbias);
    if (dx.buffer != nullptr) {
        // dx[N, in] = dy[N, out] * weight[out, in] (+ dx): beta 1 adds to what another layer wrote.
        gemm(runtime, s.batch, s.in, s.out, 1.0f, {dy, std::size_t(s.out)}, {weight, std::size_t(s.in)},
             dx_write == GradWrite::accumulate ? 1.0f : 0.0f, dx, s.in, "Dense backward (input gradient)");
    }
    // dweight[out, in] = dy[N, out]^T * x[N, in]
    gemm(runtime, s.out, s.in, s.batch, 1.0f, {dy, std::size_t(s.out), true}, {x, std::size_t(s.in)}, 0.0f, dweight,
         s.in, "Dense backward (weight gradient)");
}

}  // namespace bps::ops
